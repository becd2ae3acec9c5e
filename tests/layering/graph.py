"""Read a package's imports as a graph: every import statement, in functions too.

The layering and format-name tests build their verdicts from this one reading,
so a planted violation in a scratch tree fails them the same way as in the real
one (``test_layering_checks.py``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Import", "ModuleGraph", "cycles", "read_graph"]


@dataclass(frozen=True)
class Import:
    """One import statement's target, where it is, and whether it only serves type checking."""

    source: str
    target: str
    line: int
    typing_only: bool


def _typing_only_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for statement in node.body:
                skip.update(id(x) for x in ast.walk(statement))
    return skip


@dataclass(frozen=True)
class ModuleGraph:
    """The modules of one package (dotted names) and every import between them."""

    root: str
    files: Mapping[str, Path]
    imports: tuple[Import, ...]

    def edges(self, *, typing: bool = True) -> dict[str, set[str]]:
        """Return each module's imported modules (type-checking imports too, unless told not)."""
        out: dict[str, set[str]] = {m: set() for m in self.files}
        for imp in self.imports:
            if typing or not imp.typing_only:
                out[imp.source].add(imp.target)
        return out


def _module_name(root: Path, path: Path, package: str) -> str:
    parts = [package, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(name: str, files: Mapping[str, Path]) -> str | None:
    while name and name not in files:
        name = name.rpartition(".")[0]
    return name or None


def read_graph(root: Path, package: str = "tradeleague") -> ModuleGraph:
    """Return the import graph of the package whose folder is ``root``."""
    files = {_module_name(root, p, package): p for p in sorted(root.rglob("*.py"))}
    found: list[Import] = []
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        typing_only = _typing_only_nodes(tree)
        here = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(tree):
            for target in _targets(node, here, files):
                resolved = _resolve(target, files) if target.split(".")[0] == package else None
                if resolved is not None and resolved != module:
                    line = getattr(node, "lineno", 0)
                    found.append(Import(module, resolved, line, id(node) in typing_only))
    return ModuleGraph(package, files, tuple(found))


def _targets(node: ast.AST, here: str, files: Mapping[str, Path]) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = here.split(".")[: len(here.split(".")) - node.level + 1]
            module = ".".join([*base, *([node.module] if node.module else [])])
        else:
            module = node.module or ""
        for alias in node.names:
            sub = f"{module}.{alias.name}"
            yield sub if sub in files else module
    elif (
        isinstance(node, ast.Call)
        and _is_import_module(node.func)
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        # importlib.import_module("tradeleague.x") with a constant name is an import too
        yield node.args[0].value


def _is_import_module(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id == "import_module"
    )


def cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Return every strongly connected group of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found
