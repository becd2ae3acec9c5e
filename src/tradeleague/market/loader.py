"""Read bar files: one ``<SYMBOL>.csv`` (or ``.csv.gz``) per symbol.

The layout is the one ``../shared/data`` uses: a folder holding one file per
symbol, named for the symbol, each with the header
``timestamp,open,high,low,close,volume``; ``timestamp`` is
``YYYY-MM-DDTHH:MM:SSZ`` (UTC, the bar's open time, or the session date at
00:00Z for daily US equities); prices and volume are decimal text, read into
exact micro-units without floats (see ``tradeleague.market.prices``). Rows are
strictly increasing in time. Any problem is a ``DataError`` naming the file and
the line.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Final, TextIO

import numpy as np
from numpy.typing import NDArray

from tradeleague.errors import DataError
from tradeleague.market.bars import ohlc_problem
from tradeleague.market.dataset import Dataset, make_dataset
from tradeleague.market.prices import decimal_text_to_micros

__all__ = ["HEADER", "load_dataset", "read_bar_file", "symbol_files"]

HEADER: Final = ("timestamp", "open", "high", "low", "close", "volume")
"""The header every bar file starts with."""

Columns = tuple[
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.int64],
]


def _open_text(path: Path) -> TextIO:
    if path.name.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="")
    return path.open(encoding="utf-8", newline="")


def _is_stamp(text: str) -> bool:
    return (
        len(text) == 20
        and text[19] == "Z"
        and text[10] == "T"
        and text[4] == "-"
        and text[7] == "-"
        and text[13] == ":"
        and text[16] == ":"
    )


def read_bar_file(path: Path) -> Columns:
    """Return ``(times, open, high, low, close, volume)`` read from one bar file.

    Times are seconds since the Unix epoch; prices and volume are micro-units.

    Raises
    ------
    DataError
        If the file cannot be read or any row is malformed; the message names
        the file and the line.
    """
    try:
        with _open_text(path) as handle:
            return _parse(path, handle)
    except (OSError, UnicodeDecodeError, EOFError, csv.Error) as exc:
        raise DataError(f"{path}: cannot be read as a bar file ({exc})") from None


def _parse(path: Path, handle: TextIO) -> Columns:
    reader = csv.reader(handle)
    header = next(reader, None)
    if header is None:
        raise DataError(f"{path}: the file is empty; expected the header {','.join(HEADER)}")
    if tuple(h.strip().lstrip("\ufeff").lower() for h in header) != HEADER:
        raise DataError(
            f"{path}, line 1: expected the header {','.join(HEADER)}, found {','.join(header)}"
        )
    stamps: list[str] = []
    values: list[list[int]] = [[], [], [], [], []]
    o_, h_, l_, c_, v_ = values
    to_micros = decimal_text_to_micros
    for row in reader:
        if len(row) != 6:
            raise DataError(f"{path}, line {reader.line_num}: expected 6 fields, found {len(row)}")
        stamp = row[0]
        if not _is_stamp(stamp):
            raise DataError(
                f"{path}, line {reader.line_num}: timestamp {stamp!r} is not "
                "YYYY-MM-DDTHH:MM:SSZ (UTC)"
            )
        stamps.append(stamp[:19])
        try:
            o_.append(to_micros(row[1]))
            h_.append(to_micros(row[2]))
            l_.append(to_micros(row[3]))
            c_.append(to_micros(row[4]))
            v_.append(to_micros(row[5]))
        except ValueError as exc:
            raise DataError(f"{path}, line {reader.line_num}: {exc}") from None
    if not stamps:
        raise DataError(f"{path}: the file has a header but no bars")
    times = _times(path, stamps)
    try:
        open_, high, low, close, volume = (np.array(v, dtype=np.int64) for v in values)
    except OverflowError:
        raise DataError(f"{path}: a value is too large for 64-bit micro-units") from None
    _check(path, times, open_, high, low, close, volume)
    return times, open_, high, low, close, volume


def _times(path: Path, stamps: list[str]) -> NDArray[np.int64]:
    try:
        return np.array(stamps, dtype="datetime64[s]").astype(np.int64)
    except ValueError:
        for i, stamp in enumerate(stamps):
            try:
                np.datetime64(stamp, "s")
            except ValueError:
                raise DataError(f"{path}, line {i + 2}: {stamp}Z is not a valid time") from None
        raise


def _check(
    path: Path,
    times: NDArray[np.int64],
    open_: NDArray[np.int64],
    high: NDArray[np.int64],
    low: NDArray[np.int64],
    close: NDArray[np.int64],
    volume: NDArray[np.int64],
) -> None:
    bad = (
        (np.minimum(np.minimum(open_, close), low) <= 0)
        | (high < np.maximum(open_, close))
        | (low > np.minimum(open_, close))
        | (volume < 0)
    )
    if bool(bad.any()):
        i = int(np.argmax(bad))
        problem = ohlc_problem(
            int(open_[i]), int(high[i]), int(low[i]), int(close[i]), int(volume[i])
        )
        raise DataError(f"{path}, line {i + 2}: {problem}")
    back = np.diff(times) <= 0
    if bool(back.any()):
        i = int(np.argmax(back)) + 1
        raise DataError(
            f"{path}, line {i + 2}: time {np.datetime64(int(times[i]), 's')}Z is not after "
            f"the previous bar's {np.datetime64(int(times[i - 1]), 's')}Z "
            "(rows must be strictly increasing in time)"
        )


def _symbol_of(path: Path) -> str | None:
    for suffix in (".csv.gz", ".csv"):
        if path.name.endswith(suffix) and len(path.name) > len(suffix):
            return path.name[: -len(suffix)]
    return None


def symbol_files(path: Path) -> dict[str, Path]:
    """Return each symbol's file in a data folder (or the one file given).

    Raises
    ------
    DataError
        If the path does not exist, holds no bar files, or names a symbol twice.
    """
    if path.is_file():
        symbol = _symbol_of(path)
        if symbol is None:
            raise DataError(f"{path}: a bar file is named <SYMBOL>.csv or <SYMBOL>.csv.gz")
        return {symbol: path}
    if not path.is_dir():
        raise DataError(f"{path}: no such file or folder")
    found: dict[str, Path] = {}
    for entry in sorted(path.iterdir()):
        symbol = _symbol_of(entry)
        if symbol is None or not entry.is_file():
            continue
        if symbol in found:
            raise DataError(
                f"{path}: symbol {symbol} has two files ({found[symbol].name}, {entry.name})"
            )
        found[symbol] = entry
    if not found:
        raise DataError(f"{path}: the folder holds no <SYMBOL>.csv or <SYMBOL>.csv.gz files")
    return found


def load_dataset(
    path: str | os.PathLike[str],
    *,
    symbols: Iterable[str] | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
    bar_size: timedelta | None = None,
    calendar: str | None = None,
    label: str | None = None,
) -> Dataset:
    """Load a folder of ``<SYMBOL>.csv`` / ``.csv.gz`` files, or a single such file.

    Parameters
    ----------
    path
        A data folder (e.g. ``../shared/data/us_equities_1h``) or one file.
    symbols
        Load only these symbols (default: every file).
    start, end
        Keep bars stamped in ``[start, end)`` (aware datetimes).
    bar_size
        The bar size; by default the most common gap between bars.
    calendar
        ``"XNYS"`` or ``"24/7"``; by default ``24/7`` if any bar falls on a
        weekend or every symbol ends in a stablecoin quote (``BTCUSDT``), else
        ``XNYS``.
    label
        How to show the dataset; by default the folder's name.

    Raises
    ------
    DataError
        For a missing path, an unknown symbol or a malformed file.
    """
    root = Path(path)
    files = symbol_files(root)
    if symbols is not None:
        wanted = tuple(dict.fromkeys(s.strip() for s in symbols if s.strip()))
        unknown = [s for s in wanted if s not in files]
        if unknown:
            raise DataError(
                f"{root}: no file for {', '.join(unknown)}; it has {', '.join(sorted(files))}"
            )
        files = {s: files[s] for s in wanted}
    columns = {symbol: read_bar_file(file) for symbol, file in files.items()}
    name = label or (root.name if root.is_dir() else f"{root.parent.name}/{root.name}")
    try:
        dataset = make_dataset(
            columns,
            source=str(root),
            label=name,
            synthetic=False,
            bar_size=bar_size,
            calendar=calendar,
        )
    except DataError as exc:
        raise DataError(f"{root}: {exc}") from None
    if start is None and end is None:
        return dataset
    return dataset.select(start=start, end=end)
