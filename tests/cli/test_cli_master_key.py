"""A malformed master key stops ``serve`` and ``run`` at start, in one sentence (C-9).

Owners' keys are sealed under the operator's master key; a malformed one must
not be ignored until owners meet ``503 vault_unavailable``. Each command exits 2
before opening any database, naming the variable and the form it expects.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import run_cli  # type: ignore[import-not-found]

from tradeleague.keys import MASTER_KEY_ENV, MASTER_KEY_FILE_ENV, MasterKeyError, check_master_keys

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "command",
    [
        ["serve", "--db", "sqlite:///./league.db", "--port", "1"],
        ["run", "--config", str(ROOT / "examples" / "league.toml"), "--db", "sqlite:///./l.db"],
    ],
    ids=["serve", "run"],
)
def test_a_malformed_master_key_stops_the_command_at_start(
    command: list[str], tmp_path: Path
) -> None:
    """C-9: one sentence naming the variable and the form; nothing opened, no traceback."""
    done = run_cli(*command, cwd=tmp_path, timeout=120, **{MASTER_KEY_ENV: "not-a-key"})
    assert done.returncode == 2, done.stderr
    said = " ".join(done.stderr.split())
    assert said.startswith("error: TRADELEAGUE_MASTER_KEY is malformed"), said
    assert "32 bytes written in urlsafe base64 or hex" in said
    assert "Traceback" not in said
    assert "not-a-key" not in said
    assert list(tmp_path.iterdir()) == []  # no database was created


def test_an_absent_master_key_is_allowed_and_a_good_one_passes(tmp_path: Path) -> None:
    """C-9: no key configured means no owner keys are stored; valid keys pass the check."""
    check_master_keys({})
    check_master_keys({MASTER_KEY_ENV: "ab" * 32})
    keys = tmp_path / "master.keys"
    keys.write_text("zz\n", encoding="utf-8")
    with pytest.raises(MasterKeyError, match=f"{keys} is malformed"):
        check_master_keys({MASTER_KEY_FILE_ENV: str(keys)})
