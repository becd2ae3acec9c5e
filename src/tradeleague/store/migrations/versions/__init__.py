"""Migration revisions, applied in order from a blank database (oldest first)."""
