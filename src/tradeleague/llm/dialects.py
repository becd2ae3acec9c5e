"""Structured output in each provider's own dialect: how an answer's JSON schema is sent.

A round hands every model agent the answer's JSON schema (``ChatRequest.json_schema``,
the same schema the house model's grammar is built from). An agent's ``output``
says how much of it to ask the provider to enforce, and the endpoint's dialect
says in which body fields:

- ``openai`` (OpenAI, OpenRouter, any other server): ``json_schema`` is
  ``response_format: {"type": "json_schema", "json_schema": {"name": "answer",
  "schema": ..., "strict": true}}``, the schema in OpenAI's strict subset;
  ``json_object`` is ``response_format: {"type": "json_object"}``; no grammar.
- ``llamacpp`` (llama.cpp's server, llama-cpp-python's): ``json_schema`` is
  ``response_format: {"type": "json_object", "schema": ...}``; ``json_object``
  the same without the schema; ``grammar`` is ``grammar``, a GBNF string.
- ``vllm``: ``json_schema`` is ``guided_json``; ``json_object`` is
  ``response_format: {"type": "json_object"}``; ``grammar`` is
  ``guided_grammar``, a GBNF string.
- ``ollama``: ``json_schema`` is ``response_format: {"type": "json_schema",
  "json_schema": {"name": "answer", "schema": ...}}`` (no strict subset needed);
  ``json_object`` is ``response_format: {"type": "json_object"}``; no grammar.
- ``text`` adds nothing in any dialect.

Ollama's OpenAI-compatible endpoint (the ``/v1`` the preset uses) reads only
``response_format`` and turns its schema into Ollama's native ``format``; a
top-level ``format`` field there is ignored, so it is not what is sent.

OpenAI's strict mode takes a subset of JSON Schema: every property required,
``additionalProperties: false`` on every object, no string lengths.
``strict_schema`` rewrites the round's schema into that subset; for the weights
answer that makes every symbol a required number (0 is what a symbol left out
means). The provider narrows what the model can say; the engine still validates
every answer exactly as any other and repairs none.

A provider that cannot take the output it was sent answers with an HTTP error;
``refused_output`` recognises the usual ones (llama-cpp-python's ``response_format
type must be one of "text" or "json_object"``, OpenAI's ``Invalid schema for
response_format``), and the fault is then named ``output_unsupported`` with the
provider's own message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal, get_args

from tradeleague.llm.grammar import schema_to_gbnf

__all__ = [
    "DIALECTS",
    "OUTPUTS",
    "OUTPUT_UNSUPPORTED",
    "SUPPORTED",
    "Dialect",
    "Output",
    "output_fields",
    "refused_output",
    "strict_schema",
]

Dialect = Literal["openai", "llamacpp", "vllm", "ollama"]
"""How an endpoint spells structured output (the table above)."""

Output = Literal["json_schema", "json_object", "grammar", "text"]
"""How much of the answer's schema the provider is asked to enforce."""

DIALECTS: Final[tuple[Dialect, ...]] = get_args(Dialect)
OUTPUTS: Final[tuple[Output, ...]] = get_args(Output)

SUPPORTED: Final[Mapping[Dialect, tuple[Output, ...]]] = {
    "openai": ("json_schema", "json_object", "text"),
    "llamacpp": ("json_schema", "json_object", "grammar", "text"),
    "vllm": ("json_schema", "json_object", "grammar", "text"),
    "ollama": ("json_schema", "json_object", "text"),
}
"""The outputs each dialect can send."""

OUTPUT_UNSUPPORTED: Final = "output_unsupported"
"""The fault's name in an error text when a provider refused the structured output sent."""

SCHEMA_NAME: Final = "answer"
"""The ``name`` of the schema in OpenAI's ``response_format``."""

_JSON_OBJECT: Final = {"response_format": {"type": "json_object"}}

_STRICT_KEYWORDS: Final = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "enum", "const", "items",
        "anyOf", "description", "title", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "pattern", "format", "$defs", "$ref",
    }
)  # fmt: skip
"""What OpenAI's strict mode accepts; every other keyword is left out of what is sent."""


def output_fields(dialect: Dialect, output: Output, schema: Mapping[str, Any]) -> dict[str, Any]:
    """Return the body fields that ask for ``output`` in ``dialect`` (empty for ``text``).

    Raises
    ------
    ValueError
        If the dialect does not speak the output (``SUPPORTED``).
    tradeleague.llm.grammar.UnsupportedSchema
        For ``grammar``, if the schema cannot be written as a grammar.
    """
    if output not in SUPPORTED[dialect]:
        spoken = ", ".join(SUPPORTED[dialect])
        raise ValueError(f"the {dialect} dialect does not send output={output}; it sends {spoken}")
    if output == "text":
        return {}
    if output == "json_object":
        return {"response_format": dict(_JSON_OBJECT["response_format"])}
    if output == "grammar":
        grammar = schema_to_gbnf(schema)
        return {"guided_grammar": grammar} if dialect == "vllm" else {"grammar": grammar}
    if dialect == "openai":
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": SCHEMA_NAME,
                    "schema": strict_schema(schema),
                    "strict": True,
                },
            }
        }
    if dialect == "llamacpp":
        return {"response_format": {"type": "json_object", "schema": dict(schema)}}
    if dialect == "vllm":
        return {"guided_json": dict(schema)}
    return {
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": SCHEMA_NAME, "schema": dict(schema)},
        }
    }


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``schema`` in OpenAI's strict subset.

    Every object lists all its properties as required and forbids others;
    keywords strict mode refuses (``minLength``, ``maxLength``...) are left out.
    The answer it admits is one the round's schema admits too, where a property
    left out and a property given its neutral value mean the same.
    """
    strict: dict[str, Any] = _strict(schema)
    return strict


def _strict(node: Any) -> Any:
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key not in _STRICT_KEYWORDS:
            continue
        if key in ("properties", "$defs") and isinstance(value, Mapping):
            out[key] = {name: _strict(sub) for name, sub in value.items()}
        elif key in ("items", "anyOf"):
            out[key] = _strict(value)
        else:
            out[key] = value
    if out.get("type") == "object" or "properties" in out:
        out["required"] = list(out.get("properties", {}))
        out["additionalProperties"] = False
    return out


_REFUSAL_WORDS: Final = (
    "response_format",
    "json_schema",
    "json_object",
    "schema",
    "grammar",
    "guided_",
    "structured output",
)


def refused_output(status: int, message: str) -> bool:
    """Return whether an HTTP error to a request with structured output refused that output.

    A 400, 422 or 5xx whose message names the structured-output fields (``response_format``,
    ``json_schema``, ``grammar``, ``guided_json``...) is taken as the provider refusing
    the dialect or the schema; any other error keeps its own class.
    """
    if status not in (400, 422) and not 500 <= status < 600:
        return False
    lower = message.lower()
    return any(word in lower for word in _REFUSAL_WORDS)
