"""``tradeleague export`` and ``verify --bundle``: a season checked without the league's database.

Names: C-4 (the record is a hash chain; a changed event is found by its seq),
C-5 (a season can be audited from its record), S-SCN-2 (a scenario's bars are
the ones it was provisioned with; a changed bar is named). Each format's
smallest season is exported, verified from the bundle alone (the database is
deleted first), then one byte is changed in an event, a bar or a report
figure, or the wrong signer is pinned: each fails, naming what changed.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from tradeleague.accounts import Tier
from tradeleague.cli import app
from tradeleague.clock import ReplayClock
from tradeleague.events.scenario import SCENARIO_ORDERS_QUEUED
from tradeleague.league.scenario import ScenarioService, provision_from_market
from tradeleague.league.scenario.bundling import BUNDLE as SCENARIO_BUNDLE
from tradeleague.league.scenario.routes import create_app
from tradeleague.market import synthetic_dataset
from tradeleague.store import open_store
from tradeleague.store.bundle import EventMismatch, read_chain
from tradeleague.store.signing import generate_key

_ENV = {"COLUMNS": "200"}
Bundles = Callable[..., tuple[Path, Path | None]]
"""Export a format's season (and the shared data a replay reads): its bundle, replay report."""


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env=_ENV)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def signing(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """An Ed25519 key file and its public key."""
    path = tmp_path_factory.mktemp("key") / "head.key"
    return path, generate_key(path)


def _replay(folder: Path, fmt: str, *args: str) -> tuple[str, Path]:
    db = f"sqlite:///{folder / 'league.db'}"
    code, output = _cli(
        "replay", fmt, *args, "--no-check", "--db", db, "--out", str(folder / "r.json")
    )
    assert code == 0, output
    return db, folder / "r.json"


def _weights(data: Path, folder: Path) -> tuple[str, str, Path]:
    db, report = _replay(
        folder, "weights", "--market", str(data / "us_equities_daily"),
        "--symbols", "SPY,QQQ,AAPL", "--start", "2026-07-06", "--end", "2026-07-09",
        "--agent", "cash=baseline:cash", "--agent", "hold=baseline:buy_and_hold",
        "--agent", "coin=baseline:coin_flip", "--season", "W1",
    )  # fmt: skip
    return "W1", db, report


def _direction(data: Path, folder: Path) -> tuple[str, str, Path]:
    db, report = _replay(
        folder, "direction", "--market", str(data / "crypto_1m"),
        "--start", "2025-10-01T06:00Z", "--end", "2025-10-01T06:20Z",
        "--agent", "up=baseline:up", "--agent", "coin=baseline:coin_flip",
    )  # fmt: skip
    return "S1", db, report


def _thesis(data: Path, folder: Path) -> tuple[str, str, Path]:
    # The folders are copies removed after the replay: the auditor has the bundle alone
    # (a report over folders still at hand re-reads them; one without reads the record).
    crypto, stocks = folder / "crypto_4h", folder / "us_equities_daily"
    shutil.copytree(data / "crypto_4h", crypto)
    shutil.copytree(data / "us_equities_daily", stocks)
    db, report = _replay(
        folder, "thesis", "--crypto", str(crypto), "--stocks", str(stocks),
        "--start", "2025-03-03", "--end", "2025-03-06",
        "--agent", "hold=baseline:buy-and-hold", "--agent", "cash=baseline:cash", "--season", "T1",
    )  # fmt: skip
    shutil.rmtree(crypto)
    shutil.rmtree(stocks)
    return "T1", db, report


SYMBOLS = ("AAPL", "SPY", "TSLA")


def _scenario(folder: Path) -> tuple[str, str]:
    """Two runs of a 12-bar synthetic scenario over the REST API, one published."""
    db = f"sqlite:///{folder / 'scenario.db'}"
    service = ScenarioService(open_store(db), ReplayClock(datetime(2026, 3, 10, 12, tzinfo=UTC)))
    data = synthetic_dataset(len(SYMBOLS), 12, seed=7, symbols=SYMBOLS)
    scenario = provision_from_market(
        service, "syn", data, SYMBOLS, datetime(2024, 1, 2, tzinfo=UTC),
        datetime(2025, 1, 1, tzinfo=UTC), leverage_cap=2, allow_short=True,
    )  # fmt: skip
    key = service.create_key("alice", Tier.PRO)
    firsts = ({"symbol": "SPY", "side": "buy", "quantity": 10},
              {"symbol": "TSLA", "side": "short", "quantity": 3})  # fmt: skip
    try:
        with TestClient(create_app(service), headers={"X-API-Key": key}) as api:
            for n, first in enumerate(firsts):
                run = api.post("/api/v1/runs", json={"scenario": scenario.id}).json()["id"]
                assert api.post(f"/api/v1/runs/{run}/trades", json={"orders": [first]}).is_success
                steps = 0
                while not api.post(f"/api/v1/runs/{run}/step").json()["done"]:
                    steps += 1
                    if steps == 3:
                        more = {"orders": [{"symbol": "AAPL", "side": "buy", "quantity": 2}]}
                        assert api.post(f"/api/v1/runs/{run}/trades", json=more).is_success
                if n == 0:
                    assert api.post(f"/api/v1/runs/{run}/publish").is_success
    finally:
        service.store.close()
    return scenario.id, db


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory, signing: tuple[Path, str]) -> Bundles:
    """Export each format's season once (on first use); return its bundle and replay report."""
    made: dict[str, tuple[Path, Path | None]] = {}

    def bundle(fmt: str, data: Path | None = None) -> tuple[Path, Path | None]:
        if fmt in made:
            return made[fmt]
        folder = tmp_path_factory.mktemp(fmt)
        report: Path | None = None
        if fmt == "scenario":
            season, db = _scenario(folder)
        else:
            assert data is not None, "a replayed season reads ../shared/data"
            build = {"weights": _weights, "direction": _direction, "thesis": _thesis}[fmt]
            season, db, report = build(data, folder)
        out = folder / "bundle"
        code, output = _cli(
            "export", "--season", season, "--out", str(out), "--key", str(signing[0]), "--db", db
        )
        assert code == 0, output
        assert f"verify --bundle {out} --signer {signing[1]}" in output
        for path in folder.glob("*.db"):  # the auditor has no database
            path.unlink()
        made[fmt] = (out, report)
        return made[fmt]

    return bundle


def _copy(bundle: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(bundle, copy)
    return copy


def _verify(folder: Path, *extra: str) -> tuple[int, str]:
    return _cli("verify", "--bundle", str(folder), *extra)


def _one_sentence(output: str) -> str:
    return " ".join(output.split())


@pytest.mark.shared_data
@pytest.mark.parametrize("fmt", ["weights", "direction", "thesis"])
def test_a_replayed_season_round_trips_c_5(
    fmt: str,
    shared_data: Path,
    bundles: Bundles,
    signing: tuple[Path, str],
) -> None:
    """C-5: the bundle verifies with no database; its REPORT.json is the replay's own."""
    out, replayed = bundles(fmt, shared_data)
    assert replayed is not None
    bundled = json.loads((out / "REPORT.json").read_text(encoding="utf-8"))
    assert bundled == json.loads(replayed.read_text(encoding="utf-8"))
    assert (
        "tradeleague verify --bundle . --signer " + signing[1] in (out / "README.txt").read_text()
    )
    code, output = _cli("verify", "--bundle", str(out), "--signer", signing[1], "--json")
    assert code == 0, output
    checked = json.loads(output)
    assert checked["ok"] is True
    assert checked["signer_pinned"] is True
    assert checked["report_figures"] > 10  # the recomputation compared real figures


def test_a_scenario_round_trips_with_its_bars_s_scn_2(
    bundles: Bundles, signing: tuple[Path, str]
) -> None:
    """S-SCN-2: a scenario's runs verify against its bundled bars; the report holds both runs."""
    out, _ = bundles("scenario")
    code, output = _verify(out, "--signer", signing[1])
    assert code == 0, output
    report = json.loads((out / "REPORT.json").read_text(encoding="utf-8"))
    runs = report["runs"]
    assert [r["status"] for r in runs] == ["complete", "complete"]
    assert runs[0]["published_at"] is not None
    assert runs[1]["published_at"] is None
    assert all(r["account"] == "alice" and len(r["equity"]) == report["bars"] for r in runs)
    assert {r["results"]["final_equity"] for r in runs} != {
        r["results"]["starting_cash"] for r in runs
    }
    assert sorted(p.name for p in (out / "market").iterdir()) == ["bars.jsonl", "scenario.json"]


@pytest.mark.shared_data
def test_one_byte_changed_in_an_event_names_its_seq_c_4(
    shared_data: Path, bundles: Bundles, tmp_path: Path
) -> None:
    """C-4: a price read edited by one digit fails, naming the event's seq."""
    out, _ = bundles("weights", shared_data)
    copy = _copy(out, tmp_path)
    lines = (copy / "events.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if '"kind":"PriceRead"' in line)
    seq = json.loads(lines[index])["seq"]
    lines[index] = re.sub(
        r'"price":"(\d)', lambda m: f'"price":"{(int(m[1]) + 1) % 10}', lines[index], count=1
    )
    (copy / "events.jsonl").write_text("".join(lines), encoding="utf-8")
    code, output = _verify(copy)
    assert code == 1
    assert f"The event at seq {seq} (line {index + 1} of events.jsonl) does not match its hash" in (
        _one_sentence(output)
    )


@pytest.mark.shared_data
def test_one_byte_changed_in_a_report_figure_names_the_field(
    shared_data: Path, bundles: Bundles, tmp_path: Path
) -> None:
    """A report's return changed by one digit fails, naming the field and both values."""
    out, _ = bundles("thesis", shared_data)
    copy = _copy(out, tmp_path)
    report = json.loads((copy / "REPORT.json").read_text(encoding="utf-8"))
    board = report["board"][0]
    name = next(
        k for k, v in board.items() if isinstance(v, str) and re.fullmatch(r"-?\d+\.\d+", v)
    )
    value = board[name]
    changed = value[:-1] + str((int(value[-1]) + 1) % 10)
    board[name] = changed  # the file is written as export writes it: one digit differs
    (copy / "REPORT.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    code, output = _verify(copy)
    assert code == 1
    assert (
        f'FAILED: REPORT.json\'s board[0].{name} is "{changed}", the events give "{value}".'
        in _one_sentence(output)
    )


def _bars(copy: Path) -> list[dict[str, int | str]]:
    return [json.loads(line) for line in (copy / "market" / "bars.jsonl").read_text().splitlines()]


def _write_bars(copy: Path, rows: list[dict[str, int | str]]) -> None:
    text = "".join(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n" for r in rows)
    (copy / "market" / "bars.jsonl").write_text(text, encoding="utf-8")


def test_one_byte_changed_in_a_bar_names_the_bar_s_scn_2(bundles: Bundles, tmp_path: Path) -> None:
    """S-SCN-2: a held symbol's close changed by one micro-dollar fails, naming the bar."""
    out, _ = bundles("scenario")
    copy = _copy(out, tmp_path)
    rows = _bars(copy)
    row = next(r for r in rows if r["symbol"] == "SPY" and r["index"] == 5)
    row["close"] = int(row["close"]) + 1
    _write_bars(copy, rows)
    code, output = _verify(copy)
    sentence = _one_sentence(output)
    assert code == 1
    replayed = r"The event at seq \d+ contradicts the run's replay on the bundled bars: "
    assert re.search(replayed + r"the completion records the equity at bar 5 \(", sentence)
    assert "but the run's orders on the scenario's bars give" in sentence

    copy = _copy(out, tmp_path / "open")
    rows = _bars(copy)
    row = next(r for r in rows if r["symbol"] == "SPY" and r["index"] == 1)  # the first fill's bar
    row["open"] = int(row["open"]) + 1
    _write_bars(copy, rows)
    code, output = _verify(copy)
    assert code == 1
    fills = r"the log fills SPY at (\d+) micro-dollars at bar 1 \([^)]+\), but the run's orders "
    found = re.search(fills + r"on the scenario's bars give (\d+)", _one_sentence(output))
    assert found is not None, _one_sentence(output)
    assert found[1] != found[2]

    copy = _copy(out, tmp_path / "volume")
    rows = _bars(copy)
    rows[0]["volume"] = (
        int(rows[0]["volume"]) + 1
    )  # read by no fill: only the content hash holds it
    _write_bars(copy, rows)
    code, output = _verify(copy)
    assert code == 1
    assert "are not the ones scenario" in _one_sentence(output)


def test_a_rechained_bundle_whose_fills_no_order_gives_fails_s_fil_1(
    bundles: Bundles, tmp_path: Path
) -> None:
    """S-FIL-1: each run is replayed from its queued orders, not only its fills priced.

    A bundle re-chained (and re-signed by another key) without the events that
    queued the orders still holds fills at the right prices; the replay of the
    run's orders on the bundled bars gives no such fill, and says so.
    """
    out, _ = bundles("scenario")
    season = json.loads((out / "REPORT.json").read_text(encoding="utf-8"))["scenario"]
    market = {p.name: p.read_text(encoding="utf-8") for p in (out / "market").iterdir()}
    kept = [s.event for s in read_chain(out) if s.event.kind != SCENARIO_ORDERS_QUEUED]
    with open_store(f"sqlite:///{tmp_path / 'forged.db'}") as forged:
        forged.append(kept)
        with pytest.raises(EventMismatch) as refused:
            SCENARIO_BUNDLE.report(forged, season, market)
    assert "contradicts the run's replay on the bundled bars: the log has a fill at bar" in str(
        refused.value
    )
    assert "that the run's orders do not give" in str(refused.value)


def test_the_wrong_signer_or_a_forged_head_fails(
    bundles: Bundles,
    signing: tuple[Path, str],
    tmp_path: Path,
) -> None:
    """Pinned to another key, or with the signed head edited, the bundle is refused."""
    out, _ = bundles("scenario")
    other = generate_key(tmp_path / "other.key")
    code, output = _verify(out, "--signer", other)
    assert code == 1
    assert f"signed by key {signing[1]}, not by the key given" in _one_sentence(output)

    copy = _copy(out, tmp_path)
    head = json.loads((copy / "head.json").read_text())
    head["seq"] -= 1
    (copy / "head.json").write_text(json.dumps(head))
    code, output = _verify(copy)
    assert code == 1
    assert "does not match its head" in _one_sentence(output)

    copy = _copy(out, tmp_path / "cut")
    lines = (copy / "events.jsonl").read_text().splitlines(keepends=True)
    (copy / "events.jsonl").write_text("".join(lines[:-1]))  # the last event cut
    code, output = _verify(copy)
    assert code == 1
    assert "but the bundle's events end at" in _one_sentence(output)


def test_help_teaches_export_and_verify_bundle() -> None:
    """Both commands' help explain the bundle and show an example."""
    code, output = _cli("export", "--help")
    assert code == 0
    assert "tradeleague export --season S1 --out bundle-S1 --key head.key" in output
    assert "verify --bundle" in output
    code, output = _cli("verify", "--help")
    assert code == 0
    assert "tradeleague verify --bundle bundle-S1 --signer" in output


def test_export_refuses_an_unknown_season_and_verify_a_missing_folder(
    tmp_path: Path, signing: tuple[Path, str]
) -> None:
    """Each refusal is one sentence: no such season, no such bundle, no key nor head."""
    db = f"sqlite:///{tmp_path / 'empty.db'}"
    with open_store(db):
        pass
    from tradeleague.errors import ConfigError

    with pytest.raises(ConfigError, match="The store holds no season 'nope'"):
        _cli(
            "export",
            "--season",
            "nope",
            "--out",
            str(tmp_path / "b"),
            "--key",
            str(signing[0]),
            "--db",
            db,
        )
    with pytest.raises(ConfigError, match="Give exactly one of --key"):
        _cli("export", "--season", "nope", "--out", str(tmp_path / "b"), "--db", db)
    with pytest.raises(ConfigError, match="There is no bundle folder at"):
        _cli("verify", "--bundle", str(tmp_path / "absent"))


def test_export_to_a_published_signed_head(tmp_path: Path, signing: tuple[Path, str]) -> None:
    """A head the host (or `db sign-head`) published ends the bundle; it verifies under its key."""
    season, db = _scenario(tmp_path)
    head = tmp_path / "head.json"
    code, output = _cli("db", "sign-head", "--key", str(signing[0]), "--out", str(head), "--db", db)
    assert code == 0, output
    out = tmp_path / "bundle"
    code, output = _cli(
        "export", "--season", season, "--out", str(out), "--head", str(head), "--db", db
    )
    assert code == 0, output
    assert json.loads((out / "head.json").read_text()) == json.loads(head.read_text())
    code, output = _verify(out, "--signer", signing[1])
    assert code == 0, output
