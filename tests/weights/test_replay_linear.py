"""The fast replay path changes no byte of the record (issue 16, item 1; C-4, W-SCO-1).

A round builds the prompt only for agents that read it, renders the market
lines once, and the ``weights_entries`` projection folds its season state in
place and is serialised once per refresh. Over random rosters of baselines and
scripted agents, each property replays the same season two ways and compares
the chain heads (every event, byte for byte) and the stored projections:

- prompt-blind agents as they are, and the same agents behind a wrapper that
  reads (and checks) the full prompt of every turn, as a model agent would;
- the projections refreshed after every round, and once at the end.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tradeleague.agents.base import Agent, AgentReply, Turn, reads_messages
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.weights import Division
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.projection import WEIGHTS_ENTRIES
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.market import Dataset, load_dataset
from tradeleague.store import open_store, verify

SYMBOLS = ["AAPL", "MSFT", "NVDA", "SPY", "QQQ", "SGOV", "XOM"]
START, END = date(2026, 7, 6), date(2026, 7, 11)
BASELINES = ["cash", "buy_and_hold", "equal_weight", "momentum", "coin_flip"]
ANSWERS = [
    json.dumps({"targets": {"SPY": 30, "QQQ": 30, "SGOV": 20}, "reason": "Core funds."}),
    json.dumps({"targets": {"NVDA": 55, "XOM": 10}, "reason": "Capped."}),
    json.dumps({"targets": {"AAPL": 100}, "reason": "All in."}),
    "I think SPY will go up.",
    '{"targets": {"SPY": 70, "QQQ": 40}, "reason": "too much"}',
]


@dataclass(slots=True)
class _PromptReader:
    """A wrapper that reads every turn's prompt, as a model agent does."""

    inner: Agent
    name: str
    kind: str = "tools"
    prompts: int = 0

    async def answer(self, turn: Turn) -> AgentReply:
        assert len(turn.messages) == 1
        assert "Portfolio value:" in turn.messages[0].content
        self.prompts += 1
        return await self.inner.answer(turn)


_roster = st.lists(
    st.one_of(
        st.sampled_from(BASELINES).map(lambda b: ("baseline", b)),
        st.lists(st.sampled_from(ANSWERS), min_size=1, max_size=6).map(
            lambda texts: ("scripted", "\n".join(json.dumps({"text": t}) for t in texts))
        ),
    ),
    min_size=1,
    max_size=6,
)


def _specs(tmp: Path, roster: list[tuple[str, str]]) -> list[str]:
    specs = []
    for i, (kind, what) in enumerate(roster):
        if kind == "baseline":
            specs.append(f"a{i}=baseline:{what}")
        else:
            path = tmp / f"a{i}.jsonl"
            path.write_text(what + "\n", encoding="utf-8")
            specs.append(f"a{i}=scripted:{path}")
    return specs


def _replay(
    url: str, dataset: Dataset, specs: list[str], *, read_prompts: bool, refresh_each_round: bool
) -> tuple[str, dict[str, object], int]:
    parsed, agents, _gateway = build_agents(specs)
    runtime: dict[str, Agent] = dict(agents)
    readers = []
    if read_prompts:
        readers = [_PromptReader(inner=a, name=a.name) for a in agents.values()]
        runtime = {r.name: r for r in readers}
        assert all(reads_messages(r) for r in readers)
    roster = [
        RosterEntry(name=p.name, spec=s, division=Division.OPEN)
        for p, s in zip(parsed, specs, strict=True)
    ]
    with open_store(url) as store:

        def each_round(_index: int, _total: int, _hour: object) -> None:
            if refresh_each_round:
                store.refresh_projections()

        asyncio.run(
            run_season(
                store,
                FrozenBarsSource(dataset),
                roster,
                runtime,
                season_id="linear",
                start=START,
                end=END,
                on_round=each_round,
            )
        )
        store.refresh_projections()
        assert verify(store).ok
        states = store.projection_states(WEIGHTS_ENTRIES)
        return store.head().hash, states, sum(r.prompts for r in readers)


@pytest.fixture(scope="module")
def dataset(shared_data: Path) -> Dataset:
    return load_dataset(shared_data / "us_equities_daily", symbols=SYMBOLS)


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(roster=_roster)
def test_prompts_and_projection_checkpoints_change_no_byte(
    roster: list[tuple[str, str]], dataset: Dataset, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Same roster, fast path vs prompts read and projections refreshed per round: same record."""
    tmp = tmp_path_factory.mktemp("linear")
    specs = _specs(tmp, roster)
    fast = _replay(
        f"sqlite:///{tmp / 'fast.db'}",
        dataset,
        specs,
        read_prompts=False,
        refresh_each_round=False,
    )
    slow = _replay(
        f"sqlite:///{tmp / 'slow.db'}",
        dataset,
        specs,
        read_prompts=True,
        refresh_each_round=True,
    )
    assert fast[0] == slow[0]
    assert fast[1] == slow[1]
    assert list(fast[1]) == ["weights/linear"]
    assert slow[2] > 0
