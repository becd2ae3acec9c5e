"""The scenario benchmark is a format shell: the shared layers beside it import none of it.

Issue "A format is one plug-in": the scenario service, its reads, routes and
MCP tools live in ``tradeleague.league.scenario``; ``api/`` keeps the generic
HTTP kit, ``mcp/`` the generic MCP adapter and ``accounts/`` the keys, tiers
and idempotency every service shares. None of them names the format: the
site's composition and the stdio MCP server find its parts through the
registry.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "tradeleague"

WAITING: dict[str, str] = {}
"""Modules allowed to name the scenario shell for now, and why."""

FORMATS = ("tradeleague.league.", "tradeleague.formats.")
INTERFACES = ("api", "web", "mcp", "cli", "host", "sweep")


def _imports(path: Path) -> list[str]:
    out: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
    return out


def _files(*packages: str) -> list[Path]:
    return [p for name in packages for p in sorted((PACKAGE / name).rglob("*.py"))]


@pytest.mark.parametrize("path", _files("api", "mcp"), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_http_and_mcp_kits_import_no_scenario_module(path: Path) -> None:
    name = str(path.relative_to(PACKAGE))
    bad = [
        m
        for m in _imports(path)
        if m.startswith(("tradeleague.league.scenario", "tradeleague.formats.scenario"))
    ]
    if name in WAITING:
        assert bad, f"{name} no longer names the scenario shell: drop it from WAITING"
        return
    assert bad == [], f"{name} imports the scenario format: {bad}"


@pytest.mark.parametrize("path", _files("accounts"), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_accounts_import_no_format_and_no_interface(path: Path) -> None:
    bad = [
        m
        for m in _imports(path)
        if m.startswith(FORMATS) or (m.startswith("tradeleague.") and m.split(".")[1] in INTERFACES)
    ]
    assert bad == [], f"{path.relative_to(PACKAGE)} imports above its layer: {bad}"


def test_the_old_service_package_is_gone() -> None:
    assert not list((PACKAGE / "api" / "service").glob("*.py"))  # a stale __pycache__ may stay
    assert not (PACKAGE / "api" / "reads.py").exists()
