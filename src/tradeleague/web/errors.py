"""Read models' missing things, and the one way a JSON read route answers them.

``NotFound`` is what a read model raises for something that is not there; ``json_answer`` turns it
into a 404 with the API's one error body (``{"error": {"code": "not_found", "message"}}``, as
``tradeleague.api.errors`` renders every error), and the disclaimer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.responses import JSONResponse

from tradeleague.disclaimer import DISCLAIMER

__all__ = ["NotFound", "json_answer"]


class NotFound(LookupError):
    """A season, division, agent, model, round or run that does not exist (answered 404)."""


def json_answer(build: Callable[[], Any]) -> JSONResponse:
    """Answer a read route with what ``build`` returns, or a 404 naming what is missing."""
    try:
        return JSONResponse(build())
    except NotFound as exc:
        error = {"code": "not_found", "message": str(exc)}
        return JSONResponse({"error": error, "disclaimer": DISCLAIMER}, status_code=404)
