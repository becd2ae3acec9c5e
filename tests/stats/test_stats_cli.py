"""``tradeleague stats luck``: the seed's luck calculator on the command line.

Rules: D-LCK-1, D-LCK-2, D-LCK-3, D-SCO-6, ST-3 (numbers from seed 001, section 07), C-1.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tradeleague import DISCLAIMER
from tradeleague.cli import app, main
from tradeleague.errors import ConfigError

SEED_ARGS = ["stats", "luck", "--hit-rate", "53.1", "--trades", "750"]
SEED_JSON = {
    "ci_low": 49.5,
    "ci_high": 56.7,
    "half_width": 3.6,
    "contains_coin_flip": True,
    "break_even": 55.56,
    "ev_per_round_at_coin_flip": -1.0,
    "trades_to_prove": 2040,
    "days_to_prove": 7.6,
    "luckiest_of_n": 53.2,
}
WIDE = {"COLUMNS": "200"}


def test_json_is_exactly_the_seed_numbers() -> None:
    """D-LCK-1..3, D-SCO-6, ST-3: --json prints one object equal to the seed's figures."""
    result = CliRunner().invoke(app, [*SEED_ARGS, "--json"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0]) == SEED_JSON


def test_json_follows_the_options() -> None:
    """D-LCK-2, D-LCK-3, D-SCO-6: models, payout, stake and rounds per day change the figures."""
    args = [*SEED_ARGS, "--models", "1", "--payout", "100", "--stake", "2.5"]
    result = CliRunner().invoke(app, [*args, "--rounds-per-day", "100", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["luckiest_of_n"] == 50.0
    assert figures["break_even"] == 50.0
    assert figures["ev_per_round_at_coin_flip"] == 0.0
    assert figures["days_to_prove"] == 20.4


def test_table_for_people_explains_each_number() -> None:
    """D-LCK-1..3, D-SCO-6, C-1: the seed's numbers, its verdict wording and the disclaimer."""
    result = CliRunner().invoke(app, SEED_ARGS, env=WIDE)
    assert result.exit_code == 0, result.output
    out = result.stdout
    for text in (
        "49.5 - 56.7%",
        "+/- 3.6 points",
        "55.56%",
        "-$1.00",
        "2,040",
        "about 7.6 days",
        "luckiest of 15 coin flips",
        "53.2%",
        "expected top score with no skill at all",
        "Indistinguishable from chance.",
        "It is consistent with skill and equally consistent with a lucky coin.",
        DISCLAIMER,
    ):
        assert text in out, text


def test_a_proven_rate_reads_as_distinguishable() -> None:
    """D-LCK-1: an interval that excludes 50% says so, and names the side."""
    above = CliRunner().invoke(app, ["stats", "luck", "--hit-rate", "58", "--trades", "3000"])
    assert "Distinguishable from chance." in " ".join(above.stdout.split())
    below = CliRunner().invoke(app, ["stats", "luck", "--hit-rate", "40", "--trades", "3000"])
    assert "on the wrong side" in " ".join(below.stdout.split())


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--hit-rate", "150", "--trades", "750"], "--hit-rate"),
        (["--hit-rate", "-1", "--trades", "750"], "--hit-rate"),
        (["--hit-rate", "nan", "--trades", "750"], "--hit-rate"),
        (["--hit-rate", "50", "--trades", "750"], "--hit-rate"),
        (["--hit-rate", "53.1", "--trades", "0"], "--trades"),
        (["--hit-rate", "53.1", "--trades", "750", "--payout", "0"], "--payout"),
        (["--hit-rate", "53.1", "--trades", "750", "--models", "0"], "--models"),
        (["--hit-rate", "53.1", "--trades", "750", "--stake", "-10"], "--stake"),
        (["--hit-rate", "53.1", "--trades", "750", "--rounds-per-day", "0"], "--rounds-per-day"),
    ],
)
def test_bad_input_is_a_config_error_naming_the_option(args: list[str], option: str) -> None:
    """D-LCK-1, D-LCK-2: bad input raises ConfigError with one sentence naming the option."""
    result = CliRunner().invoke(app, ["stats", "luck", *args])
    assert isinstance(result.exception, ConfigError)
    message = str(result.exception)
    assert message.startswith(f"{option}: ")
    assert message.endswith(".")
    assert "\n" not in message


def test_main_turns_bad_input_into_one_sentence_and_status_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """D-LCK-2: through the real entry point, 50% is one sentence and exit status 2."""
    monkeypatch.setenv("COLUMNS", "200")
    argv = ["tradeleague", "stats", "luck", "--hit-rate", "50", "--trades", "750"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip().splitlines() == [
        "error: --hit-rate: a hit rate of exactly 50 is a coin flip: no number of trades can "
        "prove it differs from one."
    ]


def test_help_teaches_the_options_with_the_seed_example() -> None:
    """D-LCK-1..3: both help pages name every option and carry the seed's example."""
    group = CliRunner().invoke(app, ["stats", "--help"], env=WIDE)
    assert group.exit_code == 0
    assert "luck" in group.stdout
    assert "--hit-rate 53.1 --trades 750" in group.stdout
    luck = CliRunner().invoke(app, ["stats", "luck", "--help"], env=WIDE)
    assert luck.exit_code == 0
    text = " ".join(luck.stdout.split())
    for option in ("--hit-rate", "--trades", "--models", "--payout", "--stake", "--json"):
        assert option in text
    assert "--rounds-per-day" in text
    assert "53.2% for the luckiest of 15 coin flips" in text


def _console_script() -> list[str]:
    script = Path(sys.executable).with_name("tradeleague")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from tradeleague.cli import main; main()"]


def test_installed_command_prints_the_seed_json() -> None:
    """D-LCK-1..3, D-SCO-6: the installed ``tradeleague`` prints exactly the seed's JSON."""
    done = subprocess.run(
        [*_console_script(), *SEED_ARGS, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == SEED_JSON
    assert done.stdout.count("\n") == 1
    bad = subprocess.run(
        [*_console_script(), "stats", "luck", "--hit-rate", "101", "--trades", "750"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr
    assert "error: --hit-rate: the hit rate is a percent from 0 to 100" in bad.stderr
