"""The store's command line: clear failures and a masked database summary (SPEC C-4)."""

from __future__ import annotations

import json
import re
import sys

import pytest
from typer.testing import CliRunner

from tradeleague.cli import app, main
from tradeleague.errors import StoreError
from tradeleague.store import mask_url, open_store


def _run_main(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["tradeleague", *args])
    with pytest.raises(SystemExit) as stop:
        main()
    code = stop.value.code
    assert isinstance(code, int)
    return code


@pytest.mark.parametrize(
    ("url", "sentence"),
    [
        ("postgresql+psycopg://nobody@127.0.0.1:1/x", "Cannot open"),
        ("sqlite:////nonexistent/dir/x.db", "no database at|folder .* does not exist"),
        ("not a url", "is not a database URL"),
        ("mysql://u@h/db", "supports sqlite and postgresql"),
    ],
)
def test_an_unusable_database_is_one_sentence_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], url: str, sentence: str
) -> None:
    for command in (["verify"], ["db", "info"], ["db", "upgrade"]):
        assert _run_main(monkeypatch, *command, "--db", url) == 2
        captured = capsys.readouterr()
        assert re.search(sentence, " ".join(captured.err.split()))
        assert "Traceback" not in captured.err + captured.out


def test_open_store_on_a_missing_folder_names_it() -> None:
    with pytest.raises(StoreError, match="does not exist"):
        open_store("sqlite:////nonexistent/dir/x.db")


def test_db_upgrade_then_info_masks_the_password(pg_url: str) -> None:
    """C-9 spirit: a password in a URL is never printed."""
    with_password = pg_url.replace("postgres@", "postgres:s3cret@", 1)
    assert "s3cret" not in mask_url(with_password)
    runner = CliRunner()
    upgraded = runner.invoke(app, ["db", "upgrade", "--db", with_password])
    assert upgraded.exit_code == 0, upgraded.output
    info = runner.invoke(app, ["db", "info", "--db", with_password, "--json"])
    assert info.exit_code == 0, info.output
    data = json.loads(info.output)
    assert "s3cret" not in info.output
    assert data["url"] == mask_url(with_password)
    assert (data["events"], data["head_seq"], data["up_to_date"]) == (0, 0, True)
    table = runner.invoke(app, ["db", "info", "--db", with_password])
    assert table.exit_code == 0
    assert "s3cret" not in table.output
    assert "schema revision" in table.output


def test_db_refresh_and_default_url_from_environment(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRADELEAGUE_DB", sqlite_url)
    runner = CliRunner()
    assert runner.invoke(app, ["db", "upgrade"]).exit_code == 0
    refreshed = runner.invoke(app, ["db", "refresh"])
    assert refreshed.exit_code == 0, refreshed.output
    assert "portfolio: 0 event(s) applied." in refreshed.output
    assert runner.invoke(app, ["verify"]).exit_code == 0
