"""The layering and format-name checks fail on planted violations (tests of the tests).

Each case copies the real package to a scratch folder, plants one violation in a
real module (an import inside a function, a comparison with a format key, a
template test, a cycle) and runs the same checks ``tests/test_layers.py`` runs:
the check must name the planted line, and only it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from layering.graph import read_graph  # type: ignore[import-not-found]
from layering.rules import (  # type: ignore[import-not-found]
    Violation,
    cycle_violations,
    format_name_violations,
    layer_violations,
    template_violations,
)

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "tradeleague"
KEYS = ("weights", "direction", "scenario", "thesis")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the real package, and the violations the real tree already has (none)."""
    root = tmp_path_factory.mktemp("pristine") / "tradeleague"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _plant(pristine: Path, tmp_path: Path, relative: str, text: str) -> Path:
    root = tmp_path / "tradeleague"
    shutil.copytree(pristine, root)
    target = root / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("a", encoding="utf-8") as out:
        out.write("\n" + text)
    return root


def _new(check: Callable[[Path], list[Violation]], pristine: Path, planted: Path) -> list[str]:
    before = {str(v) for v in check(pristine)}
    return [str(v) for v in check(planted) if str(v) not in before]


def _layers(root: Path) -> list[Violation]:
    return list(layer_violations(read_graph(root), KEYS))


def _cycles(root: Path) -> list[Violation]:
    return list(cycle_violations(read_graph(root), KEYS))


def _names(root: Path) -> list[Violation]:
    found = list(format_name_violations(read_graph(root), KEYS))
    return found + list(template_violations(root / "web" / "templates", KEYS))


@pytest.mark.parametrize(
    ("relative", "text", "expected"),
    [
        (
            "web/planted.py",
            "def f() -> None:\n    from tradeleague.api import errors  # inside a function\n",
            "interface web imports interface api",
        ),
        (
            "host/planted.py",
            "def f() -> None:\n    import tradeleague.league.weights.state\n",
            "shared layer host imports format league.weights",
        ),
        (
            "sweep/planted.py",
            "from tradeleague.formats.thesis import preset\n",
            "shared layer sweep imports format formats.thesis",
        ),
        (
            "store/planted.py",
            "from tradeleague.host import runner\n",
            "from a higher layer",
        ),
        (
            "formats/weights/planted.py",
            "import importlib\nimportlib.import_module('tradeleague.llm.gateway')\n",
            "from a higher layer",
        ),
        ("newlayer/__init__.py", "X = 1\n", "has no layer in RANKS"),
    ],
)
def test_a_planted_import_breaks_the_layers(
    pristine: Path, tmp_path: Path, relative: str, text: str, expected: str
) -> None:
    planted = _plant(pristine, tmp_path, relative, text)
    new = _new(_layers, pristine, planted)
    assert len(new) == 1, new
    assert expected in new[0]


def test_a_planted_cycle_through_a_function_is_found(pristine: Path, tmp_path: Path) -> None:
    planted = _plant(
        pristine,
        tmp_path,
        "money.py",
        "def _late() -> None:\n    from tradeleague import ids  # noqa\n",
    )
    ids = planted / "ids.py"
    ids.write_text(ids.read_text(encoding="utf-8") + "\nfrom tradeleague import money  # noqa\n")
    new = _new(_cycles, pristine, planted)
    assert any("tradeleague.ids" in v and "tradeleague.money" in v for v in new), new


def test_an_import_only_for_type_checking_makes_no_cycle(pristine: Path, tmp_path: Path) -> None:
    planted = _plant(
        pristine,
        tmp_path,
        "money.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tradeleague import ids\n",
    )
    ids = planted / "ids.py"
    ids.write_text(ids.read_text(encoding="utf-8") + "\nfrom tradeleague import money  # noqa\n")
    assert _new(_cycles, pristine, planted) == []


@pytest.mark.parametrize(
    ("relative", "text"),
    [
        ("host/planted.py", "def f(fmt: str) -> bool:\n    return fmt == 'weights'\n"),
        ("web/planted.py", "def f(name: str) -> bool:\n    return name in ('thesis', 'x')\n"),
        ("sweep/planted.py", "def f(k: str) -> bool:\n    return 'scenario' != k\n"),
        (
            "cli/planted.py",
            "def f(k: str) -> int:\n    match k:\n        case 'direction':\n"
            "            return 1\n        case _:\n            return 0\n",
        ),
        ("web/templates/planted.html", '{% if m.format == "weights" %}x{% endif %}\n'),
    ],
)
def test_a_planted_format_name_is_found(
    pristine: Path, tmp_path: Path, relative: str, text: str
) -> None:
    planted = _plant(pristine, tmp_path, relative, text)
    new = _new(_names, pristine, planted)
    assert len(new) == 1, new
    assert "compares with the format key" in new[0]


def test_a_format_may_name_itself_in_its_own_package(pristine: Path, tmp_path: Path) -> None:
    planted = _plant(
        pristine,
        tmp_path,
        "league/weights/planted.py",
        "def f(k: str) -> bool:\n    return k == 'weights'\n",
    )
    assert _new(_names, pristine, planted) == []
