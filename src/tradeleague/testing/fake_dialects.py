"""What the fake provider checks when it plays a server of one kind: its structured-output dialect.

A real server takes structured output in its own fields and refuses, or
ignores, the others' (``tradeleague.llm.dialects`` lists them). The fake,
given ``FakeProvider(dialect=...)``, accepts only its dialect's fields and
answers any other with the error such a server gives (llama-cpp-python's HTTP
500 ``response_format type must be one of "text" or "json_object"``, OpenAI's
HTTP 400 ``Invalid schema for response_format`` for a schema outside its strict
subset...), so a test sees exactly what a user of that server would.

``received_schema`` reads back the schema a request carried, in whichever
dialect, and ``schema_instance`` writes a small answer that follows it: a
responder built from the two answers as a server that enforces the schema
would.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tradeleague.llm.dialects import Dialect

__all__ = ["dialect_refusal", "received_schema", "schema_instance"]

_STRUCTURED_FIELDS = ("response_format", "guided_json", "guided_grammar", "grammar", "format")

_STRICT_REFUSED = frozenset({"minLength", "maxLength", "minItems", "maxItems"})


def received_schema(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """Return the JSON schema a request body carries in any dialect's field, or ``None``."""
    guided = body.get("guided_json")
    if isinstance(guided, Mapping):
        return guided
    fmt = body.get("format")
    if isinstance(fmt, Mapping):
        return fmt
    rf = body.get("response_format")
    if not isinstance(rf, Mapping):
        return None
    if isinstance(rf.get("schema"), Mapping):
        return rf["schema"]  # type: ignore[no-any-return]
    inner = rf.get("json_schema")
    if isinstance(inner, Mapping) and isinstance(inner.get("schema"), Mapping):
        return inner["schema"]  # type: ignore[no-any-return]
    return None


def dialect_refusal(dialect: Dialect, body: Mapping[str, Any]) -> tuple[int, str] | None:
    """Return the HTTP status and message a server of ``dialect`` answers ``body`` with.

    ``None`` when it accepts the body's structured output (or the body asks for none).
    """
    present = [f for f in _STRUCTURED_FIELDS if f in body]
    if not present:
        return None
    rf = body.get("response_format")
    kind = rf.get("type") if isinstance(rf, Mapping) else None
    others = [f for f in present if f != "response_format"]
    if dialect == "openai":
        if others:
            return 400, f"Unrecognized request argument supplied: {others[0]}"
        if kind == "json_object":
            return None
        if kind == "json_schema" and isinstance(rf, Mapping):
            return _openai_strict(rf)
        return 400, f"Invalid value for 'response_format.type': {kind!r}"
    if dialect == "llamacpp":
        foreign = [f for f in others if f != "grammar"]
        if foreign:
            return 400, f"unsupported field: {foreign[0]}"
        if rf is not None and kind != "json_object":
            message = 'response_format type must be one of "text" or "json_object", but got: '
            return 500, message + str(kind)
        return None
    if dialect == "vllm":
        foreign = [f for f in others if f not in ("guided_json", "guided_grammar")]
        if foreign:
            return 400, f"unsupported field: {foreign[0]}"
        if rf is not None and kind != "json_object":
            return 400, f"response_format {kind!r} is not supported here: use guided_json"
        return None
    if others:
        return 400, f"unsupported field: {others[0]}"
    if kind in ("json_object", "json_schema"):
        return None
    return 400, f"invalid response_format type: {kind!r}"


def _openai_strict(rf: Mapping[str, Any]) -> tuple[int, str] | None:
    inner = rf.get("json_schema")
    if not isinstance(inner, Mapping) or not isinstance(inner.get("schema"), Mapping):
        return 400, "Missing required parameter: 'response_format.json_schema.schema'."
    if inner.get("strict") is not True:
        return None
    problem = _strict_problem(inner["schema"], ())
    if problem is None:
        return None
    return 400, f"Invalid schema for response_format '{inner.get('name')}': {problem}"


def _strict_problem(node: Any, where: tuple[str, ...]) -> str | None:
    if not isinstance(node, Mapping):
        return None
    refused = sorted(_STRICT_REFUSED & set(node))
    if refused:
        return f"In context={where}, '{refused[0]}' is not permitted."
    properties = node.get("properties")
    if isinstance(properties, Mapping):
        missing = [p for p in properties if p not in (node.get("required") or ())]
        if missing:
            return (
                f"In context={where}, 'required' is required to be supplied and to be an "
                f"array including every key in properties. Missing '{missing[0]}'."
            )
        if node.get("additionalProperties") is not False:
            return (
                f"In context={where}, 'additionalProperties' is required to be supplied "
                "and to be false."
            )
        for name, sub in properties.items():
            found = _strict_problem(sub, (*where, "properties", name))
            if found is not None:
                return found
    return None


def schema_instance(schema: Mapping[str, Any]) -> Any:
    """Return a small value that follows ``schema`` (the subset the answers' schemas use).

    Objects get their required properties; strings a short sentence (as long as
    ``minLength`` asks, as short as ``maxLength`` allows); numbers their
    minimum, or 0; an enum its first value.
    """
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        properties: Mapping[str, Any] = schema.get("properties", {})
        return {name: schema_instance(properties[name]) for name in schema.get("required", ())}
    if kind == "string":
        text = "The fake provider followed the schema."
        low = int(schema.get("minLength", 0))
        text = text + "." * max(0, low - len(text))
        high = schema.get("maxLength")
        return text if high is None else text[: int(high)]
    if kind in ("number", "integer"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    return None
