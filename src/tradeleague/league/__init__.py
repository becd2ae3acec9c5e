"""Orchestration: seasons and rounds, replayed or live, recorded as events."""
