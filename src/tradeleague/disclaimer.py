"""The line every page, report and API root carries (SPEC C-1)."""

DISCLAIMER = "Paper trading simulation. Not investment advice. No real orders are placed."
