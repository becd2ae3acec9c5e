"""Every error as JSON: ``{"error": {"code": "...", "message": "..."}, "disclaimer": ...}``."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ServiceError, StoreError, validation_message

__all__ = [
    "allowed_methods",
    "error_response",
    "http_error_response",
    "install_error_handlers",
    "service_error_response",
    "store_error_response",
]

_log = logging.getLogger(__name__)

_HTTP_CODES = {
    404: "not_found",
    405: "method_not_allowed",
    401: "unauthorized",
    400: "invalid_request",
    413: "payload_too_large",
    415: "unsupported_media_type",
}


def error_response(
    status: int,
    code: str,
    message: str,
    headers: Mapping[str, str] | None = None,
    **extra: object,
) -> JSONResponse:
    """Return the JSON error response (with ``headers``, e.g. a 405's ``Allow``)."""
    body = {"error": {"code": code, "message": message, **extra}, "disclaimer": DISCLAIMER}
    return JSONResponse(body, status_code=status, headers=headers)


def service_error_response(exc: ServiceError) -> JSONResponse:
    """Return the JSON error response of a service call's expected failure.

    An error with ``retry_after_s`` (a rate limit) also says it as ``Retry-After``.
    """
    wait = exc.extra.get("retry_after_s")
    headers = {"Retry-After": str(wait)} if isinstance(wait, int) else None
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


def store_error_response(exc: StoreError) -> JSONResponse:
    """Log a store failure and return the 503 the client sees (no internals in it)."""
    _log.error("store error: %s", exc)
    return error_response(503, "store_unavailable", "The database is unavailable; retry later.")


async def _service(request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, ServiceError):
        raise exc
    return service_error_response(exc)


_SEND_JSON = "Send the body as JSON, with the header Content-Type: application/json."


def _is_json(content_type: str) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


async def _validation(request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, RequestValidationError):
        raise exc
    body_problem = any(item.get("loc", ("",))[0] == "body" for item in exc.errors())
    content_type = request.headers.get("content-type", "")
    if body_problem and content_type and not _is_json(content_type):
        shown = content_type.split(";", 1)[0].strip()[:60]
        return error_response(
            415, "unsupported_media_type", f"The body was sent as {shown}. {_SEND_JSON}"
        )
    hint = f" {_SEND_JSON}" if body_problem and not content_type else ""
    return error_response(422, "invalid_request", validation_message(exc.errors()) + hint)


_METHOD_ORDER: Final = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def _routes(app: Any) -> Iterable[Any]:
    """Return ``app``'s routes, those of included routers among them, as routing sees them."""
    try:  # FastAPI >= 0.116 keeps an included router's routes inside it
        from fastapi.routing import iter_route_contexts
    except ImportError:  # earlier ones copy them into the app's own list
        return list(app.router.routes)
    return list(iter_route_contexts(app.router.routes))


def allowed_methods(request: Request) -> str | None:
    """Return the ``Allow`` header of ``request``'s path: every method of every route on it.

    Starlette's 405 names the methods of the first route whose path matched;
    a path served by several routes (``GET`` and ``POST /api/v1/runs``) has
    them all. ``None`` when no route has the path.
    """
    path = request.scope.get("path", "")
    methods: set[str] = set()
    for route in _routes(request.app):
        declared = getattr(route, "methods", None)
        pattern = getattr(route, "path_regex", None)
        if declared and pattern is not None and pattern.match(path):
            methods.update(m.upper() for m in declared)
    if not methods:
        return None
    ordered = [m for m in _METHOD_ORDER if m in methods]
    return ", ".join(ordered + sorted(methods - set(_METHOD_ORDER)))


def http_error_response(exc: HTTPException, request: Request | None = None) -> JSONResponse:
    """Return the JSON error response of an HTTP error (an unknown path, a wrong method).

    A 405 of ``request`` lists in ``Allow`` every method its path is served with.
    """
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    headers = dict(exc.headers or {})
    if exc.status_code == 405 and request is not None:
        allow = allowed_methods(request)
        if allow is not None:
            headers["Allow"] = allow
    return error_response(exc.status_code, code, str(exc.detail), headers=headers or None)


async def _http(request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, HTTPException):
        raise exc
    return http_error_response(exc, request)


async def _store(request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, StoreError):
        raise exc
    return store_error_response(exc)


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    _log.exception("unexpected error", exc_info=exc)
    return error_response(500, "internal_error", "Something went wrong on our side.")


def install_error_handlers(app: FastAPI) -> None:
    """Render every error, expected or not, as the JSON error body."""
    app.add_exception_handler(ServiceError, _service)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(HTTPException, _http)
    app.add_exception_handler(StoreError, _store)
    app.add_exception_handler(Exception, _unexpected)
