"""One scenario run re-derived from its events and its scenario's bars (C-4, S-FIL-*, S-LIQ-1).

`RunReplay` follows a run's stream as `verify` walks the chain: the account
opens with its cash, each ``ScenarioOrdersQueued`` and ``ScenarioOrderCancelled``
changes the queue at the bar it names, and every event at a later bar first
steps the deterministic simulator (`tradeleague.formats.scenario.step`) up to
that bar. Each step's fills and liquidation must be the next events of the
stream, exactly; the completion event must hold the results and equity path
the replayed steps give (S-SCO-1). The first event the replay contradicts
stops it and is kept as the run's `problem`: such an event was written from a
state the log does not give (a row edited before the step that used it).

What the replay ends on (state, equity path, status, results, publication)
is what `tradeleague.store.records` compares with the run's rows. A run
whose start event names no version digest was started before its orders were
recorded: it is not replayed, and its rows are held to its completion event
alone.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from datetime import datetime

from tradeleague.events import Event, EventKind, canonical_json, utc_iso
from tradeleague.events.scenario import (
    SCENARIO_ORDER_CANCELLED,
    SCENARIO_ORDERS_QUEUED,
    SCENARIO_RUN_ABANDONED,
    SCENARIO_RUN_COMPLETED,
    SCENARIO_RUN_PUBLISHED,
)
from tradeleague.formats.scenario import (
    RunState,
    RunStatus,
    ScenarioBars,
    ScenarioConfig,
    compute_results,
    queue_orders,
    step,
)
from tradeleague.money import Qty, Usd
from tradeleague.sim import Order, OrderRules, Portfolio, Side

__all__ = ["Problem", "RunReplay", "Version"]

_NO_BOUND = 1 << 62
"""The queue bound of a replay: the service's bound is its preset's, checked when queued."""

_FAULTS = (ValueError, TypeError, KeyError, IndexError, ArithmeticError)
"""What a malformed payload or bar raises inside the simulator."""


@dataclass(frozen=True, slots=True)
class Version:
    """A scenario version's row as `verify` read it, with its bars and rules when they parse."""

    id: str
    digest: str
    """`formats.scenario.version_digest` of the row as stored."""
    bars: ScenarioBars | None
    config: ScenarioConfig | None
    rules: OrderRules | None


@dataclass(frozen=True, slots=True)
class Problem:
    """The first event of a run that its replay contradicts."""

    seq: int
    detail: str


@dataclass(slots=True)
class RunReplay:
    """A run's record folded from its stream (see the module notes)."""

    run: str
    scenario: str
    owner: str
    started_at: datetime
    version_hash: str | None
    version: Version | None
    state: RunState | None = None
    path: array[int] = field(default_factory=lambda: array("q"))
    """Equity at bar 0 (the starting cash), then after each step (8 bytes a bar: a verify
    of many long runs holds every path)."""
    status: RunStatus = RunStatus.ACTIVE
    results: str | None = None
    """The canonical results text the run publishes once complete."""
    published_at: datetime | None = None
    problem: Problem | None = None
    _fills: list[dict[str, object]] = field(default_factory=list)
    _next_fill: int = 0
    _forced: bool = False
    _liquidation: str | None = None
    _seq: int = 0

    @property
    def replayed(self) -> bool:
        """Return whether the run is re-derived step by step (its start names a version digest)."""
        return self.version_hash is not None

    @property
    def live(self) -> bool:
        """Return whether the replay can go on (a version to play on, no problem yet)."""
        v = self.version
        return (
            self.replayed
            and self.problem is None
            and v is not None
            and v.bars is not None
            and v.config is not None
        )

    def see(self, seq: int, event: Event) -> None:
        """Fold one event of the run's stream (after its start event)."""
        self._seq = seq
        kind, payload = event.kind, event.payload
        if kind == SCENARIO_RUN_PUBLISHED:
            if self.published_at is None:
                self.published_at = event.occurred_at
            return
        if kind == SCENARIO_RUN_ABANDONED:
            self.status = RunStatus.ABANDONED
            return
        try:
            if kind == SCENARIO_RUN_COMPLETED:
                self.status = RunStatus.COMPLETE
                self._logged_completion(payload)
            if self.live:
                self._see(kind, payload)
        except _FAULTS as error:
            self._fail(f"the event cannot be replayed: {error}")

    def _logged_completion(self, payload: dict[str, object]) -> None:
        """Take the results (and path, unless replayed) the completion event holds.

        A live replay then derives its own (`_complete`) and holds the event to them.
        """
        self.results = canonical_json({k: v for k, v in payload.items() if k not in _NOT_RESULTS})
        path = payload.get("equity")
        if not self.live and isinstance(path, list):
            self.path = array("q", (int(str(v)) for v in path))

    def _see(self, kind: str, payload: dict[str, object]) -> None:
        if kind == EventKind.ACCOUNT_OPENED:
            cash = Usd(int(str(payload["cash"])))
            self.state = RunState(0, Portfolio.open(cash), ())
            self.path = array("q", (int(cash),))
            return
        index = int(str(payload.get("index", -1)))
        if kind == EventKind.ORDER_FILLED:
            self._fill(index, payload)
        elif kind == EventKind.POSITION_LIQUIDATED:
            self._liquidated(index, payload)
        elif kind == SCENARIO_ORDERS_QUEUED:
            if self._advance(index) and self._closed():
                self._queue(payload)
        elif kind == SCENARIO_ORDER_CANCELLED:
            if self._advance(index) and self._closed():
                self._cancel(int(str(payload["position"])))
        elif kind == SCENARIO_RUN_COMPLETED:
            self._complete(payload)

    def _played_on(self) -> tuple[ScenarioBars, ScenarioConfig, OrderRules | None]:
        """Return the bars, rules and order rules the run is replayed on (`live` holds them)."""
        v = self.version
        if v is None or v.bars is None or v.config is None:
            raise ValueError("the run's scenario version cannot be read")
        return v.bars, v.config, v.rules

    def _now(self) -> RunState:
        if self.state is None:
            raise ValueError("the run's account never opened")
        return self.state

    def _fail(self, detail: str) -> None:
        if self.problem is None:
            self.problem = Problem(self._seq, detail)

    def _advance(self, index: int) -> bool:
        """Step the simulator up to bar ``index``; each step's record must be complete."""
        state = self.state
        if state is None:
            self._fail("the log records a step before the run's account opened")
            return False
        if index < state.index:
            self._fail(f"the log records bar {index} after bar {state.index}")
            return False
        bars, config, rules = self._played_on()
        while state.index < index:
            if not self._closed():
                return False
            if state.done:
                self._fail(f"the log goes on past bar {state.index}, where the run ended")
                return False
            state, report = step(state, bars, config, rules=rules)
            self.state = state
            self.path.append(int(report.equity))
            self._fills = [f.to_payload() for f in report.fills]
            self._next_fill, self._forced = 0, report.liquidated
            self._liquidation = str(int(report.equity)) if report.liquidated else None
        return True

    def _closed(self) -> bool:
        """Return whether every fill and liquidation of the current step was logged."""
        state = self.state
        at = 0 if state is None else state.index
        if self._next_fill < len(self._fills):
            missing = len(self._fills) - self._next_fill
            self._fail(
                f"the log lacks {missing} fill(s) at bar {at} that the run's orders give on the "
                "scenario's bars"
            )
            return False
        if self._liquidation is not None:
            self._fail(f"the log lacks the forced liquidation at bar {at} that the bars give")
            return False
        return True

    def _fill(self, index: int, payload: dict[str, object]) -> None:
        if not self._advance(index):
            return
        if self._next_fill >= len(self._fills):
            self._fail(f"the log has a fill at bar {index} that the run's orders do not give")
            return
        expected = self._fills[self._next_fill]
        logged = payload["fill"]
        if logged != expected or payload.get("forced") is not self._forced:
            self._fail(self._fill_differs(index, logged, expected))
            return
        self._next_fill += 1

    def _bar(self, index: int) -> str:
        """Name bar ``index`` with its time, as a person reads it in a message."""
        v = self.version
        if v is None or v.bars is None:
            return f"bar {index}"
        return f"bar {index} ({utc_iso(v.bars.timestamp(index))})"

    def _fill_differs(self, index: int, logged: object, expected: dict[str, object]) -> str:
        """Say how the log's fill at bar ``index`` differs from the replayed one."""
        same_order = isinstance(logged, dict) and all(
            logged.get(k) == expected[k] for k in ("symbol", "side", "qty")
        )
        if same_order and isinstance(logged, dict) and logged.get("price") != expected["price"]:
            return (
                f"the log fills {expected['symbol']} at {logged.get('price')} micro-dollars at "
                f"{self._bar(index)}, but the run's orders on the scenario's bars give "
                f"{expected['price']}"
            )
        return (
            f"the log's fill {self._next_fill} at {self._bar(index)} differs from the one the "
            f"run's orders give on the scenario's bars ({canonical_json(expected)})"
        )

    def _liquidated(self, index: int, payload: dict[str, object]) -> None:
        if not self._advance(index):
            return
        if self._next_fill < len(self._fills) or self._liquidation is None:
            self._fail(f"the log liquidates the run at bar {index}; the replay does not")
            return
        if str(payload.get("equity")) != self._liquidation:
            self._fail(f"the liquidation's equity at bar {index} is not the replayed one")
            return
        self._liquidation = None

    def _queue(self, payload: dict[str, object]) -> None:
        raw = payload["orders"]
        if not isinstance(raw, list):
            raise TypeError("orders: expected a list")
        orders = [Order(str(s), Side(str(side)), Qty(int(str(q)))) for s, side, q in raw]
        state, (_, config, _) = self._now(), self._played_on()
        try:
            self.state = queue_orders(state, orders, config, max_queued=_NO_BOUND)
        except ValueError as error:
            self._fail(f"the log queues an order the run could not queue then: {error}")

    def _cancel(self, position: int) -> None:
        state = self._now()
        if not 0 <= position < len(state.queued):
            self._fail(f"the log cancels queued order {position}, which the queue lacks")
            return
        queued = state.queued[:position] + state.queued[position + 1 :]
        self.state = RunState(state.index, state.portfolio, queued, state.liquidated, state.done)

    def _complete(self, payload: dict[str, object]) -> None:
        _, config, _ = self._played_on()
        if not self._advance(int(str(payload["steps"]))) or not self._closed():
            return
        state = self._now()
        if not state.done:
            self._fail(f"the log completes the run at bar {state.index}, before its last bar")
            return
        results = compute_results(
            self.path,
            periods_per_year=config.periods_per_year,
            liquidated=state.liquidated,
        ).to_payload()
        self.results = canonical_json(results)
        expected = {"run": self.run, **results, "equity": [str(v) for v in self.path]}
        if canonical_json(expected) != canonical_json(payload):
            self._fail(self._completion_differs(payload, expected))

    def _completion_differs(self, payload: dict[str, object], expected: dict[str, object]) -> str:
        """Name the first equity value (else result) the completion records wrongly."""
        logged, path = payload.get("equity"), expected["equity"]
        if isinstance(logged, list) and isinstance(path, list):
            for i, (text, value) in enumerate(zip(logged, path, strict=False)):
                if text != value:
                    where = (
                        "the starting cash" if i == 0 else f"the equity at {self._bar(i)}'s close"
                    )
                    return (
                        f"the completion records {where} as {text} micro-dollars, but the run's "
                        f"orders on the scenario's bars give {value}"
                    )
        for name, figure in expected.items():
            if payload.get(name) != figure:
                return (
                    f"the completion records the run's {name} as {payload.get(name)!r}, but the "
                    f"run's orders on the scenario's bars give {figure!r}"
                )
        return (
            "the completion event's results differ from the ones the run's fills and the "
            "scenario's bars give"
        )

    def finish(self, index: int) -> str | None:
        """Step an unfinished run up to bar ``index`` (its row's); say why it cannot go there.

        Steps that fill nothing leave no event, so the row's bar says how far
        the run went, and its equity rows must be what those steps give. A
        step that would fill or liquidate cannot be one the log omits: then
        the row's bar is past what the events give, and the sentence says so.
        """
        state = self.state
        if not self.live or state is None:
            return None
        if index > state.index:
            reached, seq = state.index, self._seq
            try:
                if self._advance(index):
                    self._closed()
            except _FAULTS as error:
                self._fail(f"the run cannot be replayed: {error}")
            if self.problem is not None and self.problem.seq == seq:
                self.problem = None
                self.state = None
                del self.path[reached + 1 :]
                return (
                    f"the state's bar is {index}, but its events end at bar {reached}: stepping "
                    "on from there fills or liquidates what the log never recorded"
                )
        self._closed()
        return None


_NOT_RESULTS = frozenset({"run", "equity"})
"""The completion payload's fields that are not its results."""
