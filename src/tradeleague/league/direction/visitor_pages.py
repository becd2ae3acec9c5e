"""The visitors' call form and board: a call on the live round without script (SPEC D-PUB-2).

The direction page shows a small form while a round takes calls: a name and
up or down, with a hidden ``csrf_token`` (``form_csrf``: a signed
double-submit cookie, since a visitor has no session). It posts to
``/direction/calls``, which calls the very `VisitorDesk` the JSON route calls;
a call taken answers ``303`` back to ``/direction?called=ROUND``, where the
page says the call is recorded and hidden until the round closes, without
saying which way (D-PUB-1). A refused call shows the page again with the
reason and the status the JSON route would give (409 late, already called or
another visitor's name, 422 a bad name, 403 a missing token, 429 too many
writes from the address). ``/direction/visitors`` is the
visitors' board, from the same read function as ``/api/v1/direction/visitors``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from tradeleague.api.write_limits import (
    anonymous_write,
    retry_later,
    visitor_holder,
    with_cookies,
)
from tradeleague.errors import ServiceError
from tradeleague.events import utc_iso
from tradeleague.formats.direction.visitors import (
    MAX_NAME_CHARS,
    MAX_RAW_NAME_CHARS,
    CallRefused,
    calls_close_at,
)
from tradeleague.league.direction.reads import DirectionReads, refusal_status
from tradeleague.league.direction.visitors import VisitorDesk
from tradeleague.web.form_csrf import FormTokens

__all__ = ["CallForm", "install_visitor_pages"]

_ROUND_ID: Final = re.compile(r"\d{8}T\d{4}(\d{2})?Z")
Page = Callable[..., HTMLResponse]
Guarded = Callable[[Callable[[], HTMLResponse]], HTMLResponse]


async def _form(request: Request) -> dict[str, str]:
    try:
        parsed = await request.form(max_files=0, max_fields=10)
    except Exception:  # a malformed body is an empty form: the call then says what is missing
        return {}
    return {k: v[: MAX_RAW_NAME_CHARS + 1] for k, v in parsed.items() if isinstance(v, str)}


class CallForm:
    """What the direction page needs to show the call form: the round, the token, the outcome.

    Parameters
    ----------
    desk
        The visitors' desk (the JSON route's too).
    tokens
        The forms' CSRF tokens.
    """

    def __init__(self, desk: VisitorDesk, tokens: FormTokens) -> None:
        self.desk = desk
        self.tokens = tokens

    def context(self, request: Request, **extra: Any) -> dict[str, Any]:
        """Return the form's template values for ``request`` (``csrf`` is the token to set)."""
        calling: dict[str, str] | None = None
        closed: str | None = None
        try:
            times = self.desk.open_round()
        except CallRefused as exc:
            closed = exc.message
        else:
            calling = {
                "round": times.round_id,
                "closes_at": utc_iso(calls_close_at(times, self.desk.preset)),
                "expiry": utc_iso(times.expiry),
                "cutoff_s": f"{self.desk.preset.late_cutoff.total_seconds():g}",
            }
        called = request.query_params.get("called", "")[:20]
        return {
            "calling": calling,
            "calls_closed": closed,
            "called": called if _ROUND_ID.fullmatch(called) else None,
            "csrf": self.tokens.for_page(request),
            "max_name": MAX_NAME_CHARS,
            **extra,
        }


def install_visitor_pages(
    router: APIRouter,
    reads: DirectionReads,
    form: CallForm,
    page: Page,
    guarded: Guarded,
    home: Callable[[Request, int, dict[str, Any]], Response],
) -> None:
    """Add ``POST /direction/calls`` and ``GET /direction/visitors`` to ``router``.

    ``home`` renders the direction page with the status and extra form values
    given (a refused call shows it again, with the reason).
    """

    @router.post("/direction/calls", response_class=HTMLResponse)
    async def call(request: Request) -> Response:
        fields = await _form(request)
        typed = fields.get("visitor", "")
        if not form.tokens.check(request, fields.get("csrf_token")):
            problem = "This form has expired or came from another site; it is shown again here."
            return home(request, 403, {"call_problem": problem, "typed": typed})
        try:
            anonymous_write(request)
        except ServiceError as exc:
            shown = {"call_problem": exc.message, "typed": typed}
            return retry_later(home(request, exc.status, shown), exc)
        cookies = Response()
        try:
            taken = form.desk.call(
                typed, fields.get("direction", ""), visitor_holder(request, cookies)
            )
        except CallRefused as exc:
            shown = {"call_problem": exc.message, "typed": typed}
            return with_cookies(home(request, refusal_status(exc.code), shown), cookies)
        taken_page = RedirectResponse(f"/direction?called={taken.round}#call", status_code=303)
        return with_cookies(taken_page, cookies)

    @router.get("/direction/visitors", response_class=HTMLResponse)
    def visitors_board() -> HTMLResponse:
        if not reads.index()["seasons"]:  # a format page with no season says so
            return page("direction_visitors.html", title="Visitors' board", board=None)
        return guarded(
            lambda: page("direction_visitors.html", title="Visitors' board", board=reads.visitors())
        )
