"""The site's axe check: the serious and critical violations of a page, less the bundled docs'."""

from __future__ import annotations

from typing import Any

# Where an offline docs page's bundle (served as its package ships it) breaks an axe rule
# in markup we do not write, the rule is let through for those elements only, on that
# page only. ReDoc renders a schema's oneOf chooser as a <select> with no label of any
# kind (select-name); nothing around the bundle can name it.
BUNDLED: dict[str, dict[str, str]] = {"/redoc": {"select-name": "select.dropdown-select"}}


def serious(axe: Any, page: Any, path: str) -> list[str]:
    """Return the serious and critical axe violations of ``page``, less BUNDLED's."""
    results = axe.run(page)
    bad = []
    for violation in results.response["violations"]:
        if violation["impact"] not in ("serious", "critical"):
            continue
        allowed = BUNDLED.get(path, {}).get(violation["id"])
        nodes = [node["target"][-1] for node in violation["nodes"]]
        if (
            allowed is not None
            and nodes
            and all(
                page.locator(target).evaluate(f"e => e.matches({allowed!r})") for target in nodes
            )
        ):
            continue
        bad.append(f"{violation['id']} {nodes[:3]}")
    return bad
