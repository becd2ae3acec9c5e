"""Round clock, divisions, skips, seasons, owners, universe, message and text (W-RND, W-DIV,
W-SKP, W-SEA, W-REC, W-UNI, W-ASK-1, C-10)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction

import pytest

from tradeleague.formats.weights import (
    PROMPT_VERSION,
    AskFacts,
    Division,
    Listing,
    SkipCode,
    SymbolLine,
    TurnCandidate,
    WeightsPreset,
    asking_order,
    build_messages,
    build_universe,
    division_cap,
    is_due,
    is_open_round,
    join_refusal,
    plain_text,
    prompt_change_refusal,
    prompt_in_force,
    round_slot,
    season_window,
    skip_before_asking,
    summary_shown,
)
from tradeleague.money import usd

P = WeightsPreset()
H = datetime(2026, 10, 6, 16, tzinfo=UTC)


@pytest.mark.parametrize(
    ("moment", "slot"),
    [
        (datetime(2026, 10, 6, 15, 0, tzinfo=UTC), datetime(2026, 10, 6, 15, tzinfo=UTC)),
        (datetime(2026, 10, 6, 19, 9, 59, tzinfo=UTC), datetime(2026, 10, 6, 19, tzinfo=UTC)),
        (datetime(2026, 10, 6, 15, 10, tzinfo=UTC), None),
        (datetime(2026, 10, 6, 14, 5, tzinfo=UTC), None),
        (datetime(2026, 10, 6, 20, 0, tzinfo=UTC), None),
    ],
)
def test_round_clock(moment: datetime, slot: datetime | None) -> None:
    """W-RND-1: rounds start on the hours 15:00..19:00 UTC, in the first ten minutes."""
    assert round_slot(moment, P) == slot


def test_divisions_caps_and_turns() -> None:
    """W-DIV-1: Open once per trading day (the day's first played round), cap 200;
    W-DIV-2: Pro every round, cap 50."""
    assert division_cap(Division.OPEN, P) == 200
    assert division_cap(Division.PRO, P) == 50
    assert is_due(Division.OPEN, open_round=True)
    assert not is_due(Division.OPEN, open_round=False)
    assert is_due(Division.PRO, open_round=False)
    h15, h16 = H.replace(hour=15), H
    assert is_open_round(h15, [])
    assert is_open_round(h16, [])  # 15:00 was closed: 16:00 is the day's first played round
    assert not is_open_round(h16, [h15])
    assert is_open_round(h15 + timedelta(days=1), [h15, h16])  # a new day


def cand(
    agent: str, asked: datetime | None, created: int = 0, changed: datetime | None = None
) -> TurnCandidate:
    return TurnCandidate(
        agent=agent,
        created_at=datetime(2026, 10, 5, tzinfo=UTC) + timedelta(minutes=created),
        last_asked=asked,
        changed_at=changed,
    )


def test_asking_order() -> None:
    """W-SKP-4: asked longest ago first; never asked first of all; ties by creation then id."""
    order = asking_order(
        [
            cand("b", H - timedelta(hours=1)),
            cand("a", H - timedelta(hours=3)),
            cand("n2", None, created=2),
            cand("n1", None, created=1),
        ]
    )
    assert [c.agent for c in order] == ["n1", "n2", "a", "b"]


def test_skips() -> None:
    """W-SKP-1 allowance, W-SKP-2 50-minute cut-off, W-SKP-3 changed after the read."""
    read = H + timedelta(minutes=1)
    c = cand("x", None)
    assert skip_before_asking(c, Division.PRO, read, H + timedelta(minutes=49), H, 0, P) is None
    late = skip_before_asking(c, Division.PRO, read, H + timedelta(minutes=50), H, 0, P)
    assert late is SkipCode.NOT_ASKED_IN_TIME
    spent = skip_before_asking(c, Division.OPEN, read, read, H, P.open_daily_allowance, P)
    assert spent is SkipCode.ALLOWANCE_SPENT
    next_day = skip_before_asking(c, Division.OPEN, read, H + timedelta(hours=9), H, 0, P)
    assert next_day is SkipCode.DAY_ENDED
    changed = cand("y", None, changed=read + timedelta(seconds=1))
    assert (
        skip_before_asking(changed, Division.PRO, read, read, H, 0, P)
        is SkipCode.CHANGED_AFTER_READ
    )
    before = cand("z", None, changed=read - timedelta(seconds=1))
    assert skip_before_asking(before, Division.PRO, read, read, H, 0, P) is None


def test_season_window() -> None:
    """W-SEA-1: 28 days from a Monday 00:00 UTC."""
    w = season_window(datetime(2026, 10, 5, tzinfo=UTC), P)
    assert w.end == datetime(2026, 11, 2, tzinfo=UTC)
    assert w.running(w.start)
    assert not w.running(w.end)
    with pytest.raises(ValueError, match="Monday"):
        season_window(datetime(2026, 10, 6, tzinfo=UTC), P)


def test_joining() -> None:
    """W-SEA-2 no season no joining; W-REC-1 one agent per owner; W-DIV caps."""
    w = season_window(datetime(2026, 10, 5, tzinfo=UTC), P)
    assert join_refusal("o", Division.PRO, H, w, set(), 0, P) is None
    assert "no season" in str(join_refusal("o", Division.PRO, w.end, w, set(), 0, P))
    assert "no season" in str(join_refusal("o", Division.PRO, H, None, set(), 0, P))
    assert "W-REC-1" in str(join_refusal("o", Division.PRO, H, w, {"o"}, 0, P))
    assert "full" in str(join_refusal("o", Division.PRO, H, w, set(), 50, P))


def test_prompt_changes() -> None:
    """W-REC-2: three changes a day; a change takes effect from the next round after it."""
    day = [H - timedelta(hours=h) for h in (1, 2, 3)]
    assert prompt_change_refusal(day[:2], H, P) is None
    assert prompt_change_refusal(day, H, P) is not None
    assert prompt_change_refusal(day, H + timedelta(days=1), P) is None
    history = [(H - timedelta(days=1), "old"), (H, "new")]
    assert prompt_in_force(history, H) == "old"
    assert prompt_in_force(history, H + timedelta(hours=1)) == "new"


def test_universe_builder() -> None:
    """W-UNI-1, W-UNI-2: the largest value outstanding among tokens with a feed, on a fixture."""
    feeds = {f"S{i:02d}": object() for i in range(25)}
    listings = {
        s: Listing(s, supply=(i + 1) * 1_000_000, price=usd(10))
        for i, s in enumerate(sorted(feeds))
    }
    listings["NOFEED"] = Listing("NOFEED", supply=10**15, price=usd(1))
    chosen = build_universe(feeds, listings, size=20)
    assert len(chosen) == 20
    assert "NOFEED" not in chosen
    assert set(chosen) == {f"S{i:02d}" for i in range(5, 25)}


def test_message_holds_exactly_the_facts() -> None:
    """W-ASK-1: time, prices with 1/5/20-day returns (unknown without history), halted,
    value and weights, the owner's prompt word for word; one message; C-3 version pinned."""
    facts = AskFacts(
        time=H,
        lines=[
            SymbolLine("QQQ", usd("512.5"), {1: Fraction(1, 100), 5: None, 20: Fraction(-1, 40)}),
            SymbolLine("SPY", usd(650), {1: None, 5: None, 20: None}),
        ],
        halted=frozenset({"QQQ"}),
        value=usd(10_000),
        weights={"SPY": Fraction(1, 4)},
        prompt="Buy  what\nrises. <b>",
    )
    msgs = build_messages(facts, P)
    assert len(msgs) == 1
    assert msgs[0].role == "user"
    text = msgs[0].content
    assert "2026-10-06T16:00Z" in text
    assert "QQQ 512.500000 | 1d +1.00% 5d unknown 20d -2.50%" in text
    assert "Halted symbols (not traded this round): QQQ" in text
    assert "Portfolio value: 10,000.00 USD" in text
    assert "SPY 25.00%" in text
    assert "cash 75.00%" in text
    assert "Buy  what\nrises. <b>" in text
    assert '{"targets"' in text
    assert "40%" in text
    assert PROMPT_VERSION.startswith("weights-prompt-")


def test_model_text_is_data() -> None:
    """C-10, W-REC-3: plain text, invisible characters removed; summaries with addresses hidden."""
    assert plain_text("a\u200bb\u202e<i>") == "ab&lt;i&gt;"
    assert summary_shown("Buys tech on dips.") == "Buys tech on dips."
    assert summary_shown("Visit https://x.example now") is None
    assert summary_shown("Send to 0x" + "ab" * 20) is None
