"""Hold a served answer to the schema ``/openapi.json`` documents for it (the tests' use)."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

__all__ = ["strays"]


def strays(doc: dict[str, Any], method: str, template: str, status: int, body: object) -> list[str]:
    """Return how ``body`` strays from the schema ``doc`` gives ``method template`` at ``status``.

    Empty when it matches. A route that documents no JSON answer at ``status``
    strays too: an undocumented answer is a finding, not a pass.
    """
    where = f"{method.upper()} {template} {status}"
    documented = doc["paths"][template][method].get("responses", {}).get(str(status))
    content = (documented or {}).get("content", {}).get("application/json")
    if content is None:
        return [f"{where}: no JSON answer documented"]
    validator = Draft202012Validator({**content["schema"], "components": doc["components"]})
    return [f"{where}: {e.json_path}: {e.message[:200]}" for e in validator.iter_errors(body)]
