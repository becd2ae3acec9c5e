"""Masked replays, the shared part: the option's help, the resume check, the report's table.

The transform itself is pure and lives in `tradeleague.market.mask` (the
`MaskTable` value, drawn from the season's seed, and recorded as a
``MaskDrawn`` event when a masked season opens). Each format's round applies
it where it builds what an agent is shown (its prompt, answer schema and view)
and maps the answer back before its one validator's decision is traded; the
accounting never sees a pseudonym. What the formats share is here:

* ``MASK_HELP``: the ``--mask`` option's help, one text for every replay command;
* `mask_mismatch`: the one sentence that refuses to resume a season with the
  other setting (a season is masked from its opening or not at all);
* `masked_season_id`: a masked replay's default season id (its own, so the
  same command resumes it and an unmasked replay of the period is another season);
* `report_mask`: the table as REPORT.json shows it, only once the season has ended.
"""

from __future__ import annotations

from collections.abc import Mapping

from tradeleague.market.mask import MaskTable

__all__ = ["MASK_HELP", "mask_mismatch", "masked_season_id", "report_mask"]

MASK_HELP = (
    "Mask the season: agents see pseudonymous symbols, days counted from the start "
    "(day 1) instead of dates, and each symbol's prices times a factor drawn from the "
    "season's seed; no names, sectors or news. Answers are mapped back and traded at "
    "real prices. The table is recorded (verify checks it) and shown only in the "
    "finished season's REPORT.json."
)


def mask_mismatch(season: str, recorded_masked: bool) -> str:
    """Return the sentence refusing to resume ``season`` with the other mask setting."""
    if recorded_masked:
        return f"season {season} was recorded masked; resume it with --mask"
    return f"season {season} was recorded unmasked; resume it without --mask"


def masked_season_id(season: str, mask: bool) -> str:
    """Return the default id ``season`` of a replay, with ``-masked`` when it is masked."""
    return f"{season}-masked" if mask else season


def report_mask(table: MaskTable | None, ended: bool) -> Mapping[str, object] | None:
    """Return the mask for a report: the table once the season has ended, else nothing.

    A running season's table stays hidden: its agents' answers could be
    reverse-engineered by whoever reads it while they still play.
    """
    if table is None or not ended:
        return None
    return table.to_payload()
