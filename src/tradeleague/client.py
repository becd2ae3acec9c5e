"""A small typed client for the scenario benchmark's REST API.

Examples
--------
>>> from tradeleague.client import ScenarioClient, OrderSpec
>>> with ScenarioClient("http://127.0.0.1:8000", api_key="tl_...") as api:  # doctest: +SKIP
...     run = api.create_run(scenario_id)
...     while not api.market(run["id"])["done"]:
...         api.trade(run["id"], [OrderSpec("SPY", "buy", "10")])
...         api.step(run["id"])
...     print(api.results(run["id"])["sharpe"])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from types import TracebackType
from typing import Any, Literal

import httpx

from tradeleague.errors import TradeleagueError

__all__ = ["ApiError", "OrderSpec", "ScenarioClient"]

Side = Literal["buy", "sell", "short", "cover"]


class ApiError(TradeleagueError):
    """An error response: the HTTP status, the stable code, the sentence and the body."""

    def __init__(self, status: int, code: str, message: str, body: dict[str, Any]) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.body = body


@dataclass(frozen=True, slots=True)
class OrderSpec:
    """One market order to queue: a symbol, a side and a positive quantity (decimal text)."""

    symbol: str
    side: Side
    quantity: str | int | Decimal

    def to_json(self) -> dict[str, str]:
        """Return the JSON form the API takes."""
        return {"symbol": self.symbol, "side": self.side, "quantity": str(self.quantity)}


class ScenarioClient:
    """Call the scenario REST API with one API key.

    Parameters
    ----------
    base_url
        Where ``tradeleague serve`` listens, e.g. ``http://127.0.0.1:8000``.
    api_key
        The key from ``tradeleague keys create`` (public reads need none).
    timeout
        Seconds per request.
    transport
        An httpx transport (tests pass ``httpx.ASGITransport`` or a mock).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"X-API-Key": api_key} if api_key else {}
        self._http = httpx.Client(
            base_url=base_url.rstrip("/") + "/api/v1",
            headers=headers,
            timeout=timeout,
            transport=transport,
        )

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

    def _call(
        self, method: str, path: str, body: dict[str, Any] | None = None, **params: str
    ) -> dict[str, Any]:
        response = self._http.request(method, path, json=body, params=params or None)
        data: dict[str, Any] = response.json()
        if response.status_code >= 400:
            error = data.get("error", {})
            raise ApiError(
                response.status_code,
                str(error.get("code", "unknown")),
                str(error.get("message", response.text)),
                data,
            )
        return data

    def scenarios(self) -> list[dict[str, Any]]:
        """Return every scenario version."""
        found: list[dict[str, Any]] = self._call("GET", "/scenarios")["scenarios"]
        return found

    def create_run(self, scenario_id: str) -> dict[str, Any]:
        """Create a run in ``scenario_id`` (S-API-5); raises `ApiError` 402/429 over quota."""
        return self._call("POST", "/runs", {"scenario": scenario_id})

    def market(self, run_id: str) -> dict[str, Any]:
        """Return the current bar, recent history and the portfolio (S-API-1)."""
        return self._call("GET", f"/runs/{run_id}/market")

    def trade(
        self, run_id: str, orders: Sequence[OrderSpec], *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """Queue market orders for the next step (S-API-2)."""
        body: dict[str, Any] = {"orders": [o.to_json() for o in orders]}
        if idempotency_key is not None:
            body["idempotency_key"] = idempotency_key
        return self._call("POST", f"/runs/{run_id}/trades", body)

    def step(self, run_id: str, *, idempotency_key: str | None = None) -> dict[str, Any]:
        """Advance one bar; the response lists fills and rejections (S-API-3)."""
        body = {"idempotency_key": idempotency_key} if idempotency_key is not None else None
        return self._call("POST", f"/runs/{run_id}/step", body)

    def results(self, run_id: str) -> dict[str, Any]:
        """Return the metrics of a completed run (S-API-4)."""
        return self._call("GET", f"/runs/{run_id}/results")

    def publish(self, run_id: str) -> dict[str, Any]:
        """Publish a completed run to the leaderboard (S-API-5)."""
        return self._call("POST", f"/runs/{run_id}/publish")

    def leaderboard(self, scenario_id: str, metric: str = "return") -> dict[str, Any]:
        """Return the published runs of a scenario ranked by ``metric`` (S-SCO-2)."""
        return self._call("GET", "/leaderboard", scenario=scenario_id, metric=metric)

    def public_run(self, run_id: str) -> dict[str, Any]:
        """Return a published run's results (no key needed)."""
        return self._call("GET", f"/runs/{run_id}/public")
