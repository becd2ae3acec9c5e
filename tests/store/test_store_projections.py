"""Read models derived from events through pure projectors (SPEC C-4; DESIGN principle 4)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from tradeleague.errors import ConfigError
from tradeleague.events import Event
from tradeleague.money import qty, usd
from tradeleague.sim import Fill, Portfolio, Side
from tradeleague.store import (
    PORTFOLIO,
    ProjectionError,
    account_key,
    account_opened,
    get_projector,
    open_store,
    order_filled,
    register_projector,
    unregister_projector,
    verify,
)

T0 = datetime(2026, 1, 5, 15, 0, tzinfo=UTC)
FILLS = [
    Fill.at("AAPL", Side.BUY, qty(10), usd("150"), fee=usd("1.5")),
    Fill.at("MSFT", Side.SHORT, qty("2.5"), usd("400.10"), fee=usd("1"), slippage=usd("1")),
    Fill.at("AAPL", Side.SELL, qty(3), usd("151.333333")),
    Fill.at("MSFT", Side.COVER, qty("2.5"), usd("399")),
]


class StreamCounter:
    """A third-party projector: events per stream."""

    def key(self, event: Event) -> str | None:
        return event.stream

    def initial(self) -> object:
        return 0

    def apply(self, state: object, event: Event) -> object:
        assert isinstance(state, int)
        return state + 1


@pytest.fixture
def counter() -> Iterator[str]:
    register_projector("stream_count", StreamCounter())
    try:
        yield "stream_count"
    finally:
        unregister_projector("stream_count")


def test_portfolio_projection_is_the_engine_fold_and_incremental(db_url: str) -> None:
    """C-4: the stored portfolio is the shared engine's fold of the fills, refreshed in steps."""
    key = account_key("s1", "alice")
    expected = Portfolio.open(usd(10_000))
    with open_store(db_url) as store:
        store.append([account_opened("s1", "alice", usd(10_000), T0)])
        store.append([account_opened("s1", "bob", usd(5), T0)])
        assert store.refresh_projections([PORTFOLIO]) == {PORTFOLIO: 2}
        assert store.projection(PORTFOLIO, key) == expected.state()
        for fill in FILLS:
            store.append([order_filled("s1", "alice", fill, T0, extra={"round": "r1"})])
            expected = expected.apply(fill)
            assert store.refresh_projections([PORTFOLIO]) == {PORTFOLIO: 1}
            assert store.projection(PORTFOLIO, key) == expected.state()
        assert store.refresh_projections([PORTFOLIO]) == {PORTFOLIO: 0}
        states = store.projection_states(PORTFOLIO)
        assert states == {
            key: expected.state(),
            account_key("s1", "bob"): Portfolio.open(usd(5)).state(),
        }
        assert store.projection(PORTFOLIO, "s1/nobody") is None
        assert verify(store).ok


def test_a_fill_before_its_account_stops_the_refresh(db_url: str) -> None:
    """C-4: an event a projector cannot fold is an error naming its seq; nothing is stored."""
    with open_store(db_url) as store:
        store.append([order_filled("s1", "ghost", FILLS[0], T0)])
        with pytest.raises(ProjectionError, match="seq 1"):
            store.refresh_projections()
        assert store.projection_states(PORTFOLIO) == {}
        report = verify(store)
        assert report.projections[0].cursor == 0
        # verify folds past the cursor too: the unfoldable event is a mismatch (issue 10)
        assert [(m.check, m.seq, m.key) for m in report.mismatches] == [
            ("projection_error", 1, "s1/ghost")
        ]


def test_a_third_party_projector_is_kept_and_verified(db_url: str, counter: str) -> None:
    """DESIGN: built-ins and plug-ins register the same way; verify checks both."""
    with open_store(db_url) as store:
        store.append([Event("a", "PriceRead", {}, T0), Event("b", "PriceRead", {}, T0)])
        store.append([Event("a", "PriceRead", {}, T0)])
        # Other packages may have registered projectors of their own: look at ours.
        counts = store.refresh_projections()
        assert {name: counts[name] for name in (counter, PORTFOLIO)} == {counter: 3, PORTFOLIO: 0}
        assert store.projection_states(counter) == {"a": 2, "b": 1}
        report = verify(store)
        assert report.ok
        keys = {c.name: c.keys for c in report.projections}
        assert {name: keys[name] for name in (counter, PORTFOLIO)} == {counter: 2, PORTFOLIO: 0}
        unregister_projector(counter)
        assert verify(store).unchecked_projections == (counter,)


def test_a_refresh_reads_the_states_of_a_batch_in_one_query(db_url: str, counter: str) -> None:
    """A refresh over many keys reads their stored states a batch at a time, not one query
    per key, and folds them exactly as one event at a time would (C-4)."""
    streams = [f"s{i:04d}" for i in range(1_200)]  # more keys than one query reads
    with open_store(db_url) as store:
        store.append([Event(s, "PriceRead", {}, T0) for s in streams])
        assert store.refresh_projections([counter]) == {counter: 1_200}
        store.append([Event(s, "PriceRead", {}, T0) for s in streams[::-1]])
        store.append([Event(streams[0], "PriceRead", {}, T0)])
        reads: list[str] = []

        def seen(conn: object, cursor: object, statement: str, *args: object) -> None:
            if "FROM projections" in statement:
                reads.append(statement)

        sa.event.listen(store.engine, "before_cursor_execute", seen)
        try:
            assert store.refresh_projections([counter]) == {counter: 1_201}
        finally:
            sa.event.remove(store.engine, "before_cursor_execute", seen)
        assert len(reads) <= 6  # 2,401 rows: three batches, each its keys in one or two queries
        states = store.projection_states(counter)
        assert states == {s: (3 if s == streams[0] else 2) for s in streams}
        assert verify(store).ok


class KeyRefuser(StreamCounter):
    """Refuses to key the stream ``bad``: a key error after events it can fold."""

    def key(self, event: Event) -> str | None:
        if event.stream == "bad":
            raise ValueError("no key for bad")
        return event.stream


def test_a_key_error_names_its_seq_after_the_folds_before_it(db_url: str) -> None:
    register_projector("refuser", KeyRefuser())
    try:
        with open_store(db_url) as store:
            store.append([Event(s, "PriceRead", {}, T0) for s in ("a", "b", "bad", "c")])
            with pytest.raises(ProjectionError, match="seq 3: no key for bad"):
                store.refresh_projections(["refuser"])
            assert store.projection_states("refuser") == {}
    finally:
        unregister_projector("refuser")


def test_the_registry_names_what_it_knows(counter: str) -> None:
    with pytest.raises(ConfigError, match="portfolio"):
        get_projector("nope")
    with pytest.raises(ConfigError, match="already"):
        register_projector(counter, StreamCounter())
    with pytest.raises(ConfigError, match="methods"):
        register_projector("broken", object())  # type: ignore[arg-type]
    register_projector(counter, StreamCounter(), replace=True)
    assert isinstance(get_projector(counter), StreamCounter)


class KindCounter:
    """A projector that names the one kind it folds: a refresh reads no other rows for it."""

    kinds: frozenset[str] = frozenset({"Noted"})

    def __init__(self) -> None:
        self.seen: list[str] = []

    def key(self, event: Event) -> str | None:
        self.seen.append(event.kind)
        return event.stream if event.kind == "Noted" else None

    def initial(self) -> object:
        return 0

    def apply(self, state: object, event: Event) -> object:
        assert isinstance(state, int)
        return state + 1


def _cursor(store: object, name: str) -> int:
    from tradeleague.store.schema import projection_cursors

    engine: sa.Engine = store.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        query = sa.select(projection_cursors.c.last_seq).where(projection_cursors.c.name == name)
        return int(conn.execute(query).scalar_one())


def test_a_projector_that_names_its_kinds_reads_only_those_and_keeps_up_with_the_head(
    db_url: str,
) -> None:
    """C-4: only the named kinds are read; the cursor still moves to the head, every time."""
    projector = KindCounter()
    register_projector("kind_count", projector)
    try:
        with open_store(db_url) as store:
            store.append([Event("s1", "Other", {}, T0), Event("s1", "Noted", {}, T0)])
            store.append([Event("s2", "Other", {}, T0)])
            assert store.refresh_projections(["kind_count"]) == {"kind_count": 1}
            assert projector.seen == ["Noted"]
            assert _cursor(store, "kind_count") == 3  # past the last row, though not its kind
            store.append([Event("s1", "Other", {}, T0)])
            assert store.refresh_projections(["kind_count"]) == {"kind_count": 0}
            assert _cursor(store, "kind_count") == 4
            store.append([Event("s1", "Noted", {}, T0)])
            assert store.refresh_projections(["kind_count"]) == {"kind_count": 1}
            assert store.projection("kind_count", "s1") == 2
            assert projector.seen == ["Noted", "Noted"]
            assert verify(store).ok
    finally:
        unregister_projector("kind_count")


def test_a_projector_whose_kinds_are_not_kind_names_is_refused(db_url: str) -> None:
    """A ``kinds`` attribute that is not a frozenset of names is an error, not a silent read."""
    projector = KindCounter()
    projector.kinds = ["Noted"]  # type: ignore[assignment]
    register_projector("kind_count", projector)
    try:
        with open_store(db_url) as store:
            store.append([Event("s1", "Noted", {}, T0)])
            with pytest.raises(ProjectionError, match="frozenset"):
                store.refresh_projections(["kind_count"])
    finally:
        unregister_projector("kind_count")
