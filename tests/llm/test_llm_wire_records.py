"""The provider records what the official OpenAI client's path recorded, case for case (C-4, C-5).

``wire_records.json`` was written by the provider as it stood on the official
client (openai 3.57 over its aiohttp transport, commit ``751f892``), playing
each case below against the fake provider: answers, tool calls, every scripted
fault, hostile and random bodies, a refused connection. For each it holds the
outcome, HTTP status, text, error text, token counts, finish reason and tool
calls the record carried, and every request the server received (body and
bearer). The lean client must write the same, so replacing the HTTP stack
changed no record. Rewrite the file only for a deliberate change of records,
with ``python tests/llm/test_llm_wire_records.py --write``, and say why.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from pathlib import Path
from typing import Any

from tradeleague.calls import CallParams, Message
from tradeleague.llm.gateway import Call, Gateway
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.presets import preset
from tradeleague.llm.records import CallKey, CallRecord
from tradeleague.llm.types import ChatRequest
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour, Fault
from tradeleague.testing.ports import refusing_port

PINNED = Path(__file__).with_name("wire_records.json")
KEY = "sk-test-golden-000011112222"
PARAMS = CallParams(temperature=0.3, max_tokens=320, reasoning=False, timeout_s=10.0)
"""For every case but the two that must time out: the deadline enters no record of theirs."""
CUT = CallParams(temperature=0.3, max_tokens=320, reasoning=False, timeout_s=0.8)
"""For ``hang`` and ``late``: their records say "no reply within 0.8 s", as pinned."""
MUST_TIME_OUT = frozenset({"hang", "late"})
TOOL = {"id": "call_1", "type": "function", "function": {"name": "price", "arguments": "{}"}}
TOOL_SPEC = {"type": "function", "function": {"name": "price", "parameters": {"type": "object"}}}
DEEP = b"[" * 70_000 + b"]" * 70_000


def _completion(content: object, usage: object = None) -> bytes:
    body: dict[str, object] = {
        "choices": [{"message": {"content": content}, "finish_reason": "stop"}]
    }
    if usage is not None:
        body["usage"] = usage
    return json.dumps(body).encode()


def _raw_bodies() -> list[tuple[int, bytes]]:
    usage = {"prompt_tokens": 10**4000, "completion_tokens": -5}
    raw = [
        (200, DEEP), (200, b'{"choices":' + DEEP + b"}"), (500, DEEP), (401, b'{"error":' * 70_000),
        (200, b"\xff\xfe\xfd"), (200, b'{"choices": [{"message": {"content": 1e99999}}]}'),
        (200, b'{"choices": [{"message": {"content": ' + b"9" * 5000 + b"}}]}"),
        (200, _completion('{"direction": "up"} \ud800', usage)),
        (400, b'{"error": {"message": "model gpt-x does not exist", "code": null}}'),
        (400, b'{"error": "plain string error"}'), (422, b'{"detail": "not a valid model"}'),
        (500, f"  proxy says no {KEY}  ".encode()), (502, b""),
        (429, b'{"error": {"error": {"message": "nested", "code": "x"}}}'),
        (200, b'{"choices": []}'),
        (200, b'{"choices": [{"message": {"content": null, "tool_calls": [{"id": "a"}]}, '
              b'"finish_reason": 5}]}'),
        (200, b"[]"), (200, b"null"), (408, b'{"error": {"message": "timeout!"}}'),
        (404, b"<html>nope</html>"),
        (200, b'{"choices": [{"message": {"content": "x"}}], '
              b'"usage": {"prompt_tokens": true, "completion_tokens": 3.5}}'),
        (403, f'{{"error": {{"message": "bad key {KEY}", "code": 7}}}}'.encode()),
        (500, b'{"error": {"message": "deep", "x": ' + b"[" * 100 + b"]" * 100 + b"}}"),
        (500, "caf\u00e9 \u2603".encode("latin-1", "replace")),
    ]  # fmt: skip
    rng = random.Random(7)
    for _ in range(40):
        status = rng.choice([200, 400, 401, 429, 500])
        raw.append((status, bytes(rng.randrange(256) for _ in range(rng.randrange(60)))))
    for _ in range(10):
        text = "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(30))
        counts = {"prompt_tokens": rng.randrange(9999), "completion_tokens": 3}
        raw.append((200, _completion(text, counts)))
    return raw


BEHAVIOURS: dict[str, Behaviour] = {
    "ok": Behaviour(text="hi", prompt_tokens=12, completion_tokens=3),
    "tools": Behaviour(text="", tool_calls=(TOOL,)),
    "tools_text": Behaviour(text="thinking", tool_calls=(TOOL,)),
    **{f.value: Behaviour(fault=f) for f in Fault if f is not Fault.HANG},
    "ratelim_ra": Behaviour(fault=Fault.RATE_LIMITED, retry_after_s=2.0),
    "ratelim_ra_small": Behaviour(fault=Fault.RATE_LIMITED, retry_after_s=0.25),
    "hang": Behaviour(fault=Fault.HANG),
    "late": Behaviour(latency_s=60.0),  # far past the deadline; released when the fake stops
}


def _summary(record: CallRecord) -> list[Any]:
    return [
        record.outcome.value, record.http_status, record.text, record.error,
        record.prompt_tokens, record.completion_tokens, record.finish_reason,
        [dict(t) for t in record.tool_calls],
    ]  # fmt: skip


def _call(model: str) -> Call:
    messages: tuple[Message, ...] = (Message("system", "You trade."), Message("user", "Up?"))
    tools: tuple[dict[str, Any], ...] = ()
    if model.startswith("tools"):
        tools = (TOOL_SPEC,)
    if model == "tools":  # a tool step: the assistant's call and the tool's result go back
        messages += (
            Message("assistant", "", tool_calls=(TOOL,)),
            Message("tool", "64000", tool_call_id="call_1"),
        )
    params = CUT if model in MUST_TIME_OUT else PARAMS
    request = ChatRequest(model=model, messages=messages, params=params, tools=tools)
    return Call(request=request, provider="openrouter", key=CallKey("s", "r", "a", 0))


def _provider(url: str) -> OpenAICompatProvider:
    environ = {"OPENROUTER_API_KEY": KEY}
    return OpenAICompatProvider(preset("openrouter").with_base_url(url), environ=environ)


async def _play() -> dict[str, Any]:
    """Play every case; return what was recorded and received, ports written ``PORT``."""
    results: dict[str, Any] = {}
    raw = _raw_bodies()
    async with FakeProvider(require_key=KEY) as fake:
        for name, behaviour in BEHAVIOURS.items():
            fake.script_model(name, behaviour)
        for i, (status, body) in enumerate(raw):
            fake.respond_raw(f"raw{i}", status, body, {"content-type": "application/json"})
        names = [*BEHAVIOURS, *(f"raw{i}" for i in range(len(raw))), "missing"]
        async with Gateway([_provider(fake.url)]) as gw:
            for name in names:
                results[name] = _summary(await gw.call(_call(name)))
            wrong = Call(
                request=_call("ok").request, provider="openrouter",
                key=CallKey("s", "r", "a", 0), api_key="sk-wrong-key-123456789",
            )  # fmt: skip
            results["wrongkey"] = _summary(await gw.call(wrong))
        results["_requests"] = [[q.model, q.body, q.authorization] for q in fake.requests]
    port = refusing_port()  # refused, and held so nothing else takes it meanwhile
    async with Gateway([_provider(f"http://127.0.0.1:{port}/v1")]) as gw:
        results["refused"] = _summary(await gw.call(_call("ok")))
    normalised: dict[str, Any] = json.loads(json.dumps(results).replace(str(port), "PORT"))
    return normalised


def _dump(results: dict[str, Any]) -> str:
    lines = [f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in results.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


async def test_llm_records_match_the_official_clients() -> None:
    """C-4, C-5, C-9, W-VAL-8: every case records what the official client's path recorded."""
    pinned = json.loads(PINNED.read_text(encoding="utf-8"))
    played = await _play()
    assert played.keys() == pinned.keys()
    for name in pinned:
        assert played[name] == pinned[name], name


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python tests/llm/test_llm_wire_records.py --write")
    PINNED.write_text(_dump(asyncio.run(_play())), encoding="utf-8")
