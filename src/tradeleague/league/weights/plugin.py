"""The weights league as a plug-in: what the shared layers find under ``tradeleague.formats``."""

from tradeleague.plugin import Command, Format

__all__ = ["FORMAT"]

_P = "tradeleague.league.weights."

FORMAT = Format(
    key="weights",
    title="Weights league",
    summary="Agents built from an owner's prompt answer with target portfolio weights; "
    "hourly rounds, strict validation, exact fills.",
    table="weights",
    replay=Command(
        "Replay a weights season over frozen bars with the live rules; resumable.",
        _P + "commands",
    ),
    commands={
        "weights": Command(
            "Run the weights league: seasons, agents, rounds, holds and tables. Paper trading "
            "simulation. Not investment advice. No real orders are placed.",
            _P + "commands",
        ),
        "universe": Command(
            "Show what the next weights season would hold if it started now; writes nothing.",
            _P + "universe_command",
        ),
    },
    pages=("/weights", "/methodology/weights"),
    parts={
        "answers": _P + "answer_part:ANSWERS",
        "serve": _P + "serving:SERVE",
        "host": _P + "hosting:HOST",
        "site": _P + "site:SITE",
        "sweep": _P + "sweeping:SWEEP",
        "results": _P + "results:RESULTS",
        "account": _P + "accounts:ACCOUNT",
        "demo": _P + "demo:DEMO",
        "null": _P + "null:NULL",
        "projections": _P + "projection:register",
    },
    order=10,
)
