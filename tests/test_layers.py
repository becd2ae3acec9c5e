"""The pure core imports nothing from the shell (DESIGN principle 1; docs/architecture.md).

The core is the primitives (money, clock, ids, events, errors, calls, disclaimer,
disclosure) and the packages ``sim``, ``stats``, ``market`` and ``formats``. The
shell (the league, agents, model gateway, feeds, broker, store, interfaces) may
import the core; the core may never import the shell, not even under
``TYPE_CHECKING``, so a format's rules can be read and tested without any of it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from layering.graph import ModuleGraph, read_graph  # type: ignore[import-not-found]
from layering.rules import (  # type: ignore[import-not-found]
    cycle_violations,
    format_name_violations,
    layer_violations,
    template_violations,
)

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "tradeleague"

CORE_MODULES = {
    "money",
    "clock",
    "ids",
    "events",
    "errors",
    "calls",
    "disclaimer",
    "disclosure",
    "untrusted",
}
CORE_PACKAGES = {"sim", "stats", "market", "formats"}
SHELL = {
    "agents",
    "api",
    "broker",
    "cli",
    "client",
    "demo",
    "feeds",
    "host",
    "keys",
    "league",
    "llm",
    "mcp",
    "store",
    "sweep",
    "testing",
    "web",
}


def _core_files() -> list[Path]:
    files: list[Path] = []
    for name in sorted(CORE_MODULES):
        module = PACKAGE / f"{name}.py"
        files.extend([module] if module.is_file() else sorted((PACKAGE / name).rglob("*.py")))
    for package in sorted(CORE_PACKAGES):
        files.extend(sorted((PACKAGE / package).rglob("*.py")))
    return files


def _imported(tree: ast.AST) -> list[str]:
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
    return out


def test_the_core_list_covers_real_files() -> None:
    files = _core_files()
    assert len(files) > 40
    assert all(f.is_file() for f in files)


@pytest.mark.parametrize("path", _core_files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_module_imports_no_shell(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = [
        name
        for name in _imported(tree)
        if name.startswith("tradeleague.") and name.split(".")[1] in SHELL
    ]
    assert bad == [], f"{path.relative_to(PACKAGE)} imports the shell: {bad}"


# The whole tree (issue: a format is one plug-in). The rules and the graph live in
# tests/layering/, and tests/layering/test_layering_checks.py plants violations in a
# copy of the tree to show each check fails on them.


def _keys() -> tuple[str, ...]:
    from tradeleague.plugin import keys

    return tuple(sorted({*keys(), "weights", "direction", "scenario", "thesis"}))


def _graph() -> ModuleGraph:
    return read_graph(PACKAGE)


def test_every_import_points_down_and_no_interface_imports_another() -> None:
    found = layer_violations(_graph(), _keys())
    assert found == [], "\n".join(map(str, found))


def test_no_import_cycle_even_inside_functions() -> None:
    found = cycle_violations(_graph(), _keys())
    assert found == [], "\n".join(map(str, found))


def test_shared_layers_never_compare_with_a_format_key() -> None:
    found = format_name_violations(_graph(), _keys())
    found += template_violations(PACKAGE / "web" / "templates", _keys())
    assert found == [], "\n".join(map(str, found))


def test_the_graph_sees_imports_inside_functions() -> None:
    graph = _graph()
    assert len(graph.files) > 250
    nested = {
        (i.source, i.target)
        for i in graph.imports
        if i.source == "tradeleague.store.event_store" and i.target == "tradeleague.store.refresh"
    }
    assert nested, "the lazy import of store.refresh inside Store is an edge of the graph"
