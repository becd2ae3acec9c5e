"""REPORT.json and the board of a thesis season (T-SCO-1, ST-1, ST-2, T-CYC-10, T-AGT-2).

Everything is read from the folded season: the cycles' pictures, each agent's
entries per cycle and attempt, the monitor's closes (with the break's time
and price when it was seen while the market was closed), the metrics with the
counts they rest on, the verdicts against cash and holding SPY (a paired
bootstrap over step returns) and the luckiest-of-N line; agentic agents are
marked. Money is in dollars as decimal strings; symbols are normalised.

The luckiest-of-N line is the season's no-skill null (``league/thesis/null.py``:
coin-flip agents simulated under the league's rules over the season's cycles),
N the agents on the board, its figure ST-2's expected best of N; the caller
passes it in (``board_null``: from the season's record, checked against its
tape where one is at hand; ``None``: no line).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal

from tradeleague.agents.cutoff import training_cutoff
from tradeleague.formats.thesis.preset import PROMPT_VERSION, SCORING_VERSION
from tradeleague.formats.thesis.scoring import UNRANKED_TEXT, Metrics, metrics, rank, verdicts
from tradeleague.league.thesis.state import SeasonState
from tradeleague.money import MICRO, micros_to_str
from tradeleague.stats.null import SeasonNull
from tradeleague.stats.verdicts import Outcome

__all__ = ["board_rows", "build_report", "luck_payload", "paper_values"]


def _dollars(raw: object) -> str | None:
    return None if raw is None else micros_to_str(int(str(raw)))


def _hundredths(raw: object) -> str | None:
    """Return a confidence kept in hundredths (90) as its decimal text ("0.90")."""
    if raw is None:
        return None
    value = int(str(raw))
    return f"{value // 100}.{value % 100:02d}"


def _entry(p: dict[str, object]) -> dict[str, object]:
    decisions = []
    raw_decisions = p["decisions"]
    for d in raw_decisions if isinstance(raw_decisions, list) else []:
        fill = d.get("fill")
        decisions.append(
            {
                "action": d["action"],
                "symbol": d["symbol"],
                "status": d["status"],
                "reason_code": d["reason_code"],
                "quantity": _dollars(fill["qty"]) if isinstance(fill, dict) else None,
                "price": _dollars(fill["price"]) if isinstance(fill, dict) else None,
                "fee": _dollars(fill["fee"]) if isinstance(fill, dict) else None,
                "thesis": d.get("thesis", ""),
                "invalidation": d.get("invalidation", ""),
                "invalidation_price": _dollars(d.get("invalidation_price")),
                "confidence": _hundredths(d.get("confidence")),
                "rationale": d.get("rationale", ""),
            }
        )
    positions = p["positions"]
    return {
        "cycle": p["round"],
        "attempt": p["attempt"],
        "outcome": p["outcome"],
        "raw_answer": p["raw_answer"],
        "answer_reason": p["answer_reason"],
        "detail": p.get("detail", ""),
        "reasoning": p["reasoning"],
        "decisions": decisions,
        "equity": _dollars(p["equity"]),
        "cash": _dollars(p["cash"]),
        "positions": {
            k: micros_to_str(int(str(v)))
            for k, v in (positions.items() if isinstance(positions, dict) else ())
        },
    }


def _spy_path(state: SeasonState) -> list[int]:
    out = []
    for cycle in state.cycles.values():
        prices = cycle["prices"]
        if isinstance(prices, dict) and "SPY" in prices:
            out.append(int(Decimal(str(prices["SPY"])) * MICRO))
    return out


def _scores(state: SeasonState) -> dict[str, Metrics]:
    start = int(state.preset.start_cash)
    return {
        name: metrics(
            start,
            a.equity,
            a.gross,
            a.realised,
            trades=a.trades,
            decisions=a.decisions,
        )
        for name, a in state.agents.items()
        if a.equity
    }


def board_rows(state: SeasonState, null: SeasonNull | None) -> list[dict[str, object]]:
    """Return the board: every T-SCO-1 metric, the counts (ST-1) and the ST-2 verdicts, ranked.

    ``null`` is the season's no-skill null of N agents (``null.board_null``); each row's
    ``luckiest_of_n`` is its expected best of N, in percent (``None`` without one).
    """
    scores = _scores(state)
    spy = _spy_path(state)
    start = int(state.preset.start_cash)
    luck = None if null is None else str(null.expected_best)
    rows = []
    for placed in rank(scores):
        name = placed.row
        a = state.agents[name]
        v = verdicts(
            a.equity,
            spy[-len(a.equity) - 1 :] if a.equity else [],
            start,
            alpha_seed=_seed(f"{state.season}/alpha/{name}"),
        )
        reason = placed.unranked
        rows.append(
            {
                "rank": placed.rank,
                "unranked_reason": reason,
                "unranked_text": None if reason is None else UNRANKED_TEXT[reason],
                "name": name,
                "kind": a.kind,
                "agentic": a.agentic,
                "entered_cycle": a.entered,
                **scores[name].to_report(),
                "steps": v.steps,
                "vs_cash": v.vs_cash.value,
                "vs_spy": v.vs_spy.value,
                "differs_from_cash": _differs(v.vs_cash),
                "differs_from_spy": _differs(v.vs_spy),
                "alpha": None if v.alpha is None else v.alpha.to_payload(),
                "scatter": [{"benchmark": b, "agent": x} for x, b in v.pairs],
                "luckiest_of_n": luck,
                "training_cutoff": training_cutoff(a.spec, _first_day(state)),
            }
        )
    return rows


def _first_day(state: SeasonState) -> date:
    """Return the season's first day (UTC), which a model's training cutoff is read against."""
    try:
        return datetime.fromisoformat(state.start.replace("Z", "+00:00")).date()
    except ValueError:
        return date.min


def _seed(label: str) -> int:
    """Return the seed of ``label`` (the season and the agent): the same every read."""
    return int.from_bytes(hashlib.blake2b(label.encode(), digest_size=8).digest())


def _differs(verdict: Outcome) -> bool | None:
    """Return the older yes/no key (kept for readers of earlier reports): distinguishable or not."""
    if verdict is Outcome.TOO_FEW:
        return None
    return verdict is not Outcome.NOT_DISTINGUISHABLE


def _monitor_close(c: Mapping[str, object]) -> dict[str, object]:
    """Return one monitor close; a close after a break seen while closed names the break."""
    row: dict[str, object] = {
        "time": c["time"],
        "symbol": c["symbol"],
        "level": _dollars(c["level"]),
        "price": _dollars(c["price"]),
        "quantity": _dollars(c["quantity"]),
        "fee": _dollars(c["fee"]),
    }
    if "broken_time" in c:  # T-MON-1: closed at the first open check after the break
        row["broken_time"] = c["broken_time"]
        row["broken_price"] = _dollars(c["broken_price"])
    return row


def luck_payload(null: SeasonNull | None) -> dict[str, object] | None:
    """Return how the luckiest-of-N line was found and its figures (percent strings), or null."""
    if null is None:
        return None
    line = null.line
    return {
        "method": "no-skill null under the league's rules",
        "kind": null.kind.value,
        "agents": line.agents,
        "cycles": line.rounds,
        "quantiles": {k: str(v) for k, v in line.quantiles.items()},
        "luckiest": str(line.luckiest),
        "simulations": len(null.cloud.values),
        "seasons": null.seasons,
        "expected_best_return": str(null.expected_best),
    }


def build_report(state: SeasonState, null: SeasonNull | None) -> dict[str, object]:
    """Return REPORT.json's content; ``null`` as for `board_rows`."""
    board = {row["name"]: row for row in board_rows(state, null)}
    agents = []
    for name, a in state.agents.items():
        row = board.get(name, {})
        agents.append(
            {
                "name": name,
                "kind": a.kind,
                "agentic": a.agentic,
                "spec": a.spec,
                "entered_cycle": a.entered,
                "entries": [_entry(e) for e in a.entries],
                "monitor_closes": [
                    _monitor_close(c) for c in state.monitor_closes if c["agent"] == name
                ],
                "metrics": {
                    k: row.get(k)
                    for k in ("return", "max_drawdown", "sharpe", "sortino", "win_rate", "exposure")
                },
                "counts": {k: row.get(k) for k in ("trades", "closed_trades", "decisions")},
                "verdicts": {
                    k: row.get(k)
                    for k in ("steps", "vs_cash", "vs_spy", "differs_from_cash", "differs_from_spy")
                },
                "alpha": row.get("alpha"),
                "training_cutoff": row.get("training_cutoff"),
                "scatter": row.get("scatter", []),
                "rank": row.get("rank"),
                "unranked_reason": row.get("unranked_reason"),
                "unranked_text": row.get("unranked_text"),
            }
        )
    cycles = [
        {
            "time": c["round"],
            "stocks_open": c["stocks_open"],
            "screen": c["screen"],
            "rsi": c["rsi"],
            "prices": c["prices"],
        }
        for c in state.cycles.values()
    ]
    return {
        "format": "thesis",
        "season": state.season,
        "start": state.start,
        "end": state.end,
        "scoring_version": state.scoring_version or SCORING_VERSION,
        "prompt_version": state.prompt_version or PROMPT_VERSION,
        "cycles": cycles,
        "agents": agents,
        "board": list(board.values()),
        "luckiest_of_n": luck_payload(null),
    }


def paper_values(state: SeasonState) -> dict[str, tuple[int, int]]:
    """Return each agent on the board's starting cash and last equity (micro-dollars)."""
    start = int(state.preset.start_cash)
    return {name: (start, a.equity[-1]) for name, a in state.agents.items() if a.equity}
