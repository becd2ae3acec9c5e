"""Per-agent seeds (issue 16, item 5): no two coin flippers draw the same coins unless told to."""

from __future__ import annotations

from datetime import UTC, datetime

from tradeleague.agents.baselines import WeightsView
from tradeleague.agents.seeds import agent_seed
from tradeleague.league.weights.agents import build_agents
from tradeleague.money import Usd

SYMBOLS = tuple(f"S{i:02d}" for i in range(12))


def _view() -> WeightsView:
    return WeightsView(
        time=datetime(2026, 7, 6, 15, tzinfo=UTC),
        symbols=SYMBOLS,
        prices={s: Usd(10_000_000) for s in SYMBOLS},
        history={s: [Usd(10_000_000)] for s in SYMBOLS},
        cash=Usd(10_000_000_000),
        max_weight_bps=4_000,
    )


def _draws(season: str | None, names: list[str]) -> dict[str, list[object]]:
    specs = [f"{n}=baseline:coin_flip" for n in names]
    _parsed, agents, _gateway = build_agents(specs, season=season)
    out: dict[str, list[object]] = {}
    for name, agent in agents.items():
        decide = agent.decide  # type: ignore[attr-defined]
        out[name] = [decide(_view()) for _ in range(8)]
    return out


def test_seed_depends_on_season_name_and_base() -> None:
    """The same three give the same seed; changing any one changes it."""
    seed = agent_seed("weights/s1", "coin")
    assert seed == agent_seed("weights/s1", "coin")
    assert len({seed, agent_seed("weights/s2", "coin"), agent_seed("weights/s1", "coin2")}) == 3
    assert agent_seed("weights/s1", "coin", 1) != seed
    assert 0 <= seed < 2**63


def test_coin_flippers_of_one_season_draw_their_own_coins() -> None:
    """Two coin flippers in one season differ; the same season again draws the same."""
    first = _draws("s1", ["coin_a", "coin_b"])
    assert first["coin_a"] != first["coin_b"]
    assert _draws("s1", ["coin_a", "coin_b"]) == first
    assert _draws("s2", ["coin_a"])["coin_a"] != first["coin_a"]


def test_without_a_season_every_flipper_shares_the_base_seed() -> None:
    """Told to (no season): every coin flipper uses the one base seed, as before."""
    same = _draws(None, ["coin_a", "coin_b"])
    assert same["coin_a"] == same["coin_b"]
