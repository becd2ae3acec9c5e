"""The error body every route of the REST API documents (what ``/docs`` shows).

Each format's request and response bodies are its own (the scenario
benchmark's: `tradeleague.league.scenario.models`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["ErrorBody", "ErrorOut", "error_responses"]


class ErrorBody(BaseModel):
    """A stable code and one sentence; some errors add fields (``checkout_url``)."""

    model_config = ConfigDict(extra="allow")
    code: str
    message: str


class ErrorOut(BaseModel):
    """Every error response: ``{"error": {"code", "message"}}``."""

    error: ErrorBody


def error_responses(*codes: int) -> dict[int | str, dict[str, object]]:
    """Return a route's ``responses`` documenting ``codes`` with the `ErrorOut` body."""
    return {code: {"model": ErrorOut} for code in codes}
