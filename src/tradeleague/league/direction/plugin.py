"""The direction arena as a plug-in: what the shared layers find under ``tradeleague.formats``."""

from tradeleague.plugin import Command, Format

__all__ = ["FORMAT"]

_P = "tradeleague.league.direction."

FORMAT = Format(
    key="direction",
    title="Direction arena",
    summary="Models call up or down on BTC every five minutes; calls settle as binary options "
    "through a paper broker.",
    table="direction",
    replay=Command(
        "Replay direction-arena rounds over frozen candles with the paper broker.",
        _P + "commands",
    ),
    pages=("/direction", "/methodology/direction"),
    parts={
        "answers": _P + "answer_part:ANSWERS",
        "serve": _P + "serving:SERVE",
        "host": _P + "hosting:HOST",
        "site": _P + "site:SITE",
        "sweep": _P + "sweeping:SWEEP",
        "results": _P + "results:RESULTS",
        "demo": _P + "demo:DEMO",
    },
    order=20,
)
