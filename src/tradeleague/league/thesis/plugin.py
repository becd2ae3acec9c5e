"""The thesis league as a plug-in: what the shared layers find under ``tradeleague.formats``."""

from tradeleague.plugin import Command, Format

__all__ = ["FORMAT"]

_P = "tradeleague.league.thesis."

FORMAT = Format(
    key="thesis",
    title="Thesis league",
    summary="A daily cycle over crypto and stocks: actions with a thesis and an invalidation "
    "price that a monitor enforces.",
    table="thesis",
    replay=Command(
        "Replay a thesis-league season over frozen folders, one cycle a day at 16:00 UTC.",
        _P + "commands",
    ),
    pages=("/thesis", "/methodology/thesis"),
    parts={
        "answers": _P + "answer_part:ANSWERS",
        "host": _P + "hosting:HOST",
        "site": _P + "site:SITE",
        "sweep": _P + "sweeping:SWEEP",
        "results": _P + "results:RESULTS",
        "turns": _P + "turns:TURNS",
    },
    order=40,
)
