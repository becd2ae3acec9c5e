"""How often the offline house model answers in the required format, free vs constrained.

Asks the local house model (``tradeleague[local]``, SmolLM2-135M-Instruct by
default, or ``TRADELEAGUE_HOUSE_MODEL``) the same prompts twice: once free, once
through the grammar built from the answer schema (tradeleague.llm.grammar). Two
formats, N prompts each (synthetic market numbers from a fixed seed), with the
direction arena's call parameters (temperature 0.3, at most 320 tokens, D-ASK-2).

Columns:

* ``json``: the whole reply parses as JSON (nothing before or after, W-VAL-1);
* ``shape``: it is an object with exactly the required keys and value types
  (weights: ``targets`` symbol -> number and ``reason`` string; direction:
  ``direction`` and ``rationale`` strings);
* ``rules``: it also passes the format's checks: weights W-VAL-3..6 (league
  symbols, 0-100 with at most two decimals, sum <= 100, non-empty reason);
  direction D-ASK-3 (``up``/``down``, rationale 1-280 characters).

Under each row, how many replies failed first at which check.

Run: ``.venv/bin/python bench/house_model_validity.py [--n 20] [--max-tokens 320]
[--formats weights,direction] [--modes free,constrained]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.llm.grammar import direction_answer_schema, weights_answer_schema
from tradeleague.llm.local import LocalProvider, resolve_model_path
from tradeleague.llm.types import ChatRequest, ModelReply

SYMBOLS = ("AAPL", "AMZN", "GLD", "JPM", "MSFT", "NVDA", "SPY", "TLT", "XLE", "XOM")
OWNER_PROMPTS = (
    "Follow momentum: hold what went up most over 20 days.",
    "Be defensive: prefer bonds and gold when stocks fall.",
    "Buy the biggest losers of the last 5 days.",
    "Keep it simple: split evenly across the index and bonds.",
    "Concentrate on technology when it leads.",
)
WEIGHTS_FORMAT = (
    "Answer with only a JSON object, nothing before or after it: "
    '{"targets": {"SYMBOL": percent, ...}, "reason": "one sentence"}. '
    "Percents are numbers from 0 to 100 with at most two decimals and add up to at most 100."
)
DIRECTION_FORMAT = (
    "Answer with only a JSON object: "
    '{"direction": "up" or "down", "rationale": "at most 280 characters"}.'
)


def _pct(rng: random.Random, scale: float) -> str:
    return f"{rng.gauss(0, scale):+.2f}%"


def weights_prompt(rng: random.Random) -> str:
    lines = ["Time: 2026-03-02 15:00 UTC", "Symbol, price, return 1d / 5d / 20d:"]
    for symbol in SYMBOLS:
        price = rng.uniform(20, 600)
        lines.append(f"{symbol} {price:.2f} {_pct(rng, 1)} / {_pct(rng, 2.5)} / {_pct(rng, 5)}")
    lines += [
        "Halted: none",
        "Portfolio value: 10000.00; weights: cash 100%",
        f"Owner's prompt: {rng.choice(OWNER_PROMPTS)}",
        WEIGHTS_FORMAT,
    ]
    return "\n".join(lines)


def direction_prompt(rng: random.Random) -> str:
    price = rng.uniform(60_000, 70_000)
    closes = []
    for _ in range(6):
        price *= 1 + rng.gauss(0, 0.001)
        closes.append(f"{price:.2f}")
    return (
        "You trade a 5-minute BTC/USD binary option. Last six one-minute closes: "
        + ", ".join(closes)
        + ". Will the price be higher in 5 minutes? "
        + DIRECTION_FORMAT
    )


def weights_failure(text: str) -> str:
    """Name the first check the reply fails ("" when it passes them all)."""
    try:
        answer = json.loads(text)
    except ValueError:
        return "json"
    if not (
        isinstance(answer, dict)
        and set(answer) == {"targets", "reason"}
        and isinstance(answer["targets"], dict)
        and all(
            isinstance(v, int | float) and not isinstance(v, bool)
            for v in answer["targets"].values()
        )
        and isinstance(answer["reason"], str)
    ):
        return "shape"
    weights = [Decimal(str(v)) for v in answer["targets"].values()]
    if not set(answer["targets"]) <= set(SYMBOLS):
        return "W-VAL-3"
    if not all(0 <= w <= 100 and w == w.quantize(Decimal("0.01")) for w in weights):
        return "W-VAL-4"
    if sum(weights, Decimal(0)) > 100:
        return "W-VAL-5"
    if not answer["reason"].strip():
        return "W-VAL-6"
    return ""


def direction_failure(text: str) -> str:
    """Name the first check the reply fails ("" when it passes them all)."""
    try:
        answer = json.loads(text)
    except ValueError:
        return "json"
    return _direction_answer_failure(answer)


def direction_failure_extracted(text: str) -> str:
    """As :func:`direction_failure`, after digging the first JSON object out of prose."""
    decoder = json.JSONDecoder()
    for start in (i for i, char in enumerate(text) if char == "{"):
        try:
            answer, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        return _direction_answer_failure(answer)
    return "json"


def _direction_answer_failure(answer: object) -> str:
    if not (
        isinstance(answer, dict)
        and set(answer) == {"direction", "rationale"}
        and isinstance(answer["direction"], str)
        and isinstance(answer["rationale"], str)
    ):
        return "shape"
    if answer["direction"] not in ("up", "down"):
        return "direction"
    if not 0 < len(answer["rationale"]) <= 280:
        return "rationale"
    return ""


@dataclass(frozen=True)
class Case:
    name: str
    prompt: Callable[[random.Random], str]
    schema: dict[str, Any]
    failure: Callable[[str], str]
    extracted: Callable[[str], str] | None = None


CASES = (
    Case("weights", weights_prompt, weights_answer_schema(SYMBOLS), weights_failure),
    Case(
        "direction",
        direction_prompt,
        direction_answer_schema(),
        direction_failure,
        direction_failure_extracted,
    ),
)


async def run(n: int, max_tokens: int, formats: set[str], modes: set[str]) -> None:
    provider = LocalProvider()
    params = CallParams(temperature=0.3, max_tokens=max_tokens)
    print(f"model: {resolve_model_path()}")
    print(f"{n} prompts per format; temperature {params.temperature}; max_tokens {max_tokens}")
    header = f"{'format':<10} {'mode':<12} {'json':>6} {'shape':>6} {'rules':>6}"
    header += f" {'s/call':>7} {'tokens':>7}"
    print(header)
    print("-" * len(header))
    for case in (c for c in CASES if c.name in formats):
        prompts = [case.prompt(random.Random(1000 + i)) for i in range(n)]
        for mode, schema in (("free", None), ("constrained", case.schema)):
            if mode not in modes:
                continue
            replies: list[ModelReply] = []
            for prompt in prompts:
                request = ChatRequest(
                    model="house",
                    messages=(Message("user", prompt),),
                    params=params,
                    json_schema=schema,
                )
                reply = await provider.complete(request, None)
                if reply.outcome is not Outcome.ANSWERED:
                    raise SystemExit(f"house model unavailable: {reply.error}")
                replies.append(reply)
            failures = Counter(case.failure(r.text or "") for r in replies)
            counts = [
                n - failures["json"],
                n - failures["json"] - failures["shape"],
                failures[""],
            ]
            latency = statistics.mean(r.latency_s for r in replies)
            tokens = statistics.mean(r.completion_tokens or 0 for r in replies)
            print(
                f"{case.name:<10} {mode:<12} "
                + " ".join(f"{c:>3}/{n:<2}" for c in counts)
                + f" {latency:>7.2f} {tokens:>7.1f}"
            )
            first = ", ".join(f"{k} {v}" for k, v in sorted(failures.items()) if k)
            print(f"{'':<23}first failed check: {first or 'none'}")
            if case.extracted is not None:
                dug = sum(case.extracted(r.text or "") == "" for r in replies)
                print(f"{'':<23}valid after extracting the object from prose (D-ASK-3): {dug}/{n}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="prompts per format")
    parser.add_argument("--max-tokens", type=int, default=320)
    parser.add_argument("--formats", default="weights,direction", help="comma-separated")
    parser.add_argument("--modes", default="free,constrained", help="comma-separated")
    args = parser.parse_args()
    formats, modes = set(args.formats.split(",")), set(args.modes.split(","))
    asyncio.run(run(args.n, args.max_tokens, formats, modes))


if __name__ == "__main__":
    main()
