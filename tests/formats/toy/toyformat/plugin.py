"""The toy registered as a format, under the ``tradeleague.formats`` entry points."""

from tradeleague.plugin import Command, Format

__all__ = ["FORMAT"]

FORMAT = Format(
    key="toy",
    title="Toy league",
    summary="Each round an agent names one symbol and holds it; scored by return.",
    table="toy",
    replay=Command("Replay a toy season over a synthetic tape; resumable.", "toyformat.commands"),
    pages=("/toy",),
    parts={
        "host": "toyformat.hosting:HOST",
        "site": "toyformat.site:SITE",
        "sweep": "toyformat.sweeping:SWEEP",
    },
    order=90,
)
