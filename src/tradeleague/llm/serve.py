"""The house model (or any GGUF file) over OpenAI-compatible HTTP, for any client.

``tradeleague model serve`` runs this app. Stock ``python -m llama_cpp.server``
crashes on machines whose CPU advertises extra instructions a virtual machine
does not enable; this server loads the model as the house model does
(:mod:`tradeleague.llm.local`: extra buffer types off), so it runs wherever
``local:house`` runs.

Routes
------
``GET /v1/models``
    The one model served, by the name given (``house`` by default).
``POST /v1/chat/completions``
    A chat completion, not streamed. Structured output is honoured in every
    dialect ``tradeleague.llm.dialects`` sends: ``response_format`` of type
    ``json_schema`` (its ``json_schema.schema``) or ``json_object`` (with a
    ``schema``, or any JSON object without one), ``grammar`` (GBNF text),
    ``guided_json`` and ``guided_grammar``. A schema becomes the house
    model's grammar, with its habits (``local.house_schema``: free text of 1 to
    120 characters that does not open as the prompt's placeholder, numbers of
    at most two decimals) unless the app is made with ``house_habits=False``
    (``--exact``); a schema outside the converter's subset goes to llama.cpp's
    own converter. Any model name is answered by the
    one model. The seed is the body's ``seed``, else derived from the request
    (``local.request_seed``), so the same request gives the same answer.

Errors are OpenAI-shaped (``{"error": {"message", "type", "code"}}``): 400 for
a request that cannot be served (a bad body, streaming, tools, a grammar that
does not parse, a prompt longer than the context), 500 for a fault in llama.cpp.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tradeleague.calls import CallParams, Message
from tradeleague.llm.local import (
    exact_grammar,
    gbnf_grammar,
    generate,
    load_model,
    request_seed,
    resolve_model_path,
    schema_grammar,
)
from tradeleague.llm.types import ChatRequest
from tradeleague.untrusted import loads as bounded_loads

__all__ = ["DEFAULT_MAX_TOKENS", "create_app"]

DEFAULT_MAX_TOKENS = 512
"""The output-token cap of a request that names none."""

MAX_BODY_BYTES = 4 * 1024 * 1024
"""The largest request body read."""

_JSON_VALUE_SCHEMA: Mapping[str, Any] = {"type": "object"}


class _BadRequest(Exception):
    """A request this server cannot serve; its message goes back in the 400."""


def create_app(
    model_path: str | Path | None = None,
    *,
    name: str = "house",
    n_ctx: int = 4096,
    n_threads: int | None = None,
    house_habits: bool = True,
) -> Starlette:
    """Return the app serving one model, loaded now (a missing file fails here, not later).

    Parameters
    ----------
    model_path
        A GGUF file; default: ``TRADELEAGUE_HOUSE_MODEL``, then the bundled SmolLM2.
    name
        The model's id in ``/v1/models`` and in answers.
    n_ctx, n_threads
        The context window and CPU threads, as for ``local.LocalProvider``.
    house_habits
        Answer a schema as the house model does (``local.house_grammar``);
        false: exactly the schema.

    Raises
    ------
    tradeleague.llm.local.HouseModelUnavailable
        If the model file or llama-cpp-python is missing.
    """
    path = resolve_model_path(model_path)
    model = load_model(path, n_ctx, n_threads)
    ids = itertools.count(1)

    async def models(request: Request) -> Response:
        return JSONResponse(
            {
                "object": "list",
                "data": [{"id": name, "object": "model", "created": 0, "owned_by": "tradeleague"}],
            }
        )

    async def chat(request: Request) -> Response:
        raw = await request.body()
        if len(raw) > MAX_BODY_BYTES:
            return _error(413, "the request body is too large", "request_too_large")
        try:
            call = _read(raw)
            result = await asyncio.to_thread(_complete, model, call, house_habits)
        except _BadRequest as exc:
            return _error(400, str(exc), "invalid_request")
        except ValueError as exc:  # llama.cpp: a prompt past the context, a bad grammar
            return _error(400, str(exc), "invalid_request")
        except Exception as exc:  # a fault inside llama.cpp is an answer, never a crash
            return _error(500, f"the model failed: {type(exc).__name__}: {exc}", "server_error")
        result["id"] = f"chatcmpl-house-{next(ids)}"
        result["model"] = call["model"]
        result["created"] = int(time.time())
        return JSONResponse(result)

    return Starlette(
        routes=[
            Route("/v1/models", models, methods=["GET"]),
            Route("/v1/chat/completions", chat, methods=["POST"]),
        ]
    )


def _error(status: int, message: str, code: str) -> JSONResponse:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return JSONResponse(
        {"error": {"message": message, "type": kind, "param": None, "code": code}},
        status_code=status,
    )


def _read(raw: bytes) -> dict[str, Any]:
    """Return what one request asks: model, messages, sampling and the grammar's source.

    Raises
    ------
    _BadRequest
        For anything this server cannot serve, saying what.
    """
    try:
        body = bounded_loads(raw)
    except ValueError:
        raise _BadRequest("the body is not JSON") from None
    if not isinstance(body, dict):
        raise _BadRequest("the body must be a JSON object")
    model = body.get("model")
    messages = body.get("messages")
    if not isinstance(model, str):
        raise _BadRequest("'model' must be a string")
    if not isinstance(messages, list) or not messages:
        raise _BadRequest("'messages' must be a non-empty array")
    turns: list[dict[str, str]] = []
    for message in messages:
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise _BadRequest("each message needs a 'role'")
        content = message.get("content")
        if not isinstance(content, str):
            raise _BadRequest("each message's 'content' must be a string (no parts, no images)")
        turns.append({"role": message["role"], "content": content})
    if body.get("stream"):
        raise _BadRequest("streaming is not supported: send 'stream': false")
    if body.get("tools"):
        raise _BadRequest("tools are not supported by the house model")
    temperature = body.get("temperature", 1.0)
    cap = body.get("max_completion_tokens", body.get("max_tokens", DEFAULT_MAX_TOKENS))
    seed = body.get("seed")
    if not isinstance(temperature, int | float) or isinstance(temperature, bool):
        raise _BadRequest("'temperature' must be a number")
    if not isinstance(cap, int) or isinstance(cap, bool) or cap < 1:
        raise _BadRequest("'max_tokens' must be a positive integer")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise _BadRequest("'seed' must be an integer")
    schema, gbnf = _structured(body)
    return {
        "model": model,
        "messages": turns,
        "temperature": float(temperature),
        "max_tokens": cap,
        "seed": seed,
        "schema": schema,
        "gbnf": gbnf,
    }


def _structured(body: Mapping[str, Any]) -> tuple[Mapping[str, Any] | None, str | None]:
    """Return the schema or the GBNF text the body asks the answer to follow, if any."""
    for field in ("grammar", "guided_grammar"):
        text = body.get(field)
        if text is not None:
            if not isinstance(text, str) or not text.strip():
                raise _BadRequest(f"'{field}' must be GBNF text")
            return None, text
    guided = body.get("guided_json")
    if guided is not None:
        return _schema(guided, "guided_json"), None
    fmt = body.get("response_format")
    if fmt is None:
        return None, None
    if not isinstance(fmt, Mapping):
        raise _BadRequest("'response_format' must be an object")
    kind = fmt.get("type")
    if kind == "text":
        return None, None
    if kind == "json_object":
        given = fmt.get("schema")
        return _schema(given if given is not None else _JSON_VALUE_SCHEMA, "schema"), None
    if kind == "json_schema":
        inner = fmt.get("json_schema")
        if not isinstance(inner, Mapping):
            raise _BadRequest("'response_format.json_schema' must be an object")
        return _schema(inner.get("schema"), "response_format.json_schema.schema"), None
    raise _BadRequest(
        f"response_format type must be text, json_object or json_schema, not {kind!r}"
    )


def _schema(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _BadRequest(f"'{where}' must be a JSON schema object")
    return value


def _complete(model: Any, call: Mapping[str, Any], house_habits: bool) -> dict[str, Any]:
    """Build the grammar and generate (in a worker thread)."""
    messages = tuple(Message(m["role"], m["content"]) for m in call["messages"])
    grammar = None
    if call["gbnf"] is not None:
        grammar = gbnf_grammar(call["gbnf"], model)
    elif call["schema"] is not None and house_habits:
        grammar = schema_grammar(call["schema"], messages)
    elif call["schema"] is not None:
        grammar = exact_grammar(call["schema"])
    seed = call["seed"]
    if seed is None:
        request = ChatRequest(
            model=call["model"],
            messages=messages,
            params=CallParams(temperature=call["temperature"], max_tokens=call["max_tokens"]),
            json_schema=call["schema"],
        )
        seed = request_seed(request)
    result = generate(
        model,
        list(call["messages"]),
        temperature=call["temperature"],
        max_tokens=call["max_tokens"],
        seed=seed,
        grammar=grammar,
    )
    plain: dict[str, Any] = json.loads(json.dumps(result))
    return plain
