"""The host's Prometheus metrics, names prefixed ``tradeleague_`` (issue 12).

One ``Metrics`` per process, on its own registry, so tests and the API can
each build one without clashing: rounds played and missed, model calls by
outcome, a call-latency histogram and the event store's append latency.
``render`` is the Prometheus text exposition of the registry.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = ["CONTENT_TYPE", "Metrics"]

CONTENT_TYPE = CONTENT_TYPE_LATEST
"""The content type of the text exposition."""


class Metrics:
    """The counters and histograms of one host (or one API server)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.rounds_played = Counter(
            "tradeleague_rounds_played",
            "Rounds (slots) played, by format.",
            ["format"],
            registry=self.registry,
        )
        self.rounds_missed = Counter(
            "tradeleague_rounds_missed",
            "Slots recorded as missed, by format and reason.",
            ["format", "reason"],
            registry=self.registry,
        )
        self.calls = Counter(
            "tradeleague_model_calls",
            "Model calls recorded, by outcome.",
            ["outcome"],
            registry=self.registry,
        )
        self.call_latency = Histogram(
            "tradeleague_model_call_latency_seconds",
            "Latency of recorded model calls.",
            buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120),
            registry=self.registry,
        )
        self.append_latency = Histogram(
            "tradeleague_store_append_seconds",
            "Time to append one batch of events to the event store.",
            buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5),
            registry=self.registry,
        )

    def played(self, fmt: str) -> None:
        """Count one round played for ``fmt``."""
        self.rounds_played.labels(format=fmt).inc()

    def missed(self, fmt: str, reason: str) -> None:
        """Count one slot of ``fmt`` missed for ``reason``."""
        self.rounds_missed.labels(format=fmt, reason=reason).inc()

    def call(self, outcome: str, latency_s: float | None) -> None:
        """Count one model call with its outcome, and its latency when known."""
        self.calls.labels(outcome=outcome[:40]).inc()
        if latency_s is not None and latency_s >= 0:
            self.call_latency.observe(latency_s)

    def appended(self, seconds: float) -> None:
        """Observe one append's duration."""
        self.append_latency.observe(seconds)

    def render(self) -> bytes:
        """Return the registry in the Prometheus text format."""
        return generate_latest(self.registry)
