"""The scenario benchmark's public read models, for the JSON API and the pages alike.

One function per figure: the leaderboard route and the leaderboard page both
call `leaderboard_payload`, so a page can never disagree with ``/api/v1``.
"""

from __future__ import annotations

from typing import Any

from tradeleague.events import utc_iso
from tradeleague.formats.scenario import METRICS, Entry, rank
from tradeleague.formats.scenario.leaderboard import UNRANKED_TEXT
from tradeleague.formats.scenario.luck import run_luck
from tradeleague.formats.weights.luck import benchmark_symbol
from tradeleague.league.scenario.service import ScenarioService
from tradeleague.league.scenario.story import scenario_story
from tradeleague.league.scenario.views import decimal_text
from tradeleague.stats import percent

__all__ = ["changelog_payload", "leaderboard_payload", "run_payload", "scenarios_payload"]


def leaderboard_payload(service: ScenarioService, scenario_ref: str, metric: str) -> dict[str, Any]:
    """Return a scenario's published runs ranked by ``metric`` (S-SCO-2), steps per row (ST-1).

    Beside the rows: ``significance``, the stated test and the luckiest-of-N line
    (ST-2: the expected best of N no-skill agents under the scenario's rules, N
    the published runs), and ``baseline_cloud``, those agents' distribution of
    final returns with each run placed in it (``None`` with no published run);
    ``race``, every run's equity step by step, and ``story``, one sentence on
    the leader and whether its lead is within luck (``league.story``).

    ``scenario_ref`` is a version's id or a scenario's name (its latest
    version), as everywhere a scenario is named.

    Raises
    ------
    ServiceError
        404 when the scenario does not exist; 409 for an ambiguous name.
    """
    found = service.scenario_by_ref(scenario_ref)
    scenario_id = found.id
    entries = [Entry(r, a, res) for r, a, res in service.published(scenario_id)]
    records = {e.run_id: service.run_record(e.run_id)[0] for e in entries}
    luck = service.board_luck(scenario_id, list(records.values()))
    ranked = rank(entries, metric)
    named = [(e.entry.account or e.entry.run_id, e) for e in ranked]
    story = scenario_story(
        int(found.config.cash),
        [
            (e.rank, name, float(e.entry.results.total_return), int(e.entry.results.final_equity))
            for name, e in named
        ],
        {name: records[e.entry.run_id].equity for name, e in named},
        luck,
    )
    return {
        "scenario": found.view(),
        "metric": metric,
        "entries": [
            {
                "rank": e.rank,
                "unranked_reason": e.unranked,
                "unranked_text": None if e.unranked is None else UNRANKED_TEXT[e.unranked],
                "run_id": e.entry.run_id,
                "account": e.entry.account,
                "value": e.value,
                "final_equity": decimal_text(e.entry.results.final_equity),
                "return": float(e.entry.results.total_return),
                "max_drawdown": float(e.entry.results.max_drawdown),
                "liquidated": e.entry.results.liquidated,
                "steps": e.entry.results.steps,
                "trades": records[e.entry.run_id].trades,
                "vs_cash": luck.rows[e.entry.run_id].vs_cash.to_payload(),
                "vs_buy_and_hold": luck.rows[e.entry.run_id].vs_buy_and_hold.to_payload(),
                "alpha": luck.rows[e.entry.run_id].alpha_payload(),
            }
            for e in ranked
        ],
        "significance": luck.to_payload(),
        "baseline_cloud": None
        if luck.null is None
        else luck.null.cloud_payload(
            (
                e.entry.run_id,
                e.entry.run_id,
                percent(e.entry.results.total_return),
                int(e.entry.results.final_equity),
            )
            for e in ranked
        ),
        **story,
    }


def run_payload(service: ScenarioService, run_id: str) -> dict[str, Any]:
    """Return a published run's results, equity path and trades, all from its record.

    Raises
    ------
    ServiceError
        404 when no published run has that id.
    """
    body: dict[str, Any] = dict(service.public_run(run_id))
    record, fills = service.run_record(run_id)
    found = service.scenario(str(body["scenario_id"]))
    bars = found.bars
    body["trades"] = record.trades
    body["equity"] = [
        {"bar_time": utc_iso(bars.timestamp(k)), "equity": decimal_text(v)}
        for k, v in enumerate(record.equity)
        if k < len(bars)
    ]
    body["fills"] = [_fill(f) for f in fills]
    luck = run_luck(found.id, record, bars, found.config)
    body["benchmark"] = benchmark_symbol(list(found.config.symbols))
    body["alpha"] = luck.alpha_payload()
    body["scatter"] = [{"benchmark": b, "agent": x} for x, b in luck.steps]
    return body


_MICROS = frozenset({"qty", "price", "value", "fee", "slippage"})


def _fill(event: dict[str, object]) -> dict[str, object]:
    """Return one recorded fill for the public: its bar, then the fill in decimal text."""
    fill = event.get("fill")
    fields = fill if isinstance(fill, dict) else {}
    return {
        "index": event.get("index"),
        "bar_time": event.get("bar_time"),
        "forced": event.get("forced"),
        **{k: decimal_text(int(str(v))) if k in _MICROS else v for k, v in fields.items()},
    }


def scenarios_payload(service: ScenarioService) -> dict[str, Any]:
    """Return the scenarios with how many published runs each has."""
    counts = service.published_counts()
    return {
        "metrics": list(METRICS),
        "scenarios": [
            {**s, "published_runs": counts.get(str(s["id"]), 0)} for s in service.scenarios()
        ],
    }


# What a scenario version's view says that affects comparability (C-3), in the
# order a change is told; id, hash and time say which version, not what it holds.
_TERMS: tuple[tuple[str, str], ...] = (
    ("symbols", "symbols"),
    ("start", "start"),
    ("end", "end"),
    ("bars", "bars"),
    ("cash", "starting cash (USD)"),
    ("leverage_cap", "leverage cap"),
    ("shorting", "shorting"),
    ("slippage_bps", "slippage (basis points by notional tier)"),
    ("market", "market"),
)


def _told(value: object) -> str:
    if isinstance(value, bool):
        return "allowed" if value else "not allowed"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    return str(value)


def scenario_changelog(views: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Return the dated changes of the scenario versions ``views`` (as `scenario_view` gives them).

    Rules: C-3 (a published changelog of every change that affects
    comparability, with the date it took effect), S-SCN-2 (a version never
    changes: a change is a new version, dated when it was provisioned). A first
    version says what it holds; a later one says only what differs from the
    version before it, and that its bars changed when their hash did.
    """
    out: list[tuple[str, str, int, str]] = []
    last: dict[str, dict[str, Any]] = {}
    for v in sorted(views, key=lambda v: (str(v["name"]), int(v["version"]))):
        name, day = str(v["name"]), str(v["created_at"])[:10]
        head = f"Scenario {name} version {v['version']} published"
        before = last.get(name)
        if before is None:
            terms = "; ".join(f"{what} {_told(v[key])}" for key, what in _TERMS)
            change = f"{head}: {terms}."
        else:
            moved = [
                f"{what} {_told(before[key])} -> {_told(v[key])}"
                for key, what in _TERMS
                if before[key] != v[key]
            ]
            if before["content_hash"] != v["content_hash"]:
                moved.append("the bars changed")
            change = f"{head}: " + ("; ".join(moved) if moved else "no change of terms") + "."
        out.append((day, name, int(v["version"]), change))
        last[name] = v
    out.sort(key=lambda c: c[:3])
    return [{"date": day, "change": change} for day, _, _, change in out]


def changelog_payload(service: ScenarioService) -> dict[str, Any]:
    """Return the scenario benchmark's changelog: every scenario version, dated (C-3)."""
    return {"changes": scenario_changelog(service.scenarios())}
