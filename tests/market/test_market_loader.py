"""Loading bar files: layout, exact parsing, clear errors naming file and line (SPEC C-11)."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tradeleague.errors import DataError
from tradeleague.market import CONTINUOUS, NYSE, load_dataset

HEADER = "timestamp,open,high,low,close,volume\n"


def write(path: Path, rows: list[str], header: str = HEADER) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = header + "".join(r + "\n" for r in rows)
    if path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


DAILY = [
    "2025-07-01T00:00:00Z,10.5,11,10,10.75,100",
    "2025-07-02T00:00:00Z,10.75,12.25,10.5,12,200",
    "2025-07-03T00:00:00Z,12,12.5,11.0000004,12.1234567,300",
    "2025-07-07T00:00:00Z,12.1,12.2,11.9,12.0,400",
]
CRYPTO = [
    "2025-07-05T00:00:00Z,100.01,101,99.5,100.5,1.123456789",
    "2025-07-05T00:01:00Z,100.5,100.6,100.4,100.45,0.5",
    "2025-07-05T00:02:00Z,100.45,100.45,100.0,100.1,0",
]


def test_folder_loads_exact_micro_prices(tmp_path: Path) -> None:
    write(tmp_path / "eq" / "AAA.csv", DAILY)
    write(tmp_path / "eq" / "BBB.csv.gz", DAILY[:2])
    (tmp_path / "eq" / "notes.txt").write_text("ignored")
    ds = load_dataset(tmp_path / "eq")
    assert ds.symbols == ("AAA", "BBB")
    assert ds.label == "eq"
    assert not ds.synthetic
    assert ds.bar_size == timedelta(days=1)
    assert ds.calendar.name == NYSE
    aaa = ds["AAA"]
    assert aaa.open.tolist() == [10_500_000, 10_750_000, 12_000_000, 12_100_000]
    # more than six decimals: rounded half-even to the micro
    assert aaa.low[2] == 11_000_000
    assert aaa.close[2] == 12_123_457
    assert aaa.volume.tolist() == [100_000_000, 200_000_000, 300_000_000, 400_000_000]
    first = ds.bars("AAA")[0]
    assert first.timestamp == datetime(2025, 7, 1, tzinfo=UTC)
    assert (first.high, first.close) == (11_000_000, 10_750_000)
    assert len(ds["BBB"]) == 2
    assert ds.rows == 6


def test_single_gzip_file_and_crypto_inference(tmp_path: Path) -> None:
    path = write(tmp_path / "c" / "ETHUSDT.csv.gz", CRYPTO)
    ds = load_dataset(path)
    assert ds.symbols == ("ETHUSDT",)
    assert ds.calendar.name == CONTINUOUS
    assert ds.bar_size == timedelta(minutes=1)
    assert ds.label == "c/ETHUSDT.csv.gz"
    assert ds["ETHUSDT"].volume[0] == 1_123_457


def test_symbol_subset_and_date_range(tmp_path: Path) -> None:
    write(tmp_path / "AAA.csv", DAILY)
    write(tmp_path / "BBB.csv", DAILY)
    ds = load_dataset(
        tmp_path,
        symbols=["BBB"],
        start=datetime(2025, 7, 2, tzinfo=UTC),
        end=datetime(2025, 7, 7, tzinfo=UTC),
    )
    assert ds.symbols == ("BBB",)
    assert [b.timestamp.day for b in ds.bars("BBB")] == [2, 3]
    with pytest.raises(DataError, match=r"no file for ZZZ; it has AAA, BBB"):
        load_dataset(tmp_path, symbols=["ZZZ"])
    with pytest.raises(DataError, match="no bars"):
        load_dataset(tmp_path, start=datetime(2030, 1, 1, tzinfo=UTC))


@pytest.mark.parametrize(
    ("rows", "header", "message"),
    [
        (DAILY, "date,o,h,l,c,v\n", r"X\.csv, line 1: expected the header"),
        ([], HEADER, "header but no bars"),
        ([DAILY[0], "2025-07-02T00:00:00Z,1,2,3"], HEADER, r"line 3: expected 6 fields"),
        (["2025-07-01 00:00:00,1,2,1,1,1"], HEADER, r"line 2: timestamp .* YYYY-MM-DDTHH:MM:SSZ"),
        (["2025-13-01T00:00:00Z,1,2,1,1,1"], HEADER, r"line 2: .* not a valid time"),
        ([DAILY[0], "2025-07-02T00:00:00Z,1,abc,1,1,1"], HEADER, r"line 3: 'abc' is not"),
        ([DAILY[0], "2025-07-02T00:00:00Z,10,9,8,9.5,1"], HEADER, r"line 3: high 9 is below"),
        (
            [DAILY[0], "2025-07-02T00:00:00Z,10,11,10.5,10.6,1"],
            HEADER,
            r"line 3: low 10.5 is above",
        ),
        (["2025-07-01T00:00:00Z,0,1,0,1,1"], HEADER, r"line 2: prices must be > 0"),
        (["2025-07-01T00:00:00Z,0.0000004,1,0.0000004,1,1"], HEADER, r"line 2: prices must be > 0"),
        (["2025-07-01T00:00:00Z,1,1,1,1,-5"], HEADER, r"line 2: volume must be >= 0"),
        ([DAILY[1], DAILY[0]], HEADER, r"line 3: time 2025-07-01T00:00:00Z is not after"),
        ([DAILY[0], DAILY[0]], HEADER, r"line 3: .* strictly increasing"),
    ],
)
def test_malformed_files_name_file_and_line(
    tmp_path: Path, rows: list[str], header: str, message: str
) -> None:
    write(tmp_path / "X.csv", rows, header)
    with pytest.raises(DataError, match=message):
        load_dataset(tmp_path / "X.csv")


def test_bad_paths_are_clear(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file or folder"):
        load_dataset(tmp_path / "missing")
    with pytest.raises(DataError, match=r"holds no <SYMBOL>\.csv"):
        load_dataset(tmp_path)
    (tmp_path / "A.csv.gz").write_bytes(b"not gzip at all")
    with pytest.raises(DataError, match=r"A\.csv\.gz: cannot be read"):
        load_dataset(tmp_path)
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(DataError, match="empty"):
        load_dataset(tmp_path / "empty.csv")
    other = tmp_path / "x.parquet"
    other.write_text("")
    with pytest.raises(DataError, match=r"named <SYMBOL>\.csv"):
        load_dataset(other)


def test_same_symbol_twice_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "AAA.csv", DAILY)
    write(tmp_path / "AAA.csv.gz", DAILY)
    with pytest.raises(DataError, match="two files"):
        load_dataset(tmp_path)


def test_daily_equity_bar_on_a_holiday_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "AAA.csv", [DAILY[2], "2025-07-04T00:00:00Z,1,1,1,1,1"])
    with pytest.raises(DataError, match=r"AAA: the bar labelled 2025-07-04 covers no XNYS"):
        load_dataset(tmp_path, bar_size=timedelta(days=1))


def test_single_bar_needs_a_bar_size(tmp_path: Path) -> None:
    write(tmp_path / "AAA.csv", DAILY[:1])
    with pytest.raises(DataError, match="give the bar size"):
        load_dataset(tmp_path)
    ds = load_dataset(tmp_path, bar_size=timedelta(days=1), calendar="XNYS")
    assert len(ds["AAA"]) == 1
