"""One round fanned out to 1,000 agents against the fake provider (printed, not asserted).

Each agent's model answers after a latency drawn (seeded) from 0.5-5 s. The fake
provider runs in its own process (``python -m tradeleague.testing.fake_provider``)
so that this process's CPU time is the engine's own work: the gateway, the
official OpenAI client and the HTTP connections. Reported:

- wall time of the round against its slowest answer (target: slowest + 1 s);
- CPU time per turn: process CPU time of the round / turns (target: < 1 ms);
- peak memory: the process's peak resident set size.

Run: ``.venv/bin/python bench/round_fanout.py [--agents 1000] [--seed 20260716]``;
``--no-http`` swaps the server for an in-process provider that only sleeps, to
separate the gateway's own cost from the HTTP client's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tradeleague.llm.gateway import Call, Gateway
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.presets import custom_preset
from tradeleague.llm.records import CallKey
from tradeleague.llm.types import CallParams, ChatRequest, Message, ModelReply, Outcome, Provider

ANSWER = '{"direction": "up", "rationale": "Higher lows on the last 30 candles."}'
PROMPT = "BTC/USD one-minute candles (180):\n" + "\n".join(
    f"{i},{64000 + i},{64010 + i},{63990 + i},{64005 + i}" for i in range(180)
)


def start_fake(script: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tradeleague.testing.fake_provider",
            "--port",
            "0",
            "--script",
            str(script),
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


async def run(agents: int, seed: int, url: str | None, latencies: list[float]) -> None:
    params = CallParams(temperature=0.3, max_tokens=320, reasoning=False, timeout_s=45.0)
    provider: Provider
    if url is None:
        provider = SleepingProvider({f"agent-{i:04d}": lat for i, lat in enumerate(latencies)})
        print("provider                  in-process, no HTTP (the gateway's own work)")
    else:
        provider = OpenAICompatProvider(custom_preset("fake", url), max_connections=agents)
        print(f"provider                  fake OpenAI-compatible server at {url}")
    async with Gateway([provider], limits={"fake": agents}) as gw:
        await gw.call_all(calls_for(["warmup"] * 20, "warmup", params))
        models = [f"agent-{i:04d}" for i in range(agents)]
        calls = calls_for(models, "r1", params)
        loop = asyncio.get_running_loop()
        cpu0 = time.process_time()
        wall0 = loop.time()
        records = await gw.call_all(calls)
        wall = loop.time() - wall0
        cpu = time.process_time() - cpu0
    answered = sum(r.outcome is Outcome.ANSWERED for r in records)
    slowest = max(latencies)
    overhead_ms = sorted(
        r.latency_ms - round(lat * 1000) for r, lat in zip(records, latencies, strict=True)
    )
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"agents                    {agents} (seed {seed}), answered {answered}")
    print(f"slowest scripted answer   {slowest:.3f} s")
    print(
        f"round wall time           {wall:.3f} s  (slowest + {wall - slowest:.3f} s; target < 1 s)"
    )
    print(
        f"per-call overhead (ms)    median {overhead_ms[len(overhead_ms) // 2]}, "
        f"p99 {overhead_ms[int(len(overhead_ms) * 0.99)]}, max {overhead_ms[-1]}"
    )
    print(f"CPU time per turn         {cpu / agents * 1000:.3f} ms  (target < 1 ms)")
    print(f"process CPU for the round {cpu:.3f} s")
    print(f"peak RSS                  {peak_mib:.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20260716)
    parser.add_argument(
        "--no-http", action="store_true", help="an in-process provider: the gateway alone"
    )
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
    if args.no_http:
        asyncio.run(run(args.agents, args.seed, None, latencies))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "script.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        proc, url = start_fake(path)
        try:
            asyncio.run(run(args.agents, args.seed, url, latencies))
        finally:
            proc.terminate()
            proc.wait(timeout=10)
            if proc.stdout is not None:
                proc.stdout.close()


if __name__ == "__main__":
    main()
