"""The CLI asks the formats for their parts through the registry (issue 23).

``demo``, ``stats null`` and ``verify`` import no format's package: each loops
over the installed formats and asks for the part it needs.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from tradeleague.cli import main
from tradeleague.cli.demo import demo_parts
from tradeleague.cli.plugin import DemoPart, NullPart
from tradeleague.plugin import formats

_SRC = Path(__file__).resolve().parents[2] / "src" / "tradeleague"


def _methods(protocol: type) -> set[str]:
    return {name for name, _ in inspect.getmembers(protocol, inspect.isfunction)} - {
        "__init__",
        "_no_init_or_replace_init",
    }


def test_each_part_has_what_its_protocol_asks_for() -> None:
    """Every ``demo`` and ``null`` part has the protocol's methods; ``projections`` is callable."""
    for fmt in formats():
        if fmt.has("demo"):
            part = fmt.part("demo")
            assert all(callable(getattr(part, m, None)) for m in _methods(DemoPart)), fmt.key
        if fmt.has("null"):
            part = fmt.part("null")
            assert all(callable(getattr(part, m, None)) for m in _methods(NullPart)), fmt.key
        if fmt.has("projections"):
            assert callable(fmt.part("projections")), fmt.key


def test_the_demo_plays_the_formats_that_offer_one_in_registry_order() -> None:
    offering = [fmt for fmt in formats() if fmt.has("demo")]
    assert len(demo_parts()) == len(offering) >= 2
    assert [f.order for f in offering] == sorted(f.order for f in offering)


def test_stats_null_of_a_format_without_a_null_is_one_sentence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A format with no null part is refused before any bars are read, naming those with one."""
    without = next(f.key for f in formats() if not f.has("null"))
    with pytest.raises(SystemExit) as exit_info:
        main(["stats", "null", "--format", without, "--market", str(tmp_path),
              "--start", "2025-06-02", "--end", "2025-06-09"])  # fmt: skip
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"--format '{without}': the null runs the" in err
    assert all(f.key in err for f in formats() if f.has("null"))


def test_the_cli_and_the_sweep_name_no_format() -> None:
    """No module of the CLI or the sweep imports a format's package or compares a format's key."""
    keys = "|".join(re.escape(f.key) for f in formats())
    named = re.compile(rf"tradeleague\.(league|formats|events)\.({keys})\b|[=!]= \"({keys})\"")
    bad = []
    for path in sorted([*_SRC.glob("cli/*.py"), *_SRC.glob("sweep/*.py")]):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if named.search(line):
                bad.append(f"{path.relative_to(_SRC)}:{number}: {line.strip()}")
    assert bad == []
