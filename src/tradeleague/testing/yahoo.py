"""A local server speaking Yahoo Finance's HTTP protocol, as ``yfinance`` meets it.

Every Yahoo host ``yfinance`` calls (``fc``, ``query1``, ``query2``, ``guce``,
``consent``) is this one server once a session is rebased onto it
(``feeds/yahoo.py``), so it serves all of their paths:

- the cookie: ``GET /`` (``fc.yahoo.com``) answers 404 and sets the ``A3``
  cookie, as Yahoo does; the consent flow (``GET /consent`` with its form,
  ``POST /v2/collectConsent``, ``GET /copyConsent``) sets it too;
- the crumb: ``GET /v1/test/getcrumb`` answers the crumb as plain text to a
  caller holding the cookie;
- the chart: ``GET /v8/finance/chart/{symbol}`` with ``period1``, ``period2``
  and ``interval=1d`` answers Yahoo's chart document (``meta``, ``timestamp``,
  ``indicators.quote`` and ``adjclose``) for the bars opened in
  ``[period1, period2)``, each stamped at its session's open; a symbol with no
  bars at all answers Yahoo's 404 ``Not Found`` document, and a caller without
  the cookie and its crumb gets Yahoo's 401 ``Invalid Crumb``.

``YahooFake.raw`` replaces one symbol's chart answer with any status and body
(garbage, a huge body, a server error), for the feed's failure tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from tradeleague.formats.thesis.candles import Candle
from tradeleague.money import MICRO

__all__ = ["COOKIE", "CRUMB", "YahooFake", "keep_yfinance_caches_in", "yahoo_app"]

COOKIE = "d=AQABBLOCALTESTCOOKIE&S=AQAAAlocal"
"""The ``A3`` cookie the server hands out."""

CRUMB = "LocalCrumb.1"
"""The crumb it answers to a caller holding the cookie."""

_CONSENT_FORM = """<!DOCTYPE html><html><body>
<form method="post" action="/v2/collectConsent?sessionId=local-session">
<input type="hidden" name="csrfToken" value="local-csrf">
<input type="hidden" name="sessionId" value="local-session">
<input type="hidden" name="originalDoneUrl" value="https://finance.yahoo.com/">
<input type="hidden" name="namespace" value="yahoo">
<button type="submit" name="agree" value="agree">Accept all</button>
</form></body></html>"""


@dataclass
class YahooFake:
    """What the server knows: daily candles per Yahoo symbol, and answers to serve instead.

    Attributes
    ----------
    candles
        Daily candles per symbol (``BRK-B`` as Yahoo spells it), each ``start``
        its session's open (as ``formats/thesis/candles.candles_of`` gives them).
    raw
        Symbol -> ``(status, body, headers)`` served for its chart instead.
    seen
        Every request's path and query, in order (filled by the server).
    """

    candles: Mapping[str, Sequence[Candle]] = field(default_factory=dict)
    raw: dict[str, tuple[int, bytes, Mapping[str, str]]] = field(default_factory=dict)
    seen: list[str] = field(default_factory=list)


def _number(micros: int) -> float:
    return micros / MICRO


def _chart(symbol: str, rows: Sequence[Candle]) -> dict[str, object]:
    last = rows[-1] if rows else None
    quote: dict[str, object] = {}
    result: dict[str, object] = {
        "meta": {
            "currency": "USD",
            "symbol": symbol,
            "exchangeName": "NYQ",
            "fullExchangeName": "NYSE",
            "instrumentType": "EQUITY",
            "firstTradeDate": 345479400,
            "regularMarketTime": last.end if last else 0,
            "hasPrePostMarketData": True,
            "gmtoffset": -14400,
            "timezone": "EDT",
            "exchangeTimezoneName": "America/New_York",
            "regularMarketPrice": _number(last.close) if last else None,
            "chartPreviousClose": _number(rows[0].open) if rows else None,
            "priceHint": 2,
            "dataGranularity": "1d",
            "range": "",
            "validRanges": ["1d", "5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "10y", "ytd", "max"],
        },
        "indicators": {"quote": [quote], "adjclose": [{}]},
    }
    if rows:
        result["timestamp"] = [c.start for c in rows]
        quote.update(
            open=[_number(c.open) for c in rows],
            high=[_number(c.high) for c in rows],
            low=[_number(c.low) for c in rows],
            close=[_number(c.close) for c in rows],
            volume=[c.volume // MICRO for c in rows],
        )
        result["indicators"] = {
            "quote": [quote],
            "adjclose": [{"adjclose": [_number(c.close) for c in rows]}],
        }
    return {"chart": {"result": [result], "error": None}}


def yahoo_app(fake: YahooFake) -> Starlette:
    """Return the app serving ``fake`` over Yahoo's paths (see the module's description)."""

    def _seen(request: Request) -> None:
        query = f"?{request.url.query}" if request.url.query else ""
        fake.seen.append(f"{request.method} {request.url.path}{query}")

    def _with_cookie(response: Response) -> Response:
        response.set_cookie("A3", COOKIE, max_age=31_557_600, path="/", httponly=True)
        return response

    def root(request: Request) -> Response:
        _seen(request)
        return _with_cookie(HTMLResponse("<html><body>Not Found</body></html>", 404))

    def consent(request: Request) -> Response:
        _seen(request)
        return HTMLResponse(_CONSENT_FORM)

    def collect(request: Request) -> Response:
        _seen(request)
        return HTMLResponse("<html><body>ok</body></html>")

    def copy(request: Request) -> Response:
        _seen(request)
        return _with_cookie(HTMLResponse("<html><body>ok</body></html>"))

    def crumb(request: Request) -> Response:
        _seen(request)
        if request.cookies.get("A3") != COOKIE:
            return PlainTextResponse("Unauthorized", 401)
        return PlainTextResponse(CRUMB)

    def chart(request: Request) -> Response:
        _seen(request)
        symbol = request.path_params["symbol"]
        if request.cookies.get("A3") != COOKIE or request.query_params.get("crumb") != CRUMB:
            error = {"code": "Unauthorized", "description": "Invalid Crumb"}
            return JSONResponse({"finance": {"result": None, "error": error}}, 401)
        if symbol in fake.raw:
            status, body, headers = fake.raw[symbol]
            return Response(body, status, headers=dict(headers))
        rows = fake.candles.get(symbol)
        if not rows:
            error = {"code": "Not Found", "description": "No data found, symbol may be delisted"}
            return JSONResponse({"chart": {"result": None, "error": error}}, 404)
        try:
            first = int(request.query_params["period1"])
            last = int(request.query_params["period2"])
        except (KeyError, ValueError):
            error = {"code": "Bad Request", "description": "Invalid input - period1/period2"}
            return JSONResponse({"chart": {"result": None, "error": error}}, 400)
        if request.query_params.get("interval") != "1d":
            error = {"code": "Bad Request", "description": "Invalid input - interval"}
            return JSONResponse({"chart": {"result": None, "error": error}}, 400)
        return JSONResponse(_chart(symbol, [c for c in rows if first <= c.start < last]))

    return Starlette(
        routes=[
            Route("/", root),
            Route("/consent", consent),
            Route("/v2/collectConsent", collect, methods=["POST"]),
            Route("/copyConsent", copy),
            Route("/v1/test/getcrumb", crumb),
            Route("/v8/finance/chart/{symbol}", chart),
        ]
    )


def keep_yfinance_caches_in(folder: Path) -> None:
    """Keep ``yfinance``'s on-disk caches (cookies, time zones) in ``folder``, not the home.

    ``yfinance`` keeps them in the user's cache folder by default; a test points
    them at its own folder before the first request.
    """
    from yfinance import cache

    cache.set_cache_location(str(folder))
