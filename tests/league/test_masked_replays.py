"""Masked replays: no real symbol, date or price reaches an agent, and the accounting is the same.

A masked replay (``--mask``) shows every agent pseudonyms drawn from the
season's seed, days counted from the start and prices times a per-symbol
factor; answers in the masked space are mapped back and traded at real
prices. These tests run the real commands over a small slice of
``../shared/data`` with the fake provider recording every request it gets,
and scripted twins answering in the masked and the real space (C-2: every
participant of a round gets the same masked picture; C-4: the table is an
event that ``verify`` checks; C-1 determinism: a resumed masked replay writes
what an uninterrupted one does).
"""

from __future__ import annotations

import asyncio
import gzip
import json
import re
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from tradeleague.agents.base import AgentReply, Turn
from tradeleague.calls import Outcome
from tradeleague.cli import app
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind
from tradeleague.events.schema import check_events
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.direction.prompt import format_price
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.weights import Division
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.market import load_dataset
from tradeleague.market.mask import draw_mask, mask_from_payload
from tradeleague.money import Usd, format_usd, micros_to_str, usd
from tradeleague.store import open_store, verify
from tradeleague.sweep.cell import run_cell
from tradeleague.sweep.config import load_sweep
from tradeleague.testing.fake_provider import FakeProvider, ReceivedRequest

pytestmark = pytest.mark.shared_data

SYMBOLS = ["AAPL", "MSFT", "NVDA"]
START, END = date(2026, 7, 6), date(2026, 7, 10)  # four daily rounds
SEASON = "masked-twin"
CASH = '{"targets": {}, "reason": "Cash."}'
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def _market(shared_data: Path, tmp: Path, folder: str = "us_equities_daily") -> Path:
    bars = tmp / "bars"
    bars.mkdir(exist_ok=True)
    for symbol in SYMBOLS:
        (bars / f"{symbol}.csv").symlink_to(shared_data / folder / f"{symbol}.csv")
    return bars


def _weights(market: Path, db: str, *agents: str, extra: Sequence[str] = ()) -> Any:
    args = [
        "replay", "weights", "--market", str(market), "--symbols", ",".join(SYMBOLS),
        "--start", START.isoformat(), "--end", END.isoformat(), "--db", db, "--no-check",
        *[x for a in agents for x in ("--agent", a)], *extra,
    ]  # fmt: skip
    result = CliRunner().invoke(app, args, env={"OPENAI_API_KEY": "sk-test", "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result


def _date_forms(days: Iterable[date]) -> list[str]:
    """Every way a prompt could write one of ``days``."""
    out = []
    for d in days:
        mon = MONTHS[d.month - 1]
        out += [
            d.isoformat(), f"{d:%Y/%m/%d}", f"{d:%m/%d/%Y}", f"{d:%d.%m.%Y}",
            f"{mon} {d.day:02d}", f"{mon} {d.day}", f"{d.day:02d} {mon}", f"{d.day} {mon}",
        ]  # fmt: skip
    return out


def _printed(micros: int) -> list[str]:
    """A real price as a prompt prints it (six places, two places; with and without commas)."""
    forms = [format_usd(micros, 6), format_usd(micros, 2)]
    return forms + [f.replace(",", "") for f in forms]


def _leaks(
    text: str, symbols: Iterable[str], dates: Iterable[str], prices: Iterable[str]
) -> set[str]:
    """Return the real symbols (whole words), dates and prices (whole numbers) in ``text``."""
    words = set(re.findall(r"[A-Za-z0-9]+", text))
    numbers = set(re.findall(r"[0-9][0-9,]*(?:\.[0-9]+)?", text))
    found = {s for s in symbols if (s in words if s.isalnum() else s in text)}
    found |= {d for d in dates if d in text}
    return found | (set(prices) & numbers)


def _strings(value: object) -> Iterable[str]:
    """Every key and scalar of a JSON value, as text."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    else:
        yield str(value)


def _seen(requests: Sequence[ReceivedRequest]) -> list[str]:
    """Each request as the model received it: its messages, schema and every other field."""
    return ["\n".join(_strings(r.body)) for r in requests]


def _events(db: str, kind: str | None = None) -> list[Any]:
    with open_store(db) as store:
        return [s.event for s in store.events() if kind is None or s.event.kind == kind]


def _round_prices(db: str) -> list[str]:
    out: list[str] = []
    for e in _events(db, EventKind.ROUND_STARTED):
        for micros in e.payload["prices"].values():
            out += _printed(int(micros))
    return out


@pytest.fixture
def fake() -> Iterable[FakeProvider]:
    with FakeProvider() as server:
        server.respond_with("m", lambda request: CASH)
        yield server


def test_a_masked_weights_replay_shows_no_real_symbol_date_or_price(
    shared_data: Path, tmp_path: Path, fake: FakeProvider
) -> None:
    """C-2: with --mask no request to the model (messages, schema, any field) names a real
    symbol, a day of the period in any common form, or a real price of its rounds."""
    market = _market(shared_data, tmp_path)
    db = f"sqlite:///{tmp_path / 'masked.db'}"
    _weights(market, db, f"m=openai:m@{fake.url}", extra=["--mask"])
    seen = _seen(fake.requests_for("m"))
    assert len(seen) == 4
    dates = _date_forms(START + timedelta(days=i) for i in range(-40, 10))
    prices = _round_prices(db)
    (drawn,) = _events(db, EventKind.MASK_DRAWN)
    assert check_events(_events(db), "weights") == []  # C-4: the table's event has its schema
    pseudonyms = list(drawn.payload["symbols"][s]["as"] for s in SYMBOLS)
    for text in seen:
        assert _leaks(text, SYMBOLS, dates, prices) == set()
        assert all(p in text for p in pseudonyms)
    assert [re.findall(r"Time: (day \d+ [0-9:]+ UTC)", t) for t in seen] == [
        ["day 1 15:00 UTC"],
        ["day 2 15:00 UTC"],
        ["day 3 15:00 UTC"],
        ["day 4 15:00 UTC"],
    ]


def test_without_mask_the_prompt_is_the_real_one(
    shared_data: Path, tmp_path: Path, fake: FakeProvider
) -> None:
    """C-2, C-3: without --mask the prompt names the real symbols, time and prices, as before."""
    market = _market(shared_data, tmp_path)
    db = f"sqlite:///{tmp_path / 'plain.db'}"
    _weights(market, db, f"m=openai:m@{fake.url}")
    first = _seen(fake.requests_for("m"))[0]
    prices = _round_prices(db)
    leaks = _leaks(first, SYMBOLS, _date_forms([START]), prices)
    assert leaks >= {*SYMBOLS, START.isoformat()}
    assert leaks & set(prices)
    assert _events(db, EventKind.MASK_DRAWN) == []


def _twin_scripts(tmp: Path, names: dict[str, str]) -> tuple[Path, Path]:
    """The same three answers, in the real space and through ``names`` in the masked one."""
    answers = [
        {"AAPL": 40, "MSFT": 30},
        {"NVDA": 55, "AAPL": 10},
        {"MSFT": 20},
    ]
    real, masked = tmp / "real.jsonl", tmp / "masked.jsonl"
    for path, rename in ((real, dict(zip(SYMBOLS, SYMBOLS, strict=True))), (masked, names)):
        lines = [
            json.dumps({"text": json.dumps({"targets": {rename[s]: w for s, w in a.items()},
                                            "reason": "twin"})})
            for a in answers
        ]  # fmt: skip
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return real, masked


def _fills(db: str) -> list[Any]:
    return [(e.payload["account"], e.payload["fill"]) for e in _events(db, EventKind.ORDER_FILLED)]


def test_a_masked_agent_and_its_unmasked_twin_end_alike(shared_data: Path, tmp_path: Path) -> None:
    """C-2: a scripted agent answering in pseudonyms and its twin answering the same in real
    symbols make the same fills and values; REPORT.json differs only by the mask it shows."""
    market = _market(shared_data, tmp_path)
    table = draw_mask(SEASON, SYMBOLS, START)
    real, masked = _twin_scripts(tmp_path, dict(table.names))
    reports = {}
    for label, script, extra in (("real", real, []), ("masked", masked, ["--mask"])):
        db = f"sqlite:///{tmp_path / f'{label}.db'}"
        out = tmp_path / f"{label}.json"
        _weights(
            market, db, f"s=scripted:{script}",
            extra=["--season", SEASON, "--out", str(out), *extra],
        )  # fmt: skip
        reports[label] = (json.loads(out.read_text(encoding="utf-8")), _fills(db))
    (real_report, real_fills), (masked_report, masked_fills) = reports["real"], reports["masked"]
    assert masked_fills == real_fills
    assert len(real_fills) > 3
    assert masked_report.pop("mask") == table.to_payload()  # shown once the replay has finished
    assert "mask" not in real_report
    # the raw answers are the agents' own words: the masked ones name pseudonyms
    unmasked = json.dumps(masked_report.pop("answers"))
    for real_symbol, pseudonym in table.names.items():
        unmasked = unmasked.replace(pseudonym, real_symbol)
    assert json.loads(unmasked) == real_report.pop("answers")
    assert masked_report == real_report


def test_verify_finds_a_tampered_mask_table(shared_data: Path, tmp_path: Path) -> None:
    """C-4: a mask table edited behind the triggers' back fails verify (the chain and the draw)."""
    market = _market(shared_data, tmp_path)
    db = f"sqlite:///{tmp_path / 'tamper.db'}"
    _weights(market, db, "cash=baseline:cash", extra=["--mask"])
    with open_store(db) as store:
        assert verify(store).ok
        (stored,) = [s for s in store.events() if s.event.kind == EventKind.MASK_DRAWN]
        forged = json.loads(json.dumps(stored.event.payload))
        a, b = forged["symbols"]["AAPL"], forged["symbols"]["MSFT"]
        a["as"], b["as"] = b["as"], a["as"]  # swap two pseudonyms
        with store.engine.begin() as conn:
            ddl = conn.execute(
                sa.text("SELECT sql FROM sqlite_master WHERE name = 'events_no_update'")
            ).scalar_one()
            conn.execute(sa.text("DROP TRIGGER events_no_update"))
            conn.execute(
                sa.text("UPDATE events SET payload = :p WHERE seq = :s"),
                {"p": json.dumps(forged, sort_keys=True, separators=(",", ":")), "s": stored.seq},
            )
            conn.execute(sa.text(ddl))
        report = verify(store)
    found = {(m.check, m.seq) for m in report.mismatches}
    assert ("mask", stored.seq) in found
    assert ("hash", stored.seq) in found
    result = CliRunner().invoke(app, ["verify", "--db", db])
    assert result.exit_code == 1


class _Stop(Exception):
    """Stands in for Ctrl-C after some rounds."""


def _masked_season(url: str, market: Path, stop_after: int | None) -> None:
    source = FrozenBarsSource(load_dataset(market, symbols=SYMBOLS))
    specs = ["equal=baseline:equal_weight", "coin=baseline:coin_flip", "mom=baseline:momentum"]

    def on_round(index: int, total: int, hour: datetime) -> None:
        if stop_after is not None and index + 1 == stop_after:
            raise _Stop

    async def play() -> None:
        parsed, agents, gateway = build_agents(specs, environ={}, season="resume-masked")
        roster = [
            RosterEntry(name=p.name, spec=s, division=Division.OPEN)
            for p, s in zip(parsed, specs, strict=True)
        ]
        try:
            with open_store(url) as store:
                await run_season(
                    store, source, roster, agents, season_id="resume-masked", start=START,
                    end=END, on_round=on_round, mask=True,
                )  # fmt: skip
        finally:
            if gateway is not None:
                await gateway.aclose()

    asyncio.run(play())


def _log(url: str) -> list[tuple[Any, ...]]:
    with open_store(url) as store:
        return [(s.seq, s.event.kind, s.event.payload_json, s.hash) for s in store.events()]


def test_a_resumed_masked_replay_writes_what_an_uninterrupted_one_does(
    shared_data: Path, tmp_path: Path
) -> None:
    """C-4: stopped after 2 of 4 rounds and run again, a masked season ends on the same log."""
    market = _market(shared_data, tmp_path)
    whole, resumed = f"sqlite:///{tmp_path / 'w.db'}", f"sqlite:///{tmp_path / 'r.db'}"
    _masked_season(whole, market, None)
    with pytest.raises(_Stop):
        _masked_season(resumed, market, 2)
    stopped = len(_log(resumed))
    _masked_season(resumed, market, None)
    assert 0 < stopped < len(_log(whole))
    assert _log(resumed) == _log(whole)
    assert [e.kind for e in _events(whole, EventKind.MASK_DRAWN)] == [EventKind.MASK_DRAWN]


def test_resuming_a_masked_season_unmasked_is_refused(shared_data: Path, tmp_path: Path) -> None:
    """A season is masked from its opening or not at all: the other setting is one sentence."""
    market = _market(shared_data, tmp_path)
    db = f"sqlite:///{tmp_path / 'm.db'}"
    _weights(market, db, "cash=baseline:cash", extra=["--mask", "--season", "s1"])
    args = [
        "replay", "weights", "--market", str(market), "--start", START.isoformat(),
        "--end", END.isoformat(), "--db", db, "--agent", "cash=baseline:cash", "--season", "s1",
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0
    said = " ".join((result.output + str(result.exception)).split())
    assert "season s1 was recorded masked; resume it with --mask" in said


def test_a_sweep_cell_with_mask_true_runs_masked(shared_data: Path, tmp_path: Path) -> None:
    """A ``mask = true`` season of a sweep file gives masked cells; the others stay unmasked."""
    market = _market(shared_data, tmp_path)
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(
        f"""
[weights.seasons.plain]
market = "{market}"
start = {START.isoformat()}
end = {END.isoformat()}

[weights.seasons.hidden]
market = "{market}"
start = {START.isoformat()}
end = {END.isoformat()}
mask = true

[weights.rosters]
cash = ["cash=baseline:cash"]
""",
        encoding="utf-8",
    )
    bad = tmp_path / "bad.toml"
    bad.write_text(sweep.read_text(encoding="utf-8").replace("mask = true", 'mask = "yes"'))
    with pytest.raises(
        ConfigError, match=r"mask in \[weights.seasons.hidden\] must be true or false"
    ):
        load_sweep(bad)
    cells = {cell.season: cell for cell in load_sweep(sweep).cells}
    assert "--mask" in cells["hidden"].options
    assert "--mask" not in cells["plain"].options
    reports = {}
    for name, cell in cells.items():
        folder = tmp_path / "out" / name
        ran = run_cell(cell.format, cell.replay_argv(folder), str(folder))
        assert ran["exit_code"] == 0, ran["error"]
        reports[name] = json.loads((folder / "REPORT.json").read_text(encoding="utf-8"))
        reports[name]["kinds"] = [e.kind for e in _events(f"sqlite:///{folder / 'store.db'}")]
    assert "mask" not in reports["plain"]
    assert EventKind.MASK_DRAWN not in reports["plain"]["kinds"]
    assert set(reports["hidden"]["mask"]["symbols"]) == set(SYMBOLS)
    assert EventKind.MASK_DRAWN in reports["hidden"]["kinds"]


D_START, D_END = "2025-10-01T06:00Z", "2025-10-01T06:20Z"  # four five-minute rounds
UP = '{"direction": "up", "rationale": "Higher lows."}'


@pytest.fixture
def candles(shared_data: Path, tmp_path: Path) -> Path:
    """The morning of 2025-10-01 cut from the one-minute candles (a quick read)."""
    folder = tmp_path / "crypto_1m"
    folder.mkdir()
    with gzip.open(shared_data / "crypto_1m" / "BTCUSDT.csv.gz", "rt", encoding="utf-8") as src:
        lines = [line for line in src if line.startswith(("timestamp", "2025-10-01T0"))]
    (folder / "BTCUSDT.csv").write_text("".join(lines), encoding="utf-8")
    return folder


def _direction(market: Path, db: str, *agents: str, extra: Sequence[str] = ()) -> Any:
    args = [
        "replay", "direction", "--market", str(market), "--start", D_START,
        "--end", D_END, "--db", db, "--no-check", *[x for a in agents for x in ("--agent", a)],
        *extra,
    ]  # fmt: skip
    result = CliRunner().invoke(app, args, env={"OPENAI_API_KEY": "sk-test", "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result


def _direction_prices(db: str) -> list[str]:
    """Every price a direction round showed, as its prompt prints it."""
    out: list[str] = []
    for e in _events(db, EventKind.ROUND_STARTED):
        micros = [int(e.payload["entry_price"])]
        for candle in e.payload["candles"]:
            micros += [usd(x) for x in candle[1:]]
        for m in micros:
            out += [format_price(Usd(m), min_places=1), format_price(Usd(m), min_places=2)]
    return out


def test_a_masked_direction_replay_names_no_asset_date_or_price(
    candles: Path, tmp_path: Path
) -> None:
    """C-2: with --mask the arena's prompt names a pseudonym for BTC, no day of the period and
    no price of the round's candles; without it, the asset and its prices as before."""
    with FakeProvider() as fake:
        fake.respond_with("m", lambda request: UP)
        masked, plain = f"sqlite:///{tmp_path / 'm.db'}", f"sqlite:///{tmp_path / 'p.db'}"
        _direction(candles, masked, f"m=openai:m@{fake.url}", extra=["--mask"])
        seen = _seen(fake.requests_for("m"))
        _direction(candles, plain, f"m=openai:m@{fake.url}")
        plain_seen = _seen(fake.requests_for("m"))[len(seen) :]
    assert len(seen) == len(plain_seen) == 4
    dates = _date_forms(date(2025, 10, 1) + timedelta(days=i) for i in range(-3, 3))
    prices = _direction_prices(masked)
    (drawn,) = _events(masked, EventKind.MASK_DRAWN)
    assert check_events(_events(masked), "direction") == []
    pseudonym = drawn.payload["symbols"]["BTCUSDT"]["as"]
    for text in seen:
        assert (
            _leaks(text, ["BTC", "BTCUSDT", "BTC/USD", "Bitcoin", "bitcoin"], dates, prices)
            == set()
        )
        assert f"Asset: {pseudonym}" in text
    assert "Asset: BTC/USD" in plain_seen[0]
    assert _leaks(plain_seen[0], [], [], _direction_prices(plain))


def test_a_masked_direction_agent_and_its_twin_end_alike(candles: Path, tmp_path: Path) -> None:
    """C-2: up/down needs no mapping: the same script masked and unmasked settles alike, and
    REPORT.json differs only by the mask it shows once the replay has finished."""
    script = tmp_path / "d.jsonl"
    script.write_text(
        "\n".join(json.dumps({"text": t}) for t in (UP, UP.replace("up", "down"), UP, "no")),
        encoding="utf-8",
    )
    reports = {}
    for label, extra in (("real", []), ("masked", ["--mask"])):
        out = tmp_path / f"{label}.json"
        db = f"sqlite:///{tmp_path / f'{label}.db'}"
        _direction(
            candles, db, f"s=scripted:{script}", "mom=baseline:momentum",
            extra=["--out", str(out), *extra],
        )  # fmt: skip
        reports[label] = json.loads(out.read_text(encoding="utf-8"))
    masked = reports["masked"]
    assert set(masked.pop("mask")["S1"]["symbols"]) == {"BTCUSDT"}
    assert masked == reports["real"]


T_START, T_END = date(2025, 3, 3), date(2025, 3, 5)  # two daily cycles


@pytest.fixture(scope="module")
def thesis_data(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The thesis bars cut to the months the two cycles show (a quick read)."""
    root = tmp_path_factory.mktemp("thesis")
    for folder, since in (("crypto_4h", "2024-07-01"), ("us_equities_daily", "2024-06-01")):
        (root / folder).mkdir()
        for path in (shared_data / folder).glob("*.csv"):
            with path.open(encoding="utf-8") as src:
                lines = [x for x in src if x.startswith("t") or since <= x[:10] < "2025-03-10"]
            (root / folder / path.name).write_text("".join(lines), encoding="utf-8")
    return root


def _thesis_args(data: Path, db: str, *agents: str) -> list[str]:
    return [
        "replay", "thesis", "--crypto", str(data / "crypto_4h"),
        "--stocks", str(data / "us_equities_daily"), "--start", T_START.isoformat(),
        "--end", T_END.isoformat(), "--db", db, "--no-check",
        *[x for a in agents for x in ("--agent", a)],
    ]  # fmt: skip


def _thesis_answer(decisions: list[dict[str, object]]) -> str:
    return json.dumps({
        "reasoning": "A level to lean on.",
        "market_context": {"overall_sentiment": "bullish", "key_factors": []},
        "decisions": decisions,
    })  # fmt: skip


def _thesis_model(request: ReceivedRequest) -> str:
    """Open a long on the first screened asset, and one on the wrong side (a correction)."""
    if len(request.messages) > 2:  # the correction round: nothing more
        return _thesis_answer([])
    body = json.loads(request.messages[-1].content)
    first, second = body["screened_and_held"][:2]
    decisions = [
        {"action": "open_long", "symbol": view["symbol"], "percent_of_equity": 10,
         "confidence": 0.8, "thesis": "t", "invalidation": "i",
         "invalidation_price": f"{Decimal(view['price']) * Decimal(factor):.2f}"}
        for view, factor in ((first, "0.9"), (second, "1.1"))
    ]  # fmt: skip
    return _thesis_answer(decisions)


def _thesis_prices(data: Path) -> tuple[list[str], list[str]]:
    """Every real price of the season's cycles as printed, and every real name shown."""
    from tradeleague.formats.thesis.universe import normalise
    from tradeleague.league.thesis.replay_run import ReplayRequest, plan

    checked = plan(
        ReplayRequest(
            crypto=data / "crypto_4h", stocks=data / "us_equities_daily",
            start=T_START.isoformat(), end=T_END.isoformat(), agents=["cash=baseline:cash"],
        )
    )  # fmt: skip
    prices = {
        micros_to_str(p)
        for moment in checked.times
        for p in checked.tape.picture(moment, ThesisPreset()).prices.values()
    }
    symbols = checked.tape.universe.all_symbols
    return sorted(prices), sorted({*symbols, *(normalise(s) for s in symbols)})


def test_a_masked_thesis_replay_shows_no_real_symbol_date_or_price(
    thesis_data: Path, tmp_path: Path
) -> None:
    """C-2, T-CYC-9: with --mask neither the cycle prompt nor the correction prompt (its
    rejections and fills) names a real symbol, a day of the period or a real price; the
    answers given by pseudonym trade the real assets, invalidation levels mapped back."""
    with FakeProvider() as fake:
        fake.respond_with("m", _thesis_model)
        db = f"sqlite:///{tmp_path / 't.db'}"
        args = _thesis_args(thesis_data, db, f"m=openai:m@{fake.url}")
        result = CliRunner().invoke(app, [*args, "--mask"], env={"OPENAI_API_KEY": "sk-test"})
        assert result.exit_code == 0, result.output
        requests = fake.requests_for("m")
    seen = _seen(requests)
    assert len(seen) == 4  # two cycles, each with its correction round
    assert any('"rejected"' in t and '"executed"' in t for t in seen)
    prices, symbols = _thesis_prices(thesis_data)
    dates = _date_forms(T_START + timedelta(days=i) for i in range(-200, 5))
    for text in seen:
        assert _leaks(text, symbols, dates, prices) == set()
    assert '"time":"day 1 ' in requests[0].messages[-1].content
    (drawn,) = _events(db, EventKind.MASK_DRAWN)
    assert check_events(_events(db), "thesis") == []
    table = mask_from_payload(drawn.payload)
    fills = [e.payload for e in _events(db, EventKind.ORDER_FILLED)]
    assert fills  # the pseudonym's long was opened on the real asset at the real price
    assert {f["fill"]["symbol"] for f in fills} <= set(table.names)


def _decimal(value: Fraction) -> Decimal:
    """A factor (thousandths) as an exact decimal."""
    return Decimal(value.numerator) / Decimal(value.denominator)


def test_a_masked_thesis_agent_and_its_unmasked_twin_end_alike(
    thesis_data: Path, tmp_path: Path
) -> None:
    """C-2: a scripted thesis agent answering by pseudonyms and shown levels, and its twin
    answering the same in real names and levels, make the same fills, monitor closes and
    REPORT.json figures (invalidation prices divided back to the cent, half-even)."""
    from tradeleague.formats.thesis.universe import load_universe

    season = "thesis-twin"
    table = draw_mask(season, load_universe().all_symbols, T_START)
    decisions = [  # (provider symbol, shown name, action, real invalidation level)
        ("BRK-B", "BRK.B", "open_long", Decimal("430.55")),
        ("ETHUSDT", "ETH", "open_short", Decimal("4100.10")),
        ("AAPL", "AAPL", "open_long", Decimal("400")),  # wrong side: rejected either way
    ]

    def script(masked: bool) -> Path:
        rows = [
            {"action": action, "percent_of_equity": 10, "confidence": 0.8, "thesis": "t",
             "invalidation": "i",
             "symbol": table.symbol(real) if masked else shown,
             "invalidation_price": str(level * _decimal(table.factors[real]) if masked else level)}
            for real, shown, action, level in decisions
        ]  # fmt: skip
        path = tmp_path / "s.jsonl"  # one path for both: the report names it
        lines = [_thesis_answer(rows), _thesis_answer([])]
        path.write_text("".join(json.dumps({"text": t}) + "\n" for t in lines), encoding="utf-8")
        return path

    reports = {}
    for masked in (False, True):
        db = f"sqlite:///{tmp_path / f'{masked}.db'}"
        out = tmp_path / f"{masked}.json"
        args = _thesis_args(thesis_data, db, f"s=scripted:{script(masked)}", "cash=baseline:cash")
        args += ["--season", season, "--out", str(out), *(["--mask"] if masked else [])]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        reports[masked] = (json.loads(out.read_text(encoding="utf-8")), _fills(db))
    (real, real_fills), (masked, masked_fills) = reports[False], reports[True]
    assert masked_fills == real_fills
    assert {f["symbol"] for _, f in real_fills} == {"BRK-B", "ETHUSDT"}
    assert masked.pop("mask") == table.to_payload()  # the season has ended
    assert "mask" not in real

    def figures(report: dict[str, Any]) -> str:
        """The report without the agents' own words (the masked ones name pseudonyms)."""
        text = json.dumps({k: v for k, v in report.items() if k != "answers"})
        return re.sub(r'"raw_answer": "(?:[^"\\]|\\.)*"', '"raw_answer": ""', text)

    assert figures(masked) == figures(real)


class _Reader:
    """An agent that reads its prompt (as a model does), keeps it, and calls up."""

    name = "reader"
    kind = "local"

    def __init__(self) -> None:
        self.prompts: list[str] = []

    async def answer(self, turn: Turn) -> AgentReply:
        self.prompts.append(turn.messages[-1].content)
        return AgentReply(outcome=Outcome.ANSWERED, text=UP, latency_ms=5)


def _masked_direction(candles: Path, url: str, stop_after: int | None) -> list[str]:
    """Replay the four masked rounds into ``url``, raising `_Stop` after ``stop_after``;
    return the prompts the reading agent got."""
    from dataclasses import replace

    from tradeleague.agents.spec import parse_agent_spec
    from tradeleague.league.direction.replay import replay_direction
    from tradeleague.league.direction.roster import contestant_of
    from tradeleague.llm.replay import RecordedAnswers, ReplayGateway

    dataset = load_dataset(candles, symbols=["BTCUSDT"])
    gateway = ReplayGateway(RecordedAnswers([]))
    specs = ["mom=baseline:momentum", "coin=baseline:coin_flip", "reader=baseline:up"]
    roster = [contestant_of(parse_agent_spec(s), gateway, "direction") for s in specs]
    reader = _Reader()
    roster[-1] = replace(roster[-1], agent=reader)

    def on_round(done: int, total: int, round_id: str) -> None:
        if stop_after is not None and done == stop_after:
            raise _Stop

    async def play() -> None:
        with open_store(url) as store:
            await replay_direction(
                store, dataset, roster, start=datetime.fromisoformat(D_START),
                end=datetime.fromisoformat(D_END), on_round=on_round, mask=True,
            )  # fmt: skip

    try:
        asyncio.run(play())
    finally:
        prompts = reader.prompts
    return prompts


def test_a_resumed_masked_direction_replay_writes_what_an_uninterrupted_one_does(
    candles: Path, tmp_path: Path
) -> None:
    """C-4: the arena takes its season's table up from the record when it resumes."""
    whole, resumed = f"sqlite:///{tmp_path / 'w.db'}", f"sqlite:///{tmp_path / 'r.db'}"
    seen = _masked_direction(candles, whole, None)
    with pytest.raises(_Stop):
        _masked_direction(candles, resumed, 2)
    stopped = len(_log(resumed))
    after = _masked_direction(candles, resumed, None)
    assert 0 < stopped < len(_log(whole))
    assert _log(resumed) == _log(whole)
    assert len(_events(whole, EventKind.MASK_DRAWN)) == 1
    assert after == seen[2:]  # the resumed rounds were shown the same masked picture
    assert all("BTC" not in p for p in seen)


def test_no_page_of_a_masked_season_shows_its_table(shared_data: Path, tmp_path: Path) -> None:
    """The table stays off the site: no page or JSON of the season names a pseudonym or factor."""
    from fastapi.testclient import TestClient

    from tradeleague.clock import WallClock
    from tradeleague.league.scenario import ScenarioService
    from tradeleague.site import create_site

    market = _market(shared_data, tmp_path)
    db = f"sqlite:///{tmp_path / 'site.db'}"
    _weights(market, db, "cash=baseline:cash", extra=["--mask", "--season", "hidden"])
    (drawn,) = _events(db, EventKind.MASK_DRAWN)
    secrets = [v["as"] for v in drawn.payload["symbols"].values()]
    secrets += [v["factor"] for v in drawn.payload["symbols"].values()]
    paths = [
        "/api/v1/weights", "/api/v1/weights/seasons/hidden",
        "/api/v1/weights/seasons/hidden/tables/open", "/api/v1/weights/seasons/hidden/agents/cash",
        "/api/v1/weights/seasons/hidden/market", "/weights", "/weights/hidden",
        "/weights/hidden/market", "/weights/hidden/agents/cash",
    ]  # fmt: skip
    import time

    t0 = time.perf_counter()
    store = open_store(db)
    try:
        app_ = create_site(ScenarioService(store, WallClock()))
        print("create", time.perf_counter() - t0)
        with TestClient(app_) as client:
            print("client", time.perf_counter() - t0)
            for path in paths:
                t0 = time.perf_counter()
                page = client.get(path)
                print(path, time.perf_counter() - t0)
                assert page.status_code == 200, path
                assert [s for s in secrets if s in page.text] == [], path
                assert "MaskDrawn" not in page.text
    finally:
        store.close()


def test_a_thesis_season_opens_masked_or_not_and_resumes_only_so(tmp_path: Path) -> None:
    """A masked thesis season records its table with its opening; resumed unmasked, it is
    refused in one sentence (and a plain season resumed with --mask likewise)."""
    from tradeleague.formats.thesis.universe import load_universe
    from tradeleague.league.thesis.cycle import CycleConfig
    from tradeleague.league.thesis.season import ThesisSeason

    def season(url: str, name: str, mask: bool) -> ThesisSeason:
        with open_store(url) as store:
            return ThesisSeason(
                store, load_universe(), [], {}, season_id=name, start=T_START, end=T_END,
                sources={}, replay=True, preset=ThesisPreset(), config=CycleConfig(), mask=mask,
            )  # fmt: skip

    url = f"sqlite:///{tmp_path / 's.db'}"
    opened = season(url, "m1", True)
    assert opened.state.mask == draw_mask("m1", load_universe().all_symbols, T_START)
    assert season(url, "m1", True).state.mask == opened.state.mask  # taken from the record
    with pytest.raises(ConfigError, match="season m1 was recorded masked; resume it with --mask"):
        season(url, "m1", False)
    season(url, "p1", False)
    with pytest.raises(ConfigError, match="recorded unmasked; resume it without --mask"):
        season(url, "p1", True)
