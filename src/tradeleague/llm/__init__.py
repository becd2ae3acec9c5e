"""One code path to every model (SPEC C-2, C-5): the gateway and its providers.

- ``types``: the request, parameters, outcome and reply every provider shares.
- ``presets``: where OpenRouter, OpenAI, Ollama, vLLM and llama.cpp servers live.
- ``dialects``: how each kind of server takes structured output (the answer's schema).
- ``openai_compat``: the provider for any OpenAI-compatible endpoint.
- ``http_pool``: its keep-alive HTTP/1.1 connection pool (one per provider and loop).
- ``gateway``: deadlines, concurrency limits, retries and records of every call.
- ``records``: ``CallRecord`` and its JSON-safe payload for the event store.
- ``redact``: scrubbing the key sent and other secrets out of error texts (C-9).
- ``prices``: the price table and the exact cost of a call.
- ``replay``: answering a re-run season from its recorded calls.
"""

from typing import TYPE_CHECKING, Any

from tradeleague.llm.gateway import Call, Gateway, ModelGateway
from tradeleague.llm.presets import PRESETS, ProviderPreset, custom_preset, preset
from tradeleague.llm.records import CallKey, CallRecord, MissReason, ReplayMiss
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.llm.token_prices import Price, PriceTable
from tradeleague.llm.types import ChatRequest, ModelReply, Provider

if TYPE_CHECKING:
    from tradeleague.llm.openai_compat import OpenAICompatProvider

__all__ = [
    "PRESETS",
    "Call",
    "CallKey",
    "CallRecord",
    "ChatRequest",
    "Gateway",
    "MissReason",
    "ModelGateway",
    "ModelReply",
    "OpenAICompatProvider",
    "Price",
    "PriceTable",
    "Provider",
    "ProviderPreset",
    "RecordedAnswers",
    "ReplayGateway",
    "ReplayMiss",
    "custom_preset",
    "preset",
]


def __getattr__(name: str) -> Any:
    """Import ``OpenAICompatProvider`` on first use, with its HTTP stack."""
    if name == "OpenAICompatProvider":
        from tradeleague.llm.openai_compat import OpenAICompatProvider

        return OpenAICompatProvider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
