"""The public payloads: rounds, logs, roster, boards, changelog, report (SPEC D-PUB, C-1, C-3).

Pure builders from the ledger and the board; the web layer only serves them.
Calls are hidden until the round has finished (after expiry) *in the data*
(D-PUB-1): an open round's payload has no ``direction``, ``rationale`` or
tally field at all, only how many models have committed. Money is a decimal
string of dollars; percentages are ST-3 rounded decimal strings of percent
(``"-0.12"`` is -0.12%). Every payload carries the paper-trading line (C-1).

Model text is data (C-10), and so is user text: every string a model, a
provider or a visitor wrote is shown as plain text in a public payload
(invisible and bidi characters removed, then HTML-escaped), exactly as the
weights league shows its reasons (``tradeleague.formats.weights.text.plain_text``).
That is every rationale, answer text and skip detail; in call records the
text, error, finish reason, returned model id, tool calls and the model's own
turns; and every entrant's name, provider, tier and model id wherever it
appears (a visitor's name is user text; the roster's are cleaned alike so a
name reads the same in every payload). The record keeps the raw text as it
came (C-4); only the payloads are cleaned.
"""

from __future__ import annotations

from datetime import date
from fractions import Fraction
from typing import Any

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.formats.direction.board import UNRANKED_TEXT, Board, GroupRow, ModelRow
from tradeleague.formats.direction.ledger import Entrant, Ledger, LogRow, RoundView, SeasonView
from tradeleague.formats.weights.text import plain_text
from tradeleague.money import micros_to_str
from tradeleague.stats import percent
from tradeleague.stats.cutoff import cutoff_mark

__all__ = [
    "board_payload",
    "changelog_payload",
    "model_log_payload",
    "money",
    "pct",
    "report_payload",
    "roster_payload",
    "round_payload",
    "shown",
    "visitors_payload",
]


def money(micros: int | None) -> str | None:
    """Return micro-dollars as an exact decimal string of dollars (``None`` stays ``None``)."""
    return None if micros is None else micros_to_str(micros)


def pct(value: Fraction | float | None) -> str | None:
    """Return a fraction of one as an ST-3 percent string (``None`` stays ``None``)."""
    return None if value is None else str(percent(value))


def shown(text: str | None) -> str | None:
    """Return model text as a public payload shows it (C-10); ``None`` stays ``None``."""
    return None if text is None else plain_text(text)


def _deep(value: Any) -> Any:
    """Return ``value`` with every string in it shown as plain text (C-10)."""
    if isinstance(value, str):
        return plain_text(value)
    if isinstance(value, dict):
        return {_deep(k): _deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep(v) for v in value]
    return value


_RECORD_TEXT = ("text", "error", "finish_reason", "model", "tool_calls")
"""The call-record fields a model or its provider wrote (the rest is the league's)."""
_LEAGUE_ROLES = frozenset({"system", "user"})


def _record(record: dict[str, Any]) -> dict[str, Any]:
    out = {**record, **{k: _deep(record[k]) for k in _RECORD_TEXT if k in record}}
    if isinstance(record.get("messages"), list):
        out["messages"] = [
            m if isinstance(m, dict) and m.get("role") in _LEAGUE_ROLES else _deep(m)
            for m in record["messages"]
        ]
    return out


_CUTOFF_KEYS = ("cutoff", "cutoff_source")
"""Recorded with a model entrant; shown as its ``training_cutoff`` mark instead."""


def _entrant(entrant: Entrant) -> dict[str, str]:
    """Return an entrant as a payload shows it: every field plain text (C-10)."""
    return {k: plain_text(str(v)) for k, v in entrant.to_payload().items() if k not in _CUTOFF_KEYS}


def training_cutoff(entrant: Entrant, first_day: date | None) -> dict[str, Any] | None:
    """Return a model entrant's training-cutoff mark for the season (``None``: not a model)."""
    if not entrant.model_agent or first_day is None:
        return None
    return cutoff_mark(entrant.cutoff, entrant.cutoff_source, first_day)


def _stamp(body: dict[str, Any]) -> dict[str, Any]:
    return {"disclaimer": DISCLAIMER, **body}


def _row(row: LogRow) -> dict[str, Any]:
    return {
        "round": row.round,
        "timestamp": row.timestamp.isoformat().replace("+00:00", "Z"),
        "direction": row.direction,
        "entry_price": money(row.entry_price),
        "exit_price": money(row.exit_price),
        "result": row.result,
        "detail": shown(row.detail),
        "pnl": money(row.pnl),
        "payout_ppm": row.payout_ppm,
        "balance_after": money(row.balance_after),
        "rationale": shown(row.rationale),
    }


def _latency(view: RoundView, agent: str) -> int | None:
    """Return how long ``agent``'s answer took in a round (its decision's or skip's record)."""
    decision = view.decisions.get(agent) or {}
    skip = view.skips.get(agent) or {}
    latency = decision.get("latency_ms", skip.get("latency_ms"))
    return None if latency is None else int(latency)


def round_payload(season: SeasonView, view: RoundView) -> dict[str, Any]:
    """Return a round as the public sees it: hidden calls while open (D-PUB-1, D-RND-1)."""
    s = view.started
    body: dict[str, Any] = {
        "season": season.season,
        "round": view.round,
        "asset": s["asset"],
        "open_at": s["open_at"],
        "expiry": s["expiry"],
        "entry_price": money(None if s["entry_price"] is None else int(s["entry_price"])),
        "candles": s["candles"],
        "prompt_version": s["prompt_version"],
        "models": len(s["participants"]),
    }
    finished = view.finished
    if finished is None:
        roster = set(s["participants"])
        body["status"] = "open"
        body["committed"] = sum(1 for agent in view.trades if agent in roster)
        return _stamp(body)
    body["status"] = "void" if view.void else "finished"
    body["void_reason"] = view.voided
    body["label"] = finished["label"]
    calls = []
    for agent in view.participants:
        row = _row(view.row(agent))
        decision = view.decisions.get(agent) or {}
        skip = view.skips.get(agent) or {}
        records = view.calls.get(agent, [])
        row |= {
            "model": plain_text(agent),
            "latency_ms": _latency(view, agent),
            "text": shown(decision.get("text", skip.get("text"))),
            "model_id": shown(records[-1]["model"]) if records else None,
            "calls": [_record(r) for r in records],
        }
        calls.append(row)
    body["calls"] = calls
    # the price the round settled at: every settled call in it shares it (D-RND-1)
    body["exit_price"] = next((c["exit_price"] for c in calls if c.get("exit_price")), None)
    return _stamp(body)


def model_log_payload(season: SeasonView, entrant: Entrant) -> dict[str, Any]:
    """Return a model's full public log: trades and skips in one table (D-PUB-3)."""
    return _stamp(
        {
            "season": season.season,
            "model": _entrant(entrant),
            "rows": [
                _row(r.row(entrant.name)) | {"latency_ms": _latency(r, entrant.name)}
                for r in season.finished_rounds()
                if entrant.name in r.participants
            ],
        }
    )


def roster_payload(season: SeasonView) -> dict[str, Any]:
    """Return the config endpoint: the roster with exact provider model ids (D-PUB-3)."""
    s = season.started
    return _stamp(
        {
            "season": season.season,
            "prompt_version": s["prompt_version"],
            "scoring_version": s["scoring_version"],
            "stake": money(int(s["stake"])),
            "start_balance": money(int(s["start_balance"])),
            "payout_ppm": s["payout_ppm"],
            "roster": [_entrant(e) for e in season.roster],
        }
    )


def _model(board: Board, row: ModelRow) -> dict[str, Any]:
    ci = row.interval
    return {
        "rank": row.rank,
        "unranked_reason": None if row.unranked is None else row.unranked.value,
        "unranked_text": None if row.unranked is None else UNRANKED_TEXT[row.unranked],
        **_entrant(row.entrant),
        "balance": money(row.tally.balance),
        "roi": pct(row.roi),
        "max_drawdown": pct(row.max_drawdown),
        "hit_rate": pct(row.hit_rate),
        "below_break_even": board.below_break_even(row),
        "answer_rate": pct(row.answer_rate),
        "settled": row.tally.settled,
        "wins": row.tally.wins,
        "losses": row.tally.losses,
        "draws": row.tally.draws,
        "skips": dict(row.skips),
        "streak": row.streak,
        "ci_low": pct(None if ci is None else ci.low),
        "ci_high": pct(None if ci is None else ci.high),
        "ci_contains_50": row.contains_coin,
        "trades_to_prove": row.trades_to_prove,
        "sparkline": [money(b) for b in row.sparkline],
        "training_cutoff": training_cutoff(row.entrant, board.first_day),
    }


def _group(board: Board, row: GroupRow) -> dict[str, Any]:
    return {
        "name": plain_text(row.name),
        "members": [plain_text(m) for m in row.members],
        "balance": money(row.tally.balance),
        "baseline": money(row.tally.baseline),
        "roi": pct(row.roi),
        "hit_rate": pct(row.hit_rate),
        "below_break_even": board.below_break_even(row),
        "answer_rate": pct(row.answer_rate),
        "settled": row.tally.settled,
        "wins": row.tally.wins,
        "losses": row.tally.losses,
        "draws": row.tally.draws,
    }


def board_payload(board: Board) -> dict[str, Any]:
    """Return the boards (models, providers, tiers, visitors apart) with the luck lines."""
    return _stamp(
        {
            "season": board.season,
            "scoring_version": board.scoring_version,
            "rounds": board.rounds,
            "void_rounds": board.void_rounds,
            "payout_ppm": board.payout_ppm,
            "break_even": pct(board.break_even),
            "luckiest_of_n": {
                "models": len(board.models),
                "trades": board.luckiest_trades,
                "expected_top_hit_rate": pct(board.luckiest),
            },
            "models": [_model(board, r) for r in board.models],
            "providers": [_group(board, g) for g in board.providers],
            "tiers": [_group(board, g) for g in board.tiers],
            "visitors": [_model(board, r) for r in board.visitors],
        }
    )


def visitors_payload(board: Board) -> dict[str, Any]:
    """Return the visitors' board: their calls scored as the models' are, ranked apart (D-PUB-2).

    Only rounds that have finished count, and a visitor shows once one of
    their calls has (D-PUB-1).
    """
    return _stamp(
        {
            "season": board.season,
            "scoring_version": board.scoring_version,
            "rounds": board.rounds,
            "payout_ppm": board.payout_ppm,
            "break_even": pct(board.break_even),
            "visitors": [_model(board, r) for r in board.visitors],
        }
    )


def report_payload(board: Board) -> dict[str, Any]:
    """Return ``REPORT.json``: the board's rows with their units stated."""
    body = board_payload(board)
    body["units"] = {
        "balance": "USD, exact decimal string",
        "roi, hit_rate, answer_rate, ci_low, ci_high": "percent, ST-3 rounded decimal string",
    }
    return body


def changelog_payload(ledger: Ledger) -> dict[str, Any]:
    """Return the changes that affect comparability, each with the date it took effect (C-3)."""
    entries: list[dict[str, str]] = []
    previous: dict[str, Any] | None = None
    for season in ledger.seasons.values():
        s = season.started
        day = str(s["started_at"])[:10]
        entries.append(
            {
                "date": day,
                "change": f"Season {season.season} opened: accounts reset to "
                f"{money(int(s['start_balance']))} USD, stake {money(int(s['stake']))} USD.",
            }
        )
        for key, what in (
            ("prompt_version", "Prompt version"),
            ("scoring_version", "Scoring version"),
            ("stake", "Stake"),
            ("payout_ppm", "Configured payout (ppm)"),
        ):
            if previous is None or previous[key] != s[key]:
                entries.append({"date": day, "change": f"{what} {s[key]}."})
        if previous is None or previous["roster"] != s["roster"]:
            names = ", ".join(plain_text(str(e["name"])) for e in s["roster"])
            entries.append({"date": day, "change": f"Roster: {len(s['roster'])} models ({names})."})
        previous = s
        if season.ended is not None:
            entries.append(
                {
                    "date": str(season.ended["ended_at"])[:10],
                    "change": f"Season {season.season} ended ({season.ended['reason']}).",
                }
            )
    return _stamp({"changes": entries})
