"""The shipped fake provider: a real OpenAI-compatible server playing a script (C-5)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import httpx
import pytest

from tradeleague.errors import ConfigError
from tradeleague.testing.fake_provider import FakeProvider, ReceivedRequest
from tradeleague.testing.fake_script import Behaviour, Fault, Script

BODY: dict[str, object] = {"model": "m", "messages": [{"role": "user", "content": "hello there"}]}


def _chat(url: str, body: Mapping[str, object], key: str = "k") -> httpx.Response:
    return httpx.post(
        f"{url}/chat/completions", json=body, headers={"Authorization": f"Bearer {key}"}
    )


def test_completion_body_is_realistic() -> None:
    """C-5: the answer carries choices, finish_reason and usage like a real provider."""
    with FakeProvider() as fake:
        fake.script_model("m", Behaviour(text="answer", prompt_tokens=7, completion_tokens=3))
        body = _chat(fake.url, BODY).json()
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": "answer",
        "refusal": None,
    }
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["usage"] == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}


def test_queue_then_responder_then_fixed_and_models_listing() -> None:
    """Queued answers play once each, in order; then a function of the request; listed models."""
    with FakeProvider() as fake:
        fake.enqueue("m", "one", "two")
        fake.respond_with("m", lambda r: f"echo {r.messages[-1].content}")
        texts = [_chat(fake.url, BODY).json()["choices"][0]["message"]["content"] for _ in range(3)]
        models = httpx.get(f"{fake.url}/models").json()
        received = fake.requests_for("m")
    assert texts == ["one", "two", "echo hello there"]
    assert [m["id"] for m in models["data"]] == ["m"]
    assert len(received) == 3
    assert isinstance(received[0], ReceivedRequest)
    assert received[0].body == BODY
    assert received[0].authorization == "Bearer k"


def test_error_bodies_are_openai_style() -> None:
    """W-VAL-8: faults come back with OpenAI's error body shape and status."""
    with FakeProvider(require_key="right") as fake:
        fake.script_model("m", Behaviour(fault=Fault.RATE_LIMITED))
        limited = _chat(fake.url, BODY, key="right")
        wrong_key = _chat(fake.url, BODY, key="wrong")
        unknown = _chat(fake.url, {**BODY, "model": "nope"}, key="right")
        bad = _chat(fake.url, {"model": "m"}, key="right")
    assert limited.status_code == 429
    assert limited.json()["error"]["code"] == "rate_limit_exceeded"
    assert wrong_key.status_code == 401
    assert wrong_key.json()["error"]["code"] == "invalid_api_key"
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "model_not_found"
    assert bad.status_code == 400


async def test_async_context_manager() -> None:
    """The fake is usable from async tests too."""
    async with FakeProvider() as fake:
        fake.script_model("m", "hi")
        async with httpx.AsyncClient() as client:
            response = await client.post(f"{fake.url}/chat/completions", json=BODY)
    assert response.json()["choices"][0]["message"]["content"] == "hi"


def test_script_from_json(tmp_path: Path) -> None:
    """The dry-run script format: default, per-model behaviours, queued texts."""
    path = tmp_path / "script.json"
    path.write_text(
        json.dumps(
            {
                "default": {"text": "d"},
                "models": {
                    "slow": {"text": "s", "latency_s": 1},
                    "q": {"texts": ["a", "b"], "fault": "prose"},
                },
            }
        )
    )
    script = Script.from_file(path)
    assert script.default == Behaviour(text="d")
    assert script.models["slow"] == Behaviour(text="s", latency_s=1.0)
    assert [b.text for b in script.queues["q"]] == ["a", "b"]
    assert script.queues["q"][0].fault is Fault.PROSE
    with pytest.raises(ConfigError, match="unknown fault"):
        Script.from_mapping({"models": {"x": {"fault": "explode"}}})
    with pytest.raises(ConfigError, match="unknown key"):
        Script.from_mapping({"models": {"x": {"txt": "typo"}}})


def test_command_line_serves_a_script(tmp_path: Path) -> None:
    """The documented dry run: ``python -m tradeleague.testing.fake_provider``."""
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"models": {"m": {"text": "from the script"}}}))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tradeleague.testing.fake_provider",
            "--port",
            "0",
            "--script",
            str(path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert line.startswith("listening on http://127.0.0.1:")
        url = line.removeprefix("listening on ")
        body = _chat(url, BODY).json()
        assert body["choices"][0]["message"]["content"] == "from the script"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


def test_script_steps_play_a_tool_call_then_an_answer_and_keep_tool_messages() -> None:
    """T-AGT-2: a script's ``steps`` play a tool-calling reply (content null), then an
    answer; the server keeps the native tool messages it received."""
    call = {"id": "c1", "type": "function", "function": {"name": "candles", "arguments": "{}"}}
    script = Script.from_mapping(
        {"models": {"m": {"steps": [{"text": "", "tool_calls": [call]}, {"text": "done"}]}}}
    )
    follow_up = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"result":1}'},
        ],
    }
    with FakeProvider(script) as fake:
        first = _chat(fake.url, BODY).json()["choices"][0]
        second = _chat(fake.url, follow_up).json()["choices"][0]
        received = fake.requests_for("m")
    assert first["message"]["content"] is None
    assert first["message"]["tool_calls"] == [call]
    assert first["finish_reason"] == "tool_calls"
    assert second["message"]["content"] == "done"
    assert second["finish_reason"] == "stop"
    assistant, tool = received[1].messages[1:]
    assert (assistant.role, assistant.content, assistant.tool_calls) == ("assistant", "", (call,))
    assert (tool.role, tool.tool_call_id, tool.content) == ("tool", "c1", '{"result":1}')
    with pytest.raises(ConfigError, match="not both"):
        Script.from_mapping({"models": {"m": {"steps": [], "texts": []}}})
    with pytest.raises(ConfigError, match="list of behaviours"):
        Script.from_mapping({"models": {"m": {"steps": ["x"]}}})
