"""Read a board page's baseline-cloud tables back, for the site's tests of every format."""

from __future__ import annotations

import re


def cloud_tables(page: str, fmt: str) -> tuple[list[str], list[tuple[str, str, str]]]:
    """Return the bins table's cells and the marks table's (agent, return, share below) rows.

    ``fmt`` is the cloud's ``data-cloud`` name (``weights``, ``scenario``, ``thesis``).
    """
    bins = re.search(rf'<table class="cloud-bins" data-cloud="{fmt}">(.*?)</table>', page, re.S)
    assert bins is not None, f"no {fmt} cloud bins table"
    cells = re.findall(r'<td class="num">([^<]*)</td>', bins.group(1))
    marks = re.findall(
        r'<tr data-mark="([^"]*)"><td>[^<]*</td><td class="num" data-field="mark_return">'
        r'([^<]*)</td><td class="num" data-field="below">([^<]*)</td></tr>',
        page,
    )
    return cells, marks


def bin_cells(cloud: dict[str, object]) -> list[str]:
    """Return the cells the bins table must hold for ``cloud`` (its JSON)."""
    bins = cloud["bins"]
    assert isinstance(bins, list)
    return [str(x) for b in bins for x in (b["low"], b["high"], b["agents"])]
