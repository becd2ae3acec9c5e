"""Web read models and routers; the application that mounts them lives with the lead."""
