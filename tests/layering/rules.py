"""The project's layers, and the checks that hold the import graph to them.

Layers, top to bottom (an import may go down or sideways, never up):

- ``cli`` (argument parsing), then ``site`` (the served app's composition);
- each format's shell, ``league/<key>/``: a plug-in, above the shared layers it
  extends (its pages use the web kit, its driver the host's protocol), reached by
  them only through the registry;
- the interfaces' kits ``api``, ``web``, ``mcp``, which never import one another;
- ``host`` and ``sweep``; then the shared shell ``league`` (turns, pacing,
  answers), ``plugin`` (the registry), ``terminal`` and ``accounts``;
- adapters (agents, llm, feeds, broker, store, keys, client, testing);
- each format's pure rules ``formats/<key>/``; ``sim``, ``stats``, ``market``;
  ``events`` (with each format's ``events/<key>.py``); the primitives.

The shared layers never import one format's packages and never compare a value
with a format's key: they loop over the registry.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from layering.graph import ModuleGraph, cycles  # type: ignore[import-not-found]

__all__ = [
    "INTERFACES",
    "RANKS",
    "SHARED",
    "Violation",
    "cycle_violations",
    "format_name_violations",
    "layer_violations",
    "node_of",
    "template_violations",
]

FORMAT_SHELL_RANK = 8
FORMAT_RULES_RANK = 3
FORMAT_EVENTS_RANK = 1

RANKS: dict[str, int] = {
    "cli": 10,
    "site": 9,
    "api": 7,
    "web": 7,
    "mcp": 7,
    "host": 6,
    "sweep": 6,
    "league": 5,
    "plugin": 5,
    "terminal": 5,
    "accounts": 5,
    "agents": 4,
    "llm": 4,
    "feeds": 4,
    "broker": 4,
    "store": 4,
    "keys": 4,
    "client": 4,
    "testing": 4,
    "formats": FORMAT_RULES_RANK,
    "sim": 2,
    "stats": 2,
    "market": 2,
    "events": 1,
    "money": 0,
    "clock": 0,
    "ids": 0,
    "errors": 0,
    "calls": 0,
    "disclaimer": 0,
    "disclosure": 0,
    "untrusted": 0,
    "collect": 0,
    "": 0,  # the package's own __init__
}

INTERFACES = frozenset({"cli", "api", "web", "mcp"})
SHARED = frozenset({"cli", "site", "api", "web", "mcp", "host", "sweep", "league", "plugin"})
"""Layers that serve every format: they reach a format only through the registry."""

FORMAT_HOMES = ("league", "formats", "events")


@dataclass(frozen=True)
class Violation:
    """One broken rule: where, and what."""

    module: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.module}:{self.line}: {self.message}"


def node_of(module: str, keys: Iterable[str], homes: Iterable[str] = FORMAT_HOMES) -> str:
    """Return the layer node of a dotted module name (``league.weights`` for a format's shell)."""
    parts = module.split(".")[1:]
    if len(parts) >= 2 and parts[0] in set(homes) and parts[1] in set(keys):
        return f"{parts[0]}.{parts[1]}"
    return parts[0] if parts else ""


def _rank(node: str) -> int | None:
    home, _, key = node.partition(".")
    if key:
        return {
            "league": FORMAT_SHELL_RANK,
            "formats": FORMAT_RULES_RANK,
            "events": FORMAT_EVENTS_RANK,
        }[home]
    return RANKS.get(node)


def _is_format_node(node: str) -> bool:
    return "." in node


def layer_violations(graph: ModuleGraph, keys: Iterable[str]) -> list[Violation]:
    """Return every import up a layer, across interfaces, or from shared code to a format."""
    keys = tuple(keys)
    out: list[Violation] = []
    for module in graph.files:
        if _rank(node_of(module, keys)) is None:
            out.append(Violation(module, 0, f"{node_of(module, keys)!r} has no layer in RANKS"))
    for imp in graph.imports:
        a, b = node_of(imp.source, keys), node_of(imp.target, keys)
        if a == b:
            continue
        ra, rb = _rank(a), _rank(b)
        if ra is None or rb is None:
            continue
        if a in SHARED and _is_format_node(b):
            out.append(Violation(imp.source, imp.line, f"shared layer {a} imports format {b}"))
        elif a in INTERFACES and b in INTERFACES:
            out.append(Violation(imp.source, imp.line, f"interface {a} imports interface {b}"))
        elif rb > ra:
            out.append(Violation(imp.source, imp.line, f"imports {imp.target} from a higher layer"))
    return out


def cycle_violations(graph: ModuleGraph, keys: Iterable[str]) -> list[Violation]:
    """Return every import cycle between modules, and between layers, imports in functions too.

    Imports under ``if TYPE_CHECKING:`` never run, so they make no cycle.
    """
    keys = tuple(keys)
    edges = graph.edges(typing=False)
    out = [Violation(group[0], 0, "import cycle: " + " -> ".join(group)) for group in cycles(edges)]
    # The event vocabulary is one package: its ``__init__`` names every format's kinds.
    homes = ("league", "formats")
    nodes: dict[str, set[str]] = {}
    for source, targets in edges.items():
        a = node_of(source, keys, homes)
        nodes.setdefault(a, set()).update(
            b for b in (node_of(t, keys, homes) for t in targets) if b != a
        )
    out.extend(
        Violation(group[0], 0, "layer cycle: " + " -> ".join(group)) for group in cycles(nodes)
    )
    return out


_COMPARE_OPS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)


def _constants(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [c for e in node.elts for c in _constants(e)]
    return []


def format_name_violations(
    graph: ModuleGraph, keys: Iterable[str], *, exempt: Iterable[str] = ()
) -> list[Violation]:
    """Return every comparison with a format's key (``==``, ``in``, ``match``) in shared code."""
    keys = frozenset(keys)
    exempt = frozenset(exempt)
    out: list[Violation] = []
    for module, path in graph.files.items():
        if node_of(module, keys) not in SHARED or module in exempt:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            named: list[str] = []
            if isinstance(node, ast.Compare) and any(isinstance(o, _COMPARE_OPS) for o in node.ops):
                for side in (node.left, *node.comparators):
                    named.extend(c for c in _constants(side) if c in keys)
            elif isinstance(node, ast.MatchValue):
                named.extend(c for c in _constants(node.value) if c in keys)
            for key in named:
                line = getattr(node, "lineno", 0)
                out.append(Violation(module, line, f"compares with the format key {key!r}"))
    return out


def template_violations(folder: Path, keys: Iterable[str]) -> list[Violation]:
    """Return every Jinja comparison with a format's key in the shared templates."""
    pattern = re.compile(
        r"(?:==|!=|\bin)\s*[\(\[]?\s*[\"'](" + "|".join(map(re.escape, keys)) + r")[\"']"
    )
    out: list[Violation] = []
    for path in sorted(folder.rglob("*.html")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in pattern.finditer(line):
                where = str(path.relative_to(folder))
                out.append(Violation(where, number, f"compares with the format key {match[1]!r}"))
    return out


def by_module(violations: Iterable[Violation]) -> Mapping[str, list[str]]:
    """Group violations' messages by module, for a readable assertion."""
    grouped: dict[str, list[str]] = {}
    for v in violations:
        grouped.setdefault(v.module, []).append(f"{v.line}: {v.message}")
    return grouped
