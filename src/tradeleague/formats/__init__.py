"""Competition formats: one pure package per format (DESIGN principle 2)."""
