"""Three replays whose REPORT.json must not change by a single byte (C-3, C-4).

The files in ``tests/pinned/`` were written by the code at commit ``abd1703``
(before the round engine and event vocabulary were unified) with exactly the
commands below, run from the repository root, and re-pinned once when every
seeded baseline began to draw from its own seed, derived from the season and its
name (issue 16): only the coin flippers' results moved; the weights reports once more
when their luckiest-of-N line became the no-skill null under the league's rules
(issue 16): only that line moved. Every refactoring since must
reproduce them byte for byte: a weights Open replay on daily bars, a weights
Pro replay on hourly bars and a direction replay on one-minute candles, each
with every baseline (coin flip included) and scripted agents giving valid and
invalid answers. No network, no house model.

Nothing in these reports is variable: no wall-clock time, no database path; the
scripted agents' files are named by paths relative to the repository root
(the direction report prints them), so the commands run from there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tradeleague.cli import app

ROOT = Path(__file__).resolve().parents[2]
PINNED = ROOT / "tests" / "pinned"
SCRIPTS = "tests/pinned/scripts"
BASELINES = [
    "cash=baseline:cash",
    "hold=baseline:buy_and_hold",
    "equal=baseline:equal_weight",
    "momentum=baseline:momentum",
    "coin=baseline:coin_flip",
]
OPEN_SYMBOLS = (
    "AAPL,AMZN,GOOGL,META,MSFT,NVDA,TSLA,QQQ,SGOV,SPY,USO,JPM,V,MA,COST,WMT,XOM,LLY,AVGO,NFLX"
)


def _agents(specs: list[str]) -> list[str]:
    return [arg for spec in specs for arg in ("--agent", spec)]


def weights_open_args(data: Path) -> list[str]:
    """Weights Open division, 20 symbols, 10 daily rounds."""
    scripted = [
        f"s_valid=scripted:{SCRIPTS}/weights_valid.jsonl",
        f"s_mixed=scripted:{SCRIPTS}/weights_mixed.jsonl",
        f"s_invalid=scripted:{SCRIPTS}/weights_invalid.jsonl",
    ]
    return [
        "replay", "weights", "--market", str(data / "us_equities_daily"),
        "--symbols", OPEN_SYMBOLS, "--start", "2026-07-06", "--end", "2026-07-20",
        "--division", "open", *_agents(BASELINES + scripted),
    ]  # fmt: skip


def weights_pro_args(data: Path) -> list[str]:
    """Weights Pro division, 7 symbols, 25 hourly rounds (five trading days)."""
    scripted = [
        f"s_valid=scripted:{SCRIPTS}/pro_valid.jsonl",
        f"s_mixed=scripted:{SCRIPTS}/pro_mixed.jsonl",
    ]
    return [
        "replay", "weights", "--market", str(data / "us_equities_1h"),
        "--start", "2026-05-18", "--end", "2026-05-23",
        "--division", "pro", *_agents(BASELINES + scripted),
    ]  # fmt: skip


def direction_args(data: Path) -> list[str]:
    """Direction arena, 24 five-minute rounds on BTCUSDT one-minute candles."""
    agents = [
        "up=baseline:up",
        "down=baseline:down",
        "momentum=baseline:momentum",
        "coin=baseline:coin_flip",
        f"s_valid=scripted:{SCRIPTS}/direction_valid.jsonl",
        f"s_mixed=scripted:{SCRIPTS}/direction_mixed.jsonl",
    ]
    return [
        "replay", "direction", "--market", str(data / "crypto_1m"),
        "--start", "2025-10-01T06:00Z", "--end", "2025-10-01T08:00Z",
        *_agents(agents), "--payout", "80",
    ]  # fmt: skip


CASES = {
    "weights_open": weights_open_args,
    "weights_pro": weights_pro_args,
    "direction": direction_args,
}


def _first_differences(want: object, got: object, path: str = "$", limit: int = 10) -> list[str]:
    """Return up to ``limit`` readable lines naming the first keys where two JSON values differ."""
    found: list[str] = []

    def walk(a: object, b: object, where: str) -> None:
        if len(found) >= limit:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for key in list(a) + [k for k in b if k not in a]:
                if key not in b:
                    found.append(f"{where}.{key}: pinned {a[key]!r}, now missing")
                elif key not in a:
                    found.append(f"{where}.{key}: not pinned, now {b[key]!r}")
                else:
                    walk(a[key], b[key], f"{where}.{key}")
            if list(a) != list(b) and not found:
                found.append(f"{where}: key order pinned {list(a)}, now {list(b)}")
            return
        if isinstance(a, list) and isinstance(b, list):
            for i, (x, y) in enumerate(zip(a, b, strict=False)):
                walk(x, y, f"{where}[{i}]")
            if len(a) != len(b):
                found.append(f"{where}: pinned {len(a)} items, now {len(b)}")
            return
        if a != b or type(a) is not type(b):
            found.append(f"{where}: pinned {a!r}, now {b!r}")

    walk(want, got, path)
    return found[:limit]


ADDED_SINCE_PIN = ("answers", "costs")
"""Top-level REPORT.json keys added on purpose after the pin, each a whole new section.

``answers`` (every call's answer text, latency, outcome and fault class) came with
the user-feedback work; ``costs`` (each agent's calls, tokens, inference cost and
return net of it) with the ranking work; their own tests cover them. Everything else must stay byte
for byte: the report is written as ``json.dumps(payload, indent=2)`` in key
order, so the report less these keys is written again exactly that way.
"""


def without_additions(report: bytes) -> bytes:
    """Return ``report`` without the keys of ``ADDED_SINCE_PIN``, written as the CLI writes it."""
    payload = json.loads(report)
    for key in ADDED_SINCE_PIN:
        assert key in payload, f"REPORT.json lost its {key!r} section"
        del payload[key]
    return (json.dumps(payload, indent=2) + "\n").encode()


def test_the_pinned_files_are_written_as_the_cli_writes_reports() -> None:
    """The comparison above is fair: each pinned file re-serialises to its own bytes."""
    for path in sorted(PINNED.glob("*.REPORT.json")):
        raw = path.read_bytes()
        assert (json.dumps(json.loads(raw), indent=2) + "\n").encode() == raw, path.name


def run_case(name: str, data: Path, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """Run the pinned command ``name`` into a fresh database under ``tmp``; return REPORT.json."""
    monkeypatch.chdir(ROOT)  # scripted paths are relative to the repository root
    out = tmp / f"{name}.json"
    args = [*CASES[name](data), "--db", f"sqlite:///{tmp / (name + '.db')}", "--out", str(out)]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return out.read_bytes()


@pytest.mark.shared_data
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_replay_report_matches_the_pinned_file_byte_for_byte(
    name: str, shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """C-3: the same replay writes the same REPORT.json as the pinned file."""
    got = without_additions(run_case(name, shared_data, tmp_path, monkeypatch))
    want = (PINNED / f"{name}.REPORT.json").read_bytes()
    if got == want:
        return
    pinned: Any = json.loads(want)
    now: Any = json.loads(got)
    lines = _first_differences(pinned, now) or ["same JSON values, different bytes (formatting)"]
    pytest.fail(f"{name} REPORT.json differs from tests/pinned:\n" + "\n".join(lines))


def test_first_differences_names_the_keys() -> None:
    """The diff helper points at the differing key paths, in order."""
    pinned = {"a": 1, "b": [{"c": "x"}, 2], "d": True}
    now = {"a": 1, "b": [{"c": "y"}], "e": None, "d": True}
    assert _first_differences(pinned, now) == [
        "$.b[0].c: pinned 'x', now 'y'",
        "$.b: pinned 2 items, now 1",
        "$.e: not pinned, now None",
    ]
