"""Clients for the REST API: sync (`ScenarioClient`) and async (`AsyncScenarioClient`).

They play the scenario benchmark with a key, and read the leagues' public
boards, seasons, agents and logs (weights, thesis, direction, ratings) without one.

Each method is one operation of the API, typed by what it answers (the
`TypedDict` shapes below mirror the served OpenAPI document). An error
answer raises `ApiError` (or the subclass for its family) carrying the API's
status, code, sentence and whole body. ``create_run``, ``trade``,
``cancel_order`` and ``step`` are retried safely: each call carries an
``Idempotency-Key`` header (one is made per call when none is given), and a
dropped connection, a 5xx or ``idempotency_in_flight`` is retried with the
same key, so the server does the work at most once (S-SVC-1).

Money and quantities are exact decimal strings (US dollars, units); returns
and drawdowns are fractions of one; times are ISO 8601 UTC.

Examples
--------
>>> from tradeleague.client import ScenarioClient, OrderSpec
>>> with ScenarioClient("http://127.0.0.1:8000", api_key="tl_...") as api:  # doctest: +SKIP
...     run = api.create_run("wk")
...     while not api.market(run["id"])["done"]:
...         api.trade(run["id"], [OrderSpec("SPY", "buy", "10")])
...         api.step(run["id"])
...     print(api.results(run["id"])["sharpe"])
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from types import TracebackType
from typing import Any, Literal, TypedDict, cast
from urllib.parse import quote

import httpx

from tradeleague.errors import TradeleagueError

__all__ = [
    "ApiError",
    "AsyncScenarioClient",
    "AuthError",
    "ConflictError",
    "DirectionBoards",
    "InvalidRequestError",
    "Market",
    "ModelLog",
    "NotFoundError",
    "OrderSpec",
    "QuotaError",
    "Rating",
    "Results",
    "Retry",
    "Run",
    "ScenarioClient",
    "Seasons",
    "Step",
    "ThesisAgent",
    "ThesisBoard",
    "Trades",
    "WeightsAgent",
    "WeightsTable",
]

Side = Literal["buy", "sell", "short", "cover"]


class ApiError(TradeleagueError):
    """An error answer: the HTTP status, the stable code, the sentence and the whole body."""

    def __init__(self, status: int, code: str, message: str, body: dict[str, Any]) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.body = body

    @property
    def error(self) -> dict[str, Any]:
        """Return the error object, every field of it (``checkout_url``, ``reason``...)."""
        found = self.body.get("error")
        return found if isinstance(found, dict) else {}


class AuthError(ApiError):
    """401: no key, or a malformed, unknown or revoked one (``error["reason"]`` says which)."""


class QuotaError(ApiError):
    """402 or 429: the monthly runs are spent (``checkout_url`` or ``resets_at``)."""


class NotFoundError(ApiError):
    """404: no such scenario, run or order."""


class ConflictError(ApiError):
    """409: the run is not in the state the call needs (not complete, over, abandoned)."""


class InvalidRequestError(ApiError):
    """422 (or another 4xx): the request or an order cannot be accepted; the sentence says why."""


_FAMILIES: dict[int, type[ApiError]] = {
    401: AuthError,
    402: QuotaError,
    429: QuotaError,
    404: NotFoundError,
    409: ConflictError,
}


class Quota(TypedDict):
    """Runs used this UTC month, the limit and when it resets."""

    used: int
    limit: int
    resets_at: str


class Run(TypedDict):
    """A created run."""

    id: str
    scenario_id: str
    status: str
    index: int
    last_index: int
    created_at: str
    quota: Quota


class Portfolio(TypedDict):
    """Cash, positions (units per symbol) and their value at the close, as decimal strings."""

    cash: str
    positions: dict[str, str]
    equity: str
    notional: str


class Market(TypedDict):
    """The current bar, recent history, portfolio and queue of a run."""

    run_id: str
    status: str
    index: int
    last_index: int
    timestamp: str
    done: bool
    liquidated: bool
    at_risk: bool
    bars: dict[str, dict[str, str]]
    history: dict[str, list[dict[str, str]]]
    portfolio: Portfolio
    queued: list[dict[str, str]]
    leverage_cap: int
    shorting: bool


class Trades(TypedDict):
    """The queue after orders were added."""

    run_id: str
    index: int
    accepted: int
    queued: list[dict[str, str]]
    note: str


class Step(TypedDict):
    """What one step did."""

    run_id: str
    index: int
    timestamp: str
    fills: list[dict[str, str]]
    rejected: list[dict[str, str]]
    cash: str
    equity: str
    liquidated: bool
    at_risk: bool
    done: bool


Results = TypedDict(
    "Results",
    {
        "run_id": str,
        "scenario_id": str,
        "status": str,
        "return": float,
        "sharpe": float | None,
        "sortino": float | None,
        "max_drawdown": float,
        "volatility": float | None,
        "final_equity": str,
        "starting_cash": str,
        "liquidated": bool,
        "steps": int,
    },
)
"""A completed run's metrics (fractions of one)."""


class Seasons(TypedDict):
    """A league's seasons and its read routes (``GET /weights``, ``GET /thesis``)."""

    disclaimer: str
    seasons: list[str]
    endpoints: list[str]


class WeightsTable(TypedDict):
    """A weights division's table: rows ranked by value (USD), returns in percent."""

    disclaimer: str
    season: str
    division: str
    scoring_version: str
    published_after: str | None
    final: bool
    significance: dict[str, Any]
    baseline_cloud: dict[str, Any] | None
    rows: list[dict[str, Any]]
    costs: dict[str, Any]
    race: dict[str, Any]
    story: str


class WeightsAgent(TypedDict):
    """A weights agent's season: standing, entries, trades, chart and cost."""

    disclaimer: str
    season: str
    scoring_version: str
    prompt_version: str
    agent: dict[str, Any]
    standing: dict[str, Any] | None
    benchmark: str | None
    scatter: list[dict[str, float]]
    summary: str | None
    summary_hidden: bool
    entries: list[dict[str, Any]]
    trades: list[dict[str, Any]]
    chart: list[dict[str, Any]]
    versus: dict[str, Any] | None
    cost: dict[str, Any] | None
    pricing: dict[str, Any]


class ThesisBoard(TypedDict):
    """A thesis season's board: rows ranked by return (percent), the luck test, costs."""

    disclaimer: str
    season: str
    start: str
    end: str
    cycles: int
    ended: bool
    scoring_version: str
    prompt_version: str
    rows: list[dict[str, Any]]
    luckiest_of_n: dict[str, Any] | None
    baseline_cloud: dict[str, Any] | None
    costs: dict[str, Any]
    race: dict[str, Any]
    story: str
    replay: bool


class ThesisAgent(TypedDict):
    """A thesis agent's season: every decision and thesis, metrics, verdicts and cost."""

    disclaimer: str
    season: str
    name: str
    kind: str
    agentic: bool
    spec: str
    entered_cycle: int
    entries: list[dict[str, Any]]
    monitor_closes: list[dict[str, Any]]
    metrics: dict[str, Any]
    counts: dict[str, int]
    verdicts: dict[str, Any]
    alpha: dict[str, Any] | None
    training_cutoff: dict[str, Any] | None
    scatter: list[dict[str, float]]
    rank: int | None
    unranked_reason: str | None
    unranked_text: str | None
    cost: dict[str, Any] | None
    pricing: dict[str, Any]
    equity: list[str]
    versus: dict[str, Any] | None


class DirectionBoards(TypedDict):
    """The direction arena's boards: models, providers, tiers and visitors, with costs."""

    disclaimer: str
    season: str
    scoring_version: str
    rounds: int
    void_rounds: int
    payout_ppm: int
    break_even: str
    luckiest_of_n: dict[str, Any]
    models: list[dict[str, Any]]
    providers: list[dict[str, Any]]
    tiers: list[dict[str, Any]]
    visitors: list[dict[str, Any]]
    costs: dict[str, Any]
    race: dict[str, Any]
    story: str
    replay: bool | None


class ModelLog(TypedDict):
    """A direction model's log: every call and skip, in order, and its cost."""

    disclaimer: str
    season: str
    model: dict[str, Any]
    rows: list[dict[str, Any]]
    cost: dict[str, Any] | None
    pricing: dict[str, Any]
    versus: dict[str, Any] | None


class Rating(TypedDict):
    """A format's rating across seasons (excess returns as fractions of one)."""

    disclaimer: str
    format: str
    title: str
    rating: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class OrderSpec:
    """One market order to queue: a symbol, a side and a positive quantity (decimal text)."""

    symbol: str
    side: Side
    quantity: str | int | Decimal

    def to_json(self) -> dict[str, str]:
        """Return the JSON form the API takes."""
        return {"symbol": self.symbol, "side": self.side, "quantity": str(self.quantity)}


@dataclass(frozen=True, slots=True)
class Retry:
    """How the keyed writes are retried: attempts in all, and the first pause (doubling)."""

    attempts: int = 4
    backoff: float = 0.25


@dataclass(frozen=True, slots=True)
class _Call:
    """One API call, before it is sent: the same for the sync and the async client."""

    method: str
    path: str
    body: dict[str, Any] | None = None
    params: dict[str, str] | None = None
    retried: bool = False
    key: str | None = None
    """The call's idempotency key, sent as the ``Idempotency-Key`` header on every try."""

    @property
    def headers(self) -> dict[str, str] | None:
        """Return the call's own headers: its ``Idempotency-Key`` (a structured-field string)."""
        if self.key is None:
            return None
        quoted = self.key.replace("\\", "\\\\").replace('"', '\\"')
        return {"Idempotency-Key": f'"{quoted}"'}


def _answer(response: httpx.Response) -> dict[str, Any]:
    """Return an answer's JSON, or raise its `ApiError`."""
    try:
        data = response.json()
    except ValueError:
        data = {"error": {"code": "not_json", "message": response.text[:200]}}
    if not isinstance(data, dict):
        data = {"value": data}
    if response.status_code >= 400:
        found = data.get("error")
        error: dict[str, Any] = found if isinstance(found, dict) else {}
        family = _FAMILIES.get(response.status_code, ApiError)
        if family is ApiError and 400 <= response.status_code < 500:
            family = InvalidRequestError
        raise family(
            response.status_code,
            str(error.get("code", "unknown")),
            str(error.get("message", response.text[:200])),
            data,
        )
    return data


def _again(error: BaseException) -> bool:
    """Return whether a keyed call may be sent again after ``error``."""
    if isinstance(error, httpx.TransportError):
        return True
    if isinstance(error, ApiError):
        return error.status >= 500 or error.code == "idempotency_in_flight"
    return False


def _key(key: str | None) -> str:
    """Return the call's idempotency key: the one given, or a fresh one for this call."""
    return key or uuid.uuid4().hex


class _Calls:
    """The operations as `_Call` values (shared by both clients)."""

    @staticmethod
    def scenarios() -> _Call:
        return _Call("GET", "/scenarios")

    @staticmethod
    def create_run(scenario: str, key: str | None) -> _Call:
        return _Call("POST", "/runs", {"scenario": scenario}, retried=True, key=_key(key))

    @staticmethod
    def runs() -> _Call:
        return _Call("GET", "/runs")

    @staticmethod
    def run(run_id: str) -> _Call:
        return _Call("GET", f"/runs/{run_id}")

    @staticmethod
    def market(run_id: str) -> _Call:
        return _Call("GET", f"/runs/{run_id}/market")

    @staticmethod
    def trade(run_id: str, orders: Sequence[OrderSpec], key: str | None) -> _Call:
        body = {"orders": [o.to_json() for o in orders]}
        return _Call("POST", f"/runs/{run_id}/trades", body, retried=True, key=_key(key))

    @staticmethod
    def cancel(run_id: str, position: int, key: str | None) -> _Call:
        path = f"/runs/{run_id}/orders/{position}"
        return _Call("DELETE", path, retried=True, key=_key(key))

    @staticmethod
    def step(run_id: str, key: str | None) -> _Call:
        return _Call("POST", f"/runs/{run_id}/step", retried=True, key=_key(key))

    @staticmethod
    def results(run_id: str) -> _Call:
        return _Call("GET", f"/runs/{run_id}/results")

    @staticmethod
    def publish(run_id: str) -> _Call:
        return _Call("POST", f"/runs/{run_id}/publish")

    @staticmethod
    def leaderboard(scenario: str, metric: str) -> _Call:
        return _Call("GET", "/leaderboard", params={"scenario": scenario, "metric": metric})

    @staticmethod
    def public_run(run_id: str) -> _Call:
        return _Call("GET", f"/runs/{run_id}/public")

    @staticmethod
    def read(path: str, params: dict[str, str] | None) -> _Call:
        return _Call("GET", "/" + path.lstrip("/"), params=params)

    @staticmethod
    def weights_table(season: str, division: str) -> _Call:
        return _Call("GET", f"/weights/seasons/{_part(season)}/tables/{_part(division)}")

    @staticmethod
    def weights_agent(season: str, agent: str) -> _Call:
        return _Call("GET", f"/weights/seasons/{_part(season)}/agents/{_part(agent)}")

    @staticmethod
    def thesis_board(season: str) -> _Call:
        return _Call("GET", f"/thesis/{_part(season)}")

    @staticmethod
    def thesis_agent(season: str, agent: str) -> _Call:
        return _Call("GET", f"/thesis/{_part(season)}/agents/{_part(agent)}")

    @staticmethod
    def direction_boards(season: str | None) -> _Call:
        return _Call("GET", "/direction/boards", params=_season(season))

    @staticmethod
    def model_log(model: str, season: str | None) -> _Call:
        return _Call("GET", f"/direction/models/{_part(model)}/log", params=_season(season))

    @staticmethod
    def rating(format_key: str) -> _Call:
        return _Call("GET", f"/ratings/{_part(format_key)}")


def _part(text: str) -> str:
    """Return ``text`` as one path segment (a name may hold ``/`` or spaces)."""
    return quote(text, safe="")


def _season(season: str | None) -> dict[str, str] | None:
    return None if season is None else {"season": season}


def _headers(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def _base(base_url: str) -> str:
    return base_url.rstrip("/") + "/api/v1"


class ScenarioClient:
    """Call the scenario REST API with one API key, blocking.

    Parameters
    ----------
    base_url
        Where ``tradeleague serve`` listens, e.g. ``http://127.0.0.1:8000``.
    api_key
        The key from ``tradeleague keys create`` (public reads need none);
        sent as ``Authorization: Bearer``.
    timeout
        Seconds per request.
    transport
        An httpx transport (tests pass ``httpx.MockTransport`` or a real one).
    retry
        How ``trade`` and ``step`` are retried (`Retry`).
    sleep
        What pauses between retries (tests pass a recorder).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        retry: Retry | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._http = httpx.Client(
            base_url=_base(base_url),
            headers=_headers(api_key),
            timeout=timeout,
            transport=transport,
        )
        self._retry = retry or Retry()
        self._sleep = sleep

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> ScenarioClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _send(self, call: _Call) -> dict[str, Any]:
        attempts = self._retry.attempts if call.retried else 1
        pause = self._retry.backoff
        for attempt in range(1, attempts + 1):
            try:
                response = self._http.request(
                    call.method,
                    call.path,
                    json=call.body,
                    params=call.params,
                    headers=call.headers,
                )
                return _answer(response)
            except (httpx.TransportError, ApiError) as exc:
                if attempt == attempts or not _again(exc):
                    raise
            self._sleep(pause)
            pause *= 2
        raise AssertionError("unreachable: the last attempt returns or raises")

    def scenarios(self) -> list[dict[str, Any]]:
        """Return every scenario version you can run."""
        return cast(list[dict[str, Any]], self._send(_Calls.scenarios())["scenarios"])

    def create_run(self, scenario: str, *, idempotency_key: str | None = None) -> Run:
        """Create a run of a scenario (its id, or its name for the latest version).

        Costs one run of the monthly quota; `QuotaError` when it is spent.
        Retried safely under one key: one run is made however often it is sent.
        """
        return cast(Run, self._send(_Calls.create_run(scenario, idempotency_key)))

    def runs(self) -> list[dict[str, Any]]:
        """Return your runs, oldest first."""
        return cast(list[dict[str, Any]], self._send(_Calls.runs())["runs"])

    def run(self, run_id: str) -> dict[str, Any]:
        """Return one of your runs: status, bar and queued orders."""
        return self._send(_Calls.run(run_id))

    def market(self, run_id: str) -> Market:
        """Return the current bar, recent history and the portfolio (S-API-1)."""
        return cast(Market, self._send(_Calls.market(run_id)))

    def trade(
        self, run_id: str, orders: Sequence[OrderSpec], *, idempotency_key: str | None = None
    ) -> Trades:
        """Queue market orders for the next step (S-API-2), retried safely under one key."""
        return cast(Trades, self._send(_Calls.trade(run_id, orders, idempotency_key)))

    def cancel_order(
        self, run_id: str, position: int, *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """Cancel the queued order at ``position`` (0 first), retried safely under one key."""
        return self._send(_Calls.cancel(run_id, position, idempotency_key))

    def step(self, run_id: str, *, idempotency_key: str | None = None) -> Step:
        """Advance one bar (S-API-3), retried safely under one key: it steps at most once."""
        return cast(Step, self._send(_Calls.step(run_id, idempotency_key)))

    def results(self, run_id: str) -> Results:
        """Return the metrics of a completed run (S-API-4)."""
        return cast(Results, self._send(_Calls.results(run_id)))

    def publish(self, run_id: str) -> dict[str, Any]:
        """Publish a completed run to the leaderboard (S-API-5)."""
        return self._send(_Calls.publish(run_id))

    def leaderboard(self, scenario: str, metric: str = "return") -> dict[str, Any]:
        """Return a scenario's published runs (by its id or name) ranked by ``metric``."""
        return self._send(_Calls.leaderboard(scenario, metric))

    def public_run(self, run_id: str) -> dict[str, Any]:
        """Return a published run's results (no key needed)."""
        return self._send(_Calls.public_run(run_id))

    def read(self, path: str, **params: str) -> dict[str, Any]:
        """Return any public read under ``/api/v1`` (``"weights"``, ``"direction/boards"``)."""
        return self._send(_Calls.read(path, params or None))

    # -- the leagues' public reads (no key, no quota) --------------------------------------

    def weights_seasons(self) -> Seasons:
        """Return the weights seasons and the read routes."""
        return cast(Seasons, self._send(_Calls.read("weights", None)))

    def weights_table(self, season: str, division: str = "open") -> WeightsTable:
        """Return a weights division's table (``open`` or ``pro``)."""
        return cast(WeightsTable, self._send(_Calls.weights_table(season, division)))

    def weights_agent(self, season: str, agent: str) -> WeightsAgent:
        """Return a weights agent's season, by its id or name (`ConflictError` if shared)."""
        return cast(WeightsAgent, self._send(_Calls.weights_agent(season, agent)))

    def thesis_seasons(self) -> Seasons:
        """Return the thesis seasons and the read routes."""
        return cast(Seasons, self._send(_Calls.read("thesis", None)))

    def thesis_board(self, season: str) -> ThesisBoard:
        """Return a thesis season's board."""
        return cast(ThesisBoard, self._send(_Calls.thesis_board(season)))

    def thesis_agent(self, season: str, agent: str) -> ThesisAgent:
        """Return a thesis agent's decisions and theses in a season."""
        return cast(ThesisAgent, self._send(_Calls.thesis_agent(season, agent)))

    def direction_boards(self, season: str | None = None) -> DirectionBoards:
        """Return the direction arena's boards (the latest season when none is given)."""
        return cast(DirectionBoards, self._send(_Calls.direction_boards(season)))

    def model_log(self, model: str, season: str | None = None) -> ModelLog:
        """Return a direction model's log: every call, answer and skip."""
        return cast(ModelLog, self._send(_Calls.model_log(model, season)))

    def rating(self, format_key: str) -> Rating:
        """Return a format's rating across its seasons (``weights``, ``thesis``, ...)."""
        return cast(Rating, self._send(_Calls.rating(format_key)))


class AsyncScenarioClient:
    """Call the scenario REST API with one API key, from asyncio (same methods, awaited).

    Parameters are `ScenarioClient`'s; ``transport`` is an async transport and
    ``sleep`` a coroutine function.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
        retry: Retry | None = None,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ) -> None:
        self._http = httpx.AsyncClient(
            base_url=_base(base_url),
            headers=_headers(api_key),
            timeout=timeout,
            transport=transport,
        )
        self._retry = retry or Retry()
        self._sleep = sleep

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncScenarioClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _send(self, call: _Call) -> dict[str, Any]:
        attempts = self._retry.attempts if call.retried else 1
        pause = self._retry.backoff
        for attempt in range(1, attempts + 1):
            try:
                response = await self._http.request(
                    call.method,
                    call.path,
                    json=call.body,
                    params=call.params,
                    headers=call.headers,
                )
                return _answer(response)
            except (httpx.TransportError, ApiError) as exc:
                if attempt == attempts or not _again(exc):
                    raise
            await self._sleep(pause)
            pause *= 2
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def scenarios(self) -> list[dict[str, Any]]:
        """Return every scenario version you can run."""
        return cast(list[dict[str, Any]], (await self._send(_Calls.scenarios()))["scenarios"])

    async def create_run(self, scenario: str, *, idempotency_key: str | None = None) -> Run:
        """Create a run (one run of the monthly quota); see `ScenarioClient.create_run`."""
        return cast(Run, await self._send(_Calls.create_run(scenario, idempotency_key)))

    async def runs(self) -> list[dict[str, Any]]:
        """Return your runs, oldest first."""
        return cast(list[dict[str, Any]], (await self._send(_Calls.runs()))["runs"])

    async def run(self, run_id: str) -> dict[str, Any]:
        """Return one of your runs: status, bar and queued orders."""
        return await self._send(_Calls.run(run_id))

    async def market(self, run_id: str) -> Market:
        """Return the current bar, recent history and the portfolio."""
        return cast(Market, await self._send(_Calls.market(run_id)))

    async def trade(
        self, run_id: str, orders: Sequence[OrderSpec], *, idempotency_key: str | None = None
    ) -> Trades:
        """Queue market orders for the next step, retried safely under one key."""
        return cast(Trades, await self._send(_Calls.trade(run_id, orders, idempotency_key)))

    async def cancel_order(
        self, run_id: str, position: int, *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """Cancel the queued order at ``position`` (0 first), retried safely under one key."""
        return await self._send(_Calls.cancel(run_id, position, idempotency_key))

    async def step(self, run_id: str, *, idempotency_key: str | None = None) -> Step:
        """Advance one bar, retried safely under one key: it steps at most once."""
        return cast(Step, await self._send(_Calls.step(run_id, idempotency_key)))

    async def results(self, run_id: str) -> Results:
        """Return the metrics of a completed run."""
        return cast(Results, await self._send(_Calls.results(run_id)))

    async def publish(self, run_id: str) -> dict[str, Any]:
        """Publish a completed run to the leaderboard."""
        return await self._send(_Calls.publish(run_id))

    async def leaderboard(self, scenario: str, metric: str = "return") -> dict[str, Any]:
        """Return a scenario's published runs (by its id or name) ranked by ``metric``."""
        return await self._send(_Calls.leaderboard(scenario, metric))

    async def public_run(self, run_id: str) -> dict[str, Any]:
        """Return a published run's results (no key needed)."""
        return await self._send(_Calls.public_run(run_id))

    async def read(self, path: str, **params: str) -> dict[str, Any]:
        """Return any public read under ``/api/v1``."""
        return await self._send(_Calls.read(path, params or None))

    # -- the leagues' public reads (no key, no quota); see `ScenarioClient` ----------------

    async def weights_seasons(self) -> Seasons:
        """Return the weights seasons and the read routes."""
        return cast(Seasons, await self._send(_Calls.read("weights", None)))

    async def weights_table(self, season: str, division: str = "open") -> WeightsTable:
        """Return a weights division's table (``open`` or ``pro``)."""
        return cast(WeightsTable, await self._send(_Calls.weights_table(season, division)))

    async def weights_agent(self, season: str, agent: str) -> WeightsAgent:
        """Return a weights agent's season, by its id or name (`ConflictError` if shared)."""
        return cast(WeightsAgent, await self._send(_Calls.weights_agent(season, agent)))

    async def thesis_seasons(self) -> Seasons:
        """Return the thesis seasons and the read routes."""
        return cast(Seasons, await self._send(_Calls.read("thesis", None)))

    async def thesis_board(self, season: str) -> ThesisBoard:
        """Return a thesis season's board."""
        return cast(ThesisBoard, await self._send(_Calls.thesis_board(season)))

    async def thesis_agent(self, season: str, agent: str) -> ThesisAgent:
        """Return a thesis agent's decisions and theses in a season."""
        return cast(ThesisAgent, await self._send(_Calls.thesis_agent(season, agent)))

    async def direction_boards(self, season: str | None = None) -> DirectionBoards:
        """Return the direction arena's boards (the latest season when none is given)."""
        return cast(DirectionBoards, await self._send(_Calls.direction_boards(season)))

    async def model_log(self, model: str, season: str | None = None) -> ModelLog:
        """Return a direction model's log: every call, answer and skip."""
        return cast(ModelLog, await self._send(_Calls.model_log(model, season)))

    async def rating(self, format_key: str) -> Rating:
        """Return a format's rating across its seasons."""
        return cast(Rating, await self._send(_Calls.rating(format_key)))
