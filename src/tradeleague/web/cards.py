"""Board tables that read as cards on a phone: each cell labelled with its column's heading.

A page's ``<table class="board ...">`` (or ``"... cards"``) is written once, as a table; on a
narrow screen the stylesheet shows each row as a card, each cell with its
heading before it (``td::before { content: attr(data-label) }``). This pass
gives every body cell of such a table its column's heading as ``data-label``
(the heading's text, tags dropped); a cell that spans columns, or already
has a label, is left as it is. Pure: HTML in, HTML out.
"""

from __future__ import annotations

import html
import re
from typing import Final

__all__ = ["label_cells"]

_TABLE: Final = re.compile(r'<table class="(?:board|[^"]* cards)\b[^"]*"[^>]*>.*?</table>', re.S)
_HEAD: Final = re.compile(r"<thead>(.*?)</thead>", re.S)
_TH: Final = re.compile(r"<th\b[^>]*>(.*?)</th>", re.S)
_BODY: Final = re.compile(r"<tbody>(.*?)</tbody>", re.S)
_ROW: Final = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.S)
_CELL: Final = re.compile(r"<(td|th)\b([^>]*)>")
_TAG: Final = re.compile(r"<[^>]+>")


def _labelled(row: str, labels: list[str]) -> str:
    column = iter(labels)

    def label(match: re.Match[str]) -> str:
        tag, attrs = match.group(1), match.group(2)
        name = next(column, None)
        if name is None or "colspan" in attrs or "data-label" in attrs:
            return match.group(0)
        return f'<{tag}{attrs} data-label="{html.escape(name, quote=True)}">'

    return _CELL.sub(label, row)


def _table(match: re.Match[str]) -> str:
    table = match.group(0)
    head = _HEAD.search(table)
    if head is None:
        return table
    labels = [
        " ".join(html.unescape(_TAG.sub("", th)).split()) for th in _TH.findall(head.group(1))
    ]
    return _BODY.sub(
        lambda body: (
            "<tbody>"
            + _ROW.sub(lambda row: _labelled(row.group(0), labels), body.group(1))
            + "</tbody>"
        ),
        table,
    )


def label_cells(page: str) -> str:
    """Return ``page`` with every board or card table's body cells labelled with their heading."""
    return _TABLE.sub(_table, page)
