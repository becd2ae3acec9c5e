"""One round fanned out to 1,000 agents against the fake provider (printed, not asserted).

Each agent's model answers after a latency drawn (seeded) from 0.5-5 s. The fake
provider runs in its own process (``python -m tradeleague.testing.fake_provider``),
so this process's CPU time is the engine's and its HTTP client's. Reported:

- wall time of the round against its slowest answer (target: slowest + 0.25 s);
- CPU time per turn, two figures, labelled: *total* (this process over HTTP:
  gateway, recording, the provider's request building, HTTP client and parsing) and
  *engine* (the gateway and recording alone: the same round against an
  in-process provider that only sleeps). Targets: total under 0.3 ms, engine
  under 1 ms;
- peak memory (this process's peak RSS) and the fake server's CPU.

By default the measured round runs on warm keep-alive connections (a warm-up
round of as many calls opened them, as a league's earlier rounds do);
``--cold`` opens them inside the measured round. ``--server-http`` picks the
fake server's HTTP parser: ``httptools`` (the default: the server's own CPU per
request stays small, so the round measures this process, as against a real
provider's fleet) or ``h11`` (pure Python, what the tests use; on a 2-core
machine the single-threaded server then delays the last answers by itself).

Run: ``.venv/bin/python bench/round_fanout.py [--agents 1000] [--seed 20260716]
[--cold]
[--server-http httptools|h11]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.events import canonical_json
from tradeleague.llm.gateway import Call, Gateway
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.presets import custom_preset
from tradeleague.llm.records import CallKey, CallRecord
from tradeleague.llm.types import ChatRequest, ModelReply, Provider

ANSWER = '{"direction": "up", "rationale": "Higher lows on the last 30 candles."}'
PROMPT = "BTC/USD one-minute candles (180):\n" + "\n".join(
    f"{i},{64000 + i},{64010 + i},{63990 + i},{64005 + i}" for i in range(180)
)


def start_fake(script: Path, http: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tradeleague.testing.fake_provider",
            "--port",
            "0",
            "--script",
            str(script),
            "--http",
            http,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("listening on "):
        proc.kill()
        raise SystemExit(f"the fake provider did not start: {line!r}")
    return proc, line.removeprefix("listening on ")


def calls_for(models: list[str], round_id: str, params: CallParams) -> list[Call]:
    return [
        Call(
            request=ChatRequest(
                model=model,
                messages=(Message("system", "You are a trader."), Message("user", PROMPT)),
                params=params,
            ),
            provider="fake",
            key=CallKey("bench", round_id, f"agent-{i:04d}", 0),
        )
        for i, model in enumerate(models)
    ]


class SleepingProvider:
    """No HTTP: answers after the scripted latency, to isolate the gateway's own work."""

    name = "fake"

    def __init__(self, latencies: dict[str, float]) -> None:
        self.latencies = latencies

    async def complete(self, request: ChatRequest, api_key: str | None) -> ModelReply:
        await asyncio.sleep(self.latencies.get(request.model, 0.0))
        return ModelReply(outcome=Outcome.ANSWERED, text=ANSWER, prompt_tokens=900)


class PayloadRecorder:
    """The engine's recording work: each record as its canonical event payload."""

    def __init__(self) -> None:
        self.count = 0
        self.chars = 0

    def __call__(self, record: CallRecord) -> None:
        self.count += 1
        self.chars += len(canonical_json(record.to_payload()))


async def gateway_round(
    provider: Provider, agents: int, params: CallParams, warm_agents: int
) -> tuple[list[CallRecord], float, float]:
    """Warm up, then run one measured round; return its records, wall and CPU seconds."""
    async with Gateway([provider], limits={"fake": agents}, recorder=PayloadRecorder()) as gw:
        await gw.call_all(calls_for(["warmup"] * warm_agents, "warmup", params))
        calls = calls_for([f"agent-{i:04d}" for i in range(agents)], "r1", params)
        loop = asyncio.get_running_loop()
        cpu0 = time.process_time()
        wall0 = loop.time()
        records = await gw.call_all(calls)
        wall = loop.time() - wall0
        cpu = time.process_time() - cpu0
    return records, wall, cpu


async def run(args: argparse.Namespace, url: str, latencies: list[float]) -> None:
    agents = args.agents
    params = CallParams(temperature=0.3, max_tokens=320, reasoning=False, timeout_s=45.0)
    warm = 20 if args.cold else agents
    http = OpenAICompatProvider(custom_preset("fake", url), max_connections=agents)
    print(
        f"provider                  fake OpenAI-compatible server at {url} "
        f"(own process, {args.server_http} parser)"
    )
    print("HTTP client               the provider's pooled keep-alive HTTP/1.1 client")
    print(
        f"connections               {'cold: 20 warm-up calls' if args.cold else 'warm: a '}"
        f"{'' if args.cold else f'warm-up round of {warm} calls opened them (keep-alive)'}"
    )
    records, wall, cpu = await gateway_round(http, agents, params, warm)
    sleeping = SleepingProvider({f"agent-{i:04d}": lat for i, lat in enumerate(latencies)})
    _, engine_wall, engine_cpu = await gateway_round(sleeping, agents, params, 20)
    answered = sum(r.outcome is Outcome.ANSWERED for r in records)
    slowest = max(latencies)
    overhead_ms = sorted(
        r.latency_ms - round(lat * 1000) for r, lat in zip(records, latencies, strict=True)
    )
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"agents                    {agents} (seed {args.seed}), answered {answered}")
    print(f"slowest scripted answer   {slowest:.3f} s")
    print(
        f"round wall time, HTTP     {wall:.3f} s  (slowest + {wall - slowest:.3f} s; "
        "target: slowest + 0.25 s)"
    )
    print(
        f"per-call overhead (ms)    median {overhead_ms[len(overhead_ms) // 2]}, "
        f"p99 {overhead_ms[int(len(overhead_ms) * 0.99)]}, max {overhead_ms[-1]}"
    )
    print(
        f"CPU per turn, total       {cpu / agents * 1000:.3f} ms  (this process over HTTP: "
        "gateway + recording + request, HTTP client, parsing; target < 0.3 ms)"
    )
    print(
        f"CPU per turn, engine      {engine_cpu / agents * 1000:.3f} ms  (gateway + recording "
        "alone, same round without the HTTP client; target < 1 ms)"
    )
    print(
        f"round wall time, engine   {engine_wall:.3f} s  (slowest + {engine_wall - slowest:.3f} s)"
    )
    print(f"peak RSS                  {peak_mib:.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20260716)
    parser.add_argument(
        "--cold", action="store_true", help="open the connections during the measured round"
    )
    parser.add_argument("--server-http", choices=["httptools", "h11"], default="httptools")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    latencies = [round(rng.uniform(0.5, 5.0), 3) for _ in range(args.agents)]
    script = {
        "models": {
            f"agent-{i:04d}": {"text": ANSWER, "latency_s": lat} for i, lat in enumerate(latencies)
        },
        "default": {"text": ANSWER},
    }
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 4 * args.agents + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "script.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        proc, url = start_fake(path, args.server_http)
        try:
            asyncio.run(run(args, url, latencies))
        finally:
            proc.terminate()
            proc.wait(timeout=10)
            if proc.stdout is not None:
                proc.stdout.close()
    server = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"fake server CPU           {server.ru_utime + server.ru_stime:.3f} s in all "
        f"(its own process, start to stop; {os.cpu_count()} CPUs here)"
    )


if __name__ == "__main__":
    main()
