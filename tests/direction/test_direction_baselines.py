"""Arena baselines answer in the arena's JSON and decide only from what models see."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from tradeleague.errors import ConfigError
from tradeleague.formats.direction.answer import parse_answer
from tradeleague.formats.direction.baselines import BASELINE_NAMES, direction_baseline
from tradeleague.formats.direction.candle import Candle
from tradeleague.money import Usd, usd

T0 = datetime(2025, 10, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Facts:
    candles: tuple[Candle, ...]
    expiry: datetime


def _candles(closes: list[int]) -> tuple[Candle, ...]:
    out = []
    for i, c in enumerate(closes):
        price = Usd(usd(c))
        out.append(Candle(T0 + timedelta(minutes=i), price, price, price, price))
    return tuple(out)


def test_fixed_and_momentum_baselines() -> None:
    """D-TRD-2: up -> call, down -> put; a baseline's side comes from its rule alone."""
    rising = Facts(_candles([100, 101, 102, 103, 104, 105]), T0)
    falling = Facts(_candles([105, 104, 103, 102, 101, 100]), T0)
    up, _ = direction_baseline("up")
    down, _ = direction_baseline("down")
    momentum, _ = direction_baseline("momentum")
    assert (up(falling), down(rising)) == ("up", "down")
    assert (momentum(rising), momentum(falling)) == ("up", "down")


def test_coin_flip_is_seeded_by_round_not_by_call_order() -> None:
    """Replays repeat it: the draw depends on the seed and the round's expiry only."""
    flip, _ = direction_baseline("coin_flip", seed=3)
    again, _ = direction_baseline("coin-flip", seed=3)
    rounds = [Facts((), T0 + timedelta(minutes=5 * i)) for i in range(40)]
    calls = [flip(r) for r in rounds]
    assert calls == [again(r) for r in reversed(rounds)][::-1]
    assert {"up", "down"} == set(calls)


@pytest.mark.parametrize("name", BASELINE_NAMES)
def test_rendered_answers_pass_the_arena_parser(name: str) -> None:
    """D-ASK-3 / C-6: a baseline's answer goes through the same strict parser as a model's."""
    decide, render = direction_baseline(name)
    text = render(decide(Facts(_candles([1, 2, 3, 4, 5, 6]), T0)))
    assert json.loads(text)["direction"] in ("up", "down")
    parsed = parse_answer(text)
    assert getattr(parsed, "direction", None) in ("up", "down")


def test_unknown_baseline_lists_valid_names() -> None:
    with pytest.raises(ConfigError, match="coin_flip, down, momentum, up"):
        direction_baseline("sideways")
