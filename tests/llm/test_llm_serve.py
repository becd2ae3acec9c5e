"""``tradeleague model serve``: the house model over OpenAI-compatible HTTP (issue 25).

The app is tested in process with the real SmolLM2 (answers capped at a few
tokens); the acceptance runs the command itself on a free port and a weights
replay against it with ``openai:house@URL,output=json_schema``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from tradeleague.llm.serve import create_app

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src"


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    """The app on the bundled house model, one thread."""
    with TestClient(create_app(n_threads=1)) as test_client:
        yield test_client


def _chat(client: TestClient, **fields: object) -> tuple[int, dict[str, object]]:
    body = {"model": "house", "messages": [{"role": "user", "content": "Up or down?"}]}
    got = client.post("/v1/chat/completions", json={**body, "max_tokens": 24, **fields})
    return got.status_code, got.json()


def _text(answer: dict[str, object]) -> str:
    choices = answer["choices"]
    assert isinstance(choices, list)
    content = choices[0]["message"]["content"]
    assert isinstance(content, str)
    return content


def test_llm_serve_lists_its_model_and_answers_under_a_grammar(client: TestClient) -> None:
    """GET /v1/models names the one model; a GBNF ``grammar`` holds the answer to it."""
    listed = client.get("/v1/models").json()
    assert [m["id"] for m in listed["data"]] == ["house"]
    status, answer = _chat(client, grammar='root ::= "up" | "down"', temperature=0.3)
    assert status == 200, answer
    assert _text(answer) in ("up", "down")
    assert answer["model"] == "house"
    assert answer["usage"]["completion_tokens"] >= 1  # type: ignore[index]


def test_llm_serve_honours_response_format_json_schema(client: TestClient) -> None:
    """OpenAI's ``response_format`` json_schema: the answer is that schema's JSON, whole."""
    schema = {
        "type": "object",
        "properties": {"direction": {"type": "string", "enum": ["up", "down"]}},
        "required": ["direction"],
        "additionalProperties": False,
    }
    fmt = {"type": "json_schema", "json_schema": {"name": "a", "schema": schema, "strict": True}}
    status, answer = _chat(client, response_format=fmt, temperature=0.3)
    assert status == 200, answer
    assert json.loads(_text(answer))["direction"] in ("up", "down")


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"grammar": "root ::= (("}, "does not parse as GBNF"),
        ({"stream": True}, "streaming is not supported"),
        ({"response_format": {"type": "xml"}}, "must be text, json_object or json_schema"),
        ({"messages": []}, "'messages' must be a non-empty array"),
    ],
)
def test_llm_serve_refuses_what_it_cannot_serve_and_stays_up(
    client: TestClient, fields: dict[str, object], says: str
) -> None:
    """A request it cannot serve is an OpenAI-style 400 (a bad grammar never reaches
    llama.cpp's sampler, which would take the process down); the next one is answered."""
    status, answer = _chat(client, **fields)
    assert status == 400
    error = answer["error"]
    assert isinstance(error, dict)
    assert says in error["message"]
    assert _chat(client, grammar='root ::= "ok"')[0] == 200


def _start_server() -> tuple[subprocess.Popen[str], str]:
    env = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tradeleague.cli",
            "model",
            "serve",
            "--port",
            "0",
            "--threads",
            "2",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # llama.cpp's own chatter: a full pipe would stall it
        text=True,
    )
    assert server.stdout is not None
    line = server.stdout.readline()  # printed once the port is open and the model loaded
    if not line.startswith("listening on "):
        server.kill()
        server.wait(timeout=30)
        server.stdout.close()
        raise AssertionError(f"model serve did not start: {line!r}")
    return server, line.split()[2]


@pytest.mark.slow
def test_llm_a_replay_decides_through_model_serve(shared_data: Path, tmp_path: Path) -> None:
    """Issue 25: ``model serve`` on a free port, then a weights replay of five rounds with
    ``openai:house@URL,output=json_schema`` (OpenAI's strict response_format) decides at
    least four; the house model's reasons are its own, never the prompt's placeholder."""
    server, url = _start_server()
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=30) as got:  # noqa: S310
            assert json.load(got)["data"][0]["id"] == "house"
        report = tmp_path / "REPORT.json"
        started = time.monotonic()
        done = subprocess.run(
            [
                sys.executable, "-m", "tradeleague.cli", "replay", "weights",
                "--market", str(shared_data / "us_equities_daily"),
                "--symbols", "AAPL,MSFT,AMD",
                "--agent", f"house=openai:house@{url},output=json_schema",
                "--agent", "cash=baseline:cash",
                "--start", "2025-06-02", "--end", "2025-06-09",
                "--timeout", "600",  # a bound for a loaded machine, not a speed check
                "--no-check",  # the check is held by its own tests; here every call is a round
                "--db", f"sqlite:///{tmp_path / 'league.db'}", "--out", str(report),
            ],
            cwd=tmp_path,
            env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", "COLUMNS": "200"},
            capture_output=True,
            text=True,
            timeout=3000,
            check=False,
        )  # fmt: skip
        assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    finally:
        server.terminate()
        server.wait(timeout=30)
        if server.stdout is not None:
            server.stdout.close()
    calls = json.loads(report.read_text(encoding="utf-8"))["answers"]["house"]
    assert len(calls) == 5, time.monotonic() - started
    answered = [c for c in calls if c["outcome"] == "answered"]
    line = next(x for x in done.stdout.splitlines() if x.strip().startswith("house: decisions"))
    decisions = int(line.split("decisions")[1].split(";")[0])
    assert decisions >= 4, (line, [c["text"] for c in calls])
    for call in answered:
        reason = json.loads(call["text"])["reason"]
        assert "one sentence" not in reason.lower()
