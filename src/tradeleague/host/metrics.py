"""The host's Prometheus metrics, names prefixed ``tradeleague_`` (issue 12).

One ``Metrics`` per process, on its own registry, so tests and the API can
each build one without clashing: rounds played and missed, model calls and
their latency by format, agent, provider and outcome, and the event store's
append latency. ``render`` is the Prometheus text exposition of the registry.

Agent and provider names come from league files and recorded calls, so their
label sets are bounded (`Bounded`): the first ``AGENT_LABELS`` agents and
``PROVIDER_LABELS`` providers seen keep their names, cut to ``LABEL_CHARS``
characters; any later one is counted as ``other``. A scraper's series stay
few however many agents a host plays.
"""

from __future__ import annotations

import re
from typing import Final

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = [
    "AGENT_LABELS",
    "CONTENT_TYPE",
    "LABEL_CHARS",
    "OTHER",
    "PROVIDER_LABELS",
    "Bounded",
    "Metrics",
]

CONTENT_TYPE = CONTENT_TYPE_LATEST
"""The content type of the text exposition."""

AGENT_LABELS: Final = 50
"""How many distinct agents keep their own ``agent`` label; later ones are ``other``."""
PROVIDER_LABELS: Final = 20
"""How many distinct providers keep their own ``provider`` label; later ones are ``other``."""
OUTCOME_LABELS: Final = 30
"""How many distinct outcomes keep their own ``outcome`` label (the gateway has fewer)."""
LABEL_CHARS: Final = 40
"""The longest label value; a longer name is cut to this many characters."""
OTHER: Final = "other"
"""The label value of every name past a label's bound."""

_UNPRINTABLE = re.compile(r"[^\x20-\x7e]")


class Bounded:
    """One label's values: the first ``limit`` distinct names kept (cut), the rest ``other``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._kept: set[str] = set()

    def __call__(self, name: str) -> str:
        """Return the label value of ``name``: itself (printable, cut) while there is room."""
        value = _UNPRINTABLE.sub("?", name)[:LABEL_CHARS] or "-"
        if value in self._kept:
            return value
        if len(self._kept) >= self.limit:
            return OTHER
        self._kept.add(value)
        return value


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
        bound = (
            f"the first {AGENT_LABELS} agents and {PROVIDER_LABELS} providers seen keep "
            f"their names (cut to {LABEL_CHARS} characters), later ones count as '{OTHER}'"
        )
        self.calls = Counter(
            "tradeleague_model_calls",
            f"Model calls recorded (each attempt), by format, agent, provider and outcome; "
            f"{bound}.",
            ["format", "agent", "provider", "outcome"],
            registry=self.registry,
        )
        self.call_latency = Histogram(
            "tradeleague_model_call_latency_seconds",
            f"Latency of recorded model calls, by format, agent, provider and outcome; {bound}.",
            ["format", "agent", "provider", "outcome"],
            buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120),
            registry=self.registry,
        )
        self._agents = Bounded(AGENT_LABELS)
        self._providers = Bounded(PROVIDER_LABELS)
        self._outcomes = Bounded(OUTCOME_LABELS)
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

    def call(
        self, fmt: str, agent: str, provider: str, outcome: str, latency_s: float | None
    ) -> None:
        """Count one model call of ``agent`` (``fmt``) to ``provider``, and its latency if known.

        ``agent``, ``provider`` and ``outcome`` are bounded label values (`Bounded`).
        """
        labels = {
            "format": fmt,
            "agent": self._agents(agent),
            "provider": self._providers(provider),
            "outcome": self._outcomes(outcome),
        }
        self.calls.labels(**labels).inc()
        if latency_s is not None and latency_s >= 0:
            self.call_latency.labels(**labels).observe(latency_s)

    def appended(self, seconds: float) -> None:
        """Observe one append's duration."""
        self.append_latency.observe(seconds)

    def render(self) -> bytes:
        """Return the registry in the Prometheus text format."""
        return generate_latest(self.registry)
