"""What each agent answered, how long it took, and what went wrong: read back from the store.

Every format records a ``ModelCalled`` event per attempt and how each turn
ended: one entry per turn (``DecisionMade``, ``NoDecisionMade`` or
``TurnSkipped``), or, in a format whose turn may take several attempts (the
thesis league's answer and correction), one judged event per attempt, which
the format's ``turns`` part (`AttemptReader`) reads. ``turn_ends`` reads both
as one ending per turn. This module folds a season's events into the rows
``tradeleague log`` prints and REPORT.json carries (the raw answer text
without invisible characters (C-10), the latency, the outcome and the
provider's error class), and into a summary per agent that names the cause
and the likely fix when an agent never decided because its provider failed.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from tradeleague.agents.recorded import call_record_of
from tradeleague.calls import Outcome
from tradeleague.errors import ConfigError
from tradeleague.events import Event, EventKind
from tradeleague.events.streams import season_stream
from tradeleague.llm.records import CallRecord, RecordFormatError
from tradeleague.plugin import formats
from tradeleague.store import Store, StoredEvent

__all__ = [
    "AgentSummary",
    "AttemptReader",
    "CallRow",
    "TurnEnd",
    "answers_payload",
    "call_rows",
    "error_class",
    "season_streams",
    "summarise",
    "turn_ends",
]

_N_CTX = re.compile(r"n_ctx\D{0,12}(\d+)|(?:context (?:length|window) is)\D{0,12}(\d+)", re.I)
_N_PROMPT = re.compile(r"n_prompt_tokens\D{0,12}(\d+)|(\d+) (?:prompt )?tokens", re.I)


def plain_text(text: str) -> str:
    """Return ``text`` without invisible characters (zero-width, bidi controls: C-10).

    Not HTML-escaped: the terminal and JSON show it as text; pages escape it.
    """
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def error_class(record: CallRecord) -> str | None:
    """Return the provider fault's class of ``record``, or ``None`` when it answered.

    Classes: ``key_missing``, ``key_rejected``, ``output_unsupported`` (the
    provider refused the structured output it was sent), ``connection_refused``
    (no connection could be made: nothing was sent), ``connection_reset`` (the
    connection dropped after the request was sent; it was not sent again),
    ``context_too_small``, ``model_not_found``, ``rate_limited``,
    ``timeout``, ``http_<status>`` for any other HTTP error, else the outcome.
    """
    outcome = record.outcome
    error = (record.error or "").lower()
    if outcome is Outcome.ANSWERED:
        return None
    if outcome is Outcome.KEY_UNREADABLE:
        return "key_missing"
    if error.startswith("output_unsupported"):
        return "output_unsupported"
    if error.startswith("connection reset") or "closed the connection" in error:
        return "connection_reset"
    if error.startswith(("connection failed", "connection error")) or "refused" in error:
        return "connection_refused"
    if record.http_status == 400 and ("context" in error or "n_ctx" in error):
        return "context_too_small"
    if outcome in (Outcome.KEY_REJECTED, Outcome.MODEL_NOT_FOUND, Outcome.RATE_LIMITED):
        return outcome.value
    if outcome is Outcome.TIMEOUT:
        return "timeout"
    if record.http_status is not None:
        return f"http_{record.http_status}"
    return outcome.value


@dataclass(frozen=True, slots=True)
class CallRow:
    """One recorded attempt of one model call, as the log shows it."""

    round: str
    agent: str
    turn: int
    attempt: int
    final: bool
    provider: str
    model: str
    outcome: str
    error_class: str | None
    http_status: int | None
    error: str | None
    latency_ms: int
    prompt_tokens: int | None
    text: str | None

    @classmethod
    def of(cls, record: CallRecord) -> CallRow:
        """Return the row of ``record``; model text and errors are shown as plain text (C-10)."""
        return cls(
            round=record.key.round,
            agent=record.key.agent,
            turn=record.key.turn,
            attempt=record.attempt,
            final=record.final,
            provider=record.provider,
            model=record.model,
            outcome=record.outcome.value,
            error_class=error_class(record),
            http_status=record.http_status,
            error=None if record.error is None else plain_text(record.error),
            latency_ms=record.latency_ms,
            prompt_tokens=record.prompt_tokens,
            text=None if record.text is None else plain_text(record.text),
        )

    def to_payload(self) -> dict[str, Any]:
        """Return the row as JSON-ready data (REPORT.json, ``log --json``)."""
        return {
            "round": self.round,
            "agent": self.agent,
            "turn": self.turn,
            "attempt": self.attempt,
            "final": self.final,
            "provider": self.provider,
            "model": self.model,
            "outcome": self.outcome,
            "error_class": self.error_class,
            "http_status": self.http_status,
            "error": self.error,
            "latency_ms": self.latency_ms,
            "prompt_tokens": self.prompt_tokens,
            "text": self.text,
        }


def season_streams(season: str) -> tuple[str, ...]:
    """Return the streams a season id may name: itself, and each format's ``FORMAT/ID``."""
    return (season, *(season_stream(f.key, season) for f in formats()))


def _season_events(store: Store, season: str) -> Iterable[StoredEvent]:
    for stream in season_streams(season):
        yield from store.events(stream)


def call_rows(
    store: Store,
    season: str,
    *,
    agent: str | None = None,
    round_id: str | None = None,
    of_season: str | None = None,
) -> list[CallRow]:
    """Return every recorded model call of ``season`` (a season id or a stream), in log order.

    ``of_season`` keeps only the calls made in that season (in a stream that
    holds several, such as the arena's). A season with no stream of its own
    (an arena's ``S1``) is found in the stream that holds it, or given as
    ``STREAM/SEASON``.

    Raises
    ------
    RecordFormatError
        If a ``ModelCalled`` payload is not a call record.
    ConfigError
        If the season is held by more than one stream (say which as ``STREAM/SEASON``).
    """
    rows = _rows(_season_events(store, season), agent, round_id, of_season)
    if rows or of_season is not None:
        return rows
    found: dict[str, list[CallRow]] = {}
    own = set(season_streams(season))
    for stream in store.streams():
        if stream in own:
            continue
        if season.startswith(f"{stream}/"):
            held = season[len(stream) + 1 :]
            found[stream] = _rows(store.events(stream), agent, round_id, held)
        else:
            found[stream] = _rows(store.events(stream), agent, round_id, season)
    holders = sorted(stream for stream, held in found.items() if held)
    if len(holders) > 1:
        named = ", ".join(f"{stream}/{season}" for stream in holders)
        raise ConfigError(f"season {season!r} is in {len(holders)} streams: give one of {named}")
    return found[holders[0]] if holders else []


def _rows(
    events: Iterable[StoredEvent], agent: str | None, round_id: str | None, of_season: str | None
) -> list[CallRow]:
    rows: list[CallRow] = []
    for stored in events:
        if stored.event.kind != EventKind.MODEL_CALLED:
            continue
        try:
            record = call_record_of(stored.event.payload)
        except RecordFormatError as exc:
            raise RecordFormatError(f"event {stored.seq}: not a call record: {exc}") from None
        if of_season is not None and record.key.season != of_season:
            continue
        row = CallRow.of(record)
        if agent not in (None, row.agent):
            continue
        if round_id is not None and round_id not in (row.round, row.round.rsplit("/", 1)[-1]):
            continue
        rows.append(row)
    return rows


@dataclass(slots=True)
class AgentSummary:
    """One agent's turns: decisions, no-decisions by reason code, provider faults by class."""

    agent: str
    decisions: int = 0
    no_decisions: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    fault_errors: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int | None = None

    @property
    def stranded(self) -> bool:
        """Return whether the agent never decided and its provider failed."""
        return self.decisions == 0 and sum(self.faults.values()) > 0

    def line(self) -> str:
        """Return the one-line summary: decisions, no-decisions, provider faults."""
        nod = ", ".join(f"{k} {v}" for k, v in sorted(self.no_decisions.items())) or "none"
        faults = ", ".join(f"{k} {v}" for k, v in sorted(self.faults.items())) or "none"
        return (
            f"{self.agent}: decisions {self.decisions}; no decision: {nod}; "
            f"provider faults: {faults}"
        )

    def diagnosis(self) -> str | None:
        """Return one sentence naming the cause and the likely fix, when ``stranded``."""
        if not self.stranded:
            return None
        cause, _count = self.faults.most_common(1)[0]
        error = self.fault_errors.get(cause, "")
        return f"{self.agent} never decided: {_advice(cause, error, self.prompt_tokens)}"


def _advice(cause: str, error: str, prompt_tokens: int | None) -> str:
    if cause == "key_missing":
        return f"its key is missing ({error}); export the variable and run again."
    if cause == "key_rejected":
        return f"the provider refused its key ({error}); check the key variable's value."
    if cause == "connection_refused":
        return (
            f"nothing answered at the provider's address ({error}); start the server "
            "or correct the URL and port."
        )
    if cause == "connection_reset":
        return (
            f"the provider dropped the connection after the request was sent ({error}); "
            "it was not sent again. Check the server's log for a crash, or a proxy "
            "that cuts connections."
        )
    if cause == "output_unsupported":
        return (
            f"the provider refused the structured output it was sent ({error}); choose "
            "another with ,output= (json_object or text), or name the server's kind "
            "(@llamacpp=URL, @vllm=URL, @ollama=URL)."
        )
    if cause == "context_too_small":
        ctx = _first_number(_N_CTX, error)
        tokens = _first_number(_N_PROMPT, error) or prompt_tokens
        measured = "" if tokens is None else f" of {tokens} tokens"
        room = "" if ctx is None else f" (the model's context holds {ctx})"
        return (
            f"the prompt{measured} does not fit the model's context{room}; start the "
            "server with a larger context (llama.cpp: -c) or use a model with a longer one."
        )
    if cause == "model_not_found":
        return f"the provider does not know the model ({error}); check the model name."
    if cause == "timeout":
        return f"no answer came in time ({error}); raise --timeout or check the server."
    if cause == "rate_limited":
        return f"the provider rate-limited every call ({error}); wait or lower the load."
    return f"the provider failed every call ({cause}: {error}); check the server's log."


def _first_number(pattern: re.Pattern[str], text: str) -> int | None:
    match = pattern.search(text)
    if match is None:
        return None
    return int(next(g for g in match.groups() if g is not None))


DECISION: Final = "decisions"
NO_DECISION: Final = "no decision"
SKIPPED: Final = "skipped"
"""How a turn ended, as the progress line and the summary count it."""


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """How one agent's turn ended: ``DECISION``, ``NO_DECISION`` or ``SKIPPED``, and why."""

    agent: str
    ending: str
    reason: str | None = None


class AttemptReader(Protocol):
    """A format's ``turns`` part: how one attempt of a turn of several attempts ended.

    A turn is every attempt an agent made in one round; it is a decision if any
    attempt was, else it ends as its last attempt did, and it ends with its
    round's ``RoundFinished``.
    """

    kind: str
    """The event kind that records one judged attempt (with ``agent`` and ``round``)."""

    def judge(self, payload: dict[str, Any], agent: str) -> TurnEnd:
        """Return how the attempt recorded in ``payload`` ended."""
        ...


def _attempt_readers() -> dict[str, AttemptReader]:
    readers = (f.part("turns") for f in formats() if f.has("turns"))
    return {reader.kind: reader for reader in readers}


def turn_ends(events: Iterable[Event]) -> Iterator[TurnEnd]:
    """Yield how each turn in ``events`` ended, in the order the turns end.

    ``DecisionMade``, ``NoDecisionMade`` and ``TurnSkipped`` are one turn each.
    A turn of several attempts (a format's `AttemptReader`: the thesis league's
    answer, then its correction if there was one) is a decision if any attempt
    was, else it ends as its last attempt did; it ends with its round's
    ``RoundFinished`` (or with ``events``).
    """
    readers = _attempt_readers()
    open_turns: dict[tuple[str, str], TurnEnd] = {}
    for event in events:
        kind, payload = event.kind, event.payload
        agent = payload.get("agent")
        if kind in readers and isinstance(agent, str):
            key = (str(payload.get("round")), agent)
            before = open_turns.get(key)
            end = readers[kind].judge(payload, agent)
            open_turns[key] = before if before is not None and before.ending == DECISION else end
        elif kind == EventKind.ROUND_FINISHED:
            cycle = str(payload.get("round"))
            for key in [k for k in open_turns if k[0] == cycle]:
                yield open_turns.pop(key)
        elif not isinstance(agent, str):
            continue
        elif kind == EventKind.DECISION_MADE:
            yield TurnEnd(agent, DECISION)
        elif kind in (EventKind.NO_DECISION_MADE, EventKind.TURN_SKIPPED):
            ending = NO_DECISION if kind == EventKind.NO_DECISION_MADE else SKIPPED
            reason = payload.get("reason_code") or payload.get("reason") or "unknown"
            yield TurnEnd(agent, ending, str(reason))
    yield from open_turns.values()


def summarise(store: Store, season: str) -> list[AgentSummary]:
    """Return each agent's summary of ``season`` (a season id or a stream), by first appearance.

    Decisions and no-decisions by reason code are the turns' endings
    (``turn_ends``; a skipped turn counts as no decision, by its code);
    provider faults are the final attempts of calls that did not answer, by
    ``error_class``.
    """
    agents: dict[str, AgentSummary] = {}
    attempts = frozenset(_attempt_readers())

    def of(name: str) -> AgentSummary:
        return agents.setdefault(name, AgentSummary(name))

    def entries() -> Iterator[Event]:
        for stored in _season_events(store, season):
            kind, payload = stored.event.kind, stored.event.payload
            if kind != EventKind.MODEL_CALLED:
                name = payload.get("agent")
                if kind in attempts and isinstance(name, str):
                    of(name)  # listed when first judged, not when its round ends
                yield stored.event
                continue
            try:
                record = call_record_of(payload)
            except RecordFormatError:
                continue
            summary = of(record.key.agent)
            if record.prompt_tokens is not None:
                summary.prompt_tokens = record.prompt_tokens
            cls = error_class(record)
            if record.final and cls is not None:
                summary.faults[cls] += 1
                summary.fault_errors.setdefault(cls, plain_text(record.error or "no detail"))

    for end in turn_ends(entries()):
        if end.ending == DECISION:
            of(end.agent).decisions += 1
        else:
            of(end.agent).no_decisions[end.reason or "unknown"] += 1
    return list(agents.values())


def answers_payload(
    store: Store, season: str, *, of_season: str | None = None
) -> dict[str, list[dict[str, object]]]:
    """Return every call of ``season`` (a season id or a stream) per agent, for REPORT.json.

    ``of_season`` keeps only the calls of that season of a stream.
    """
    out: dict[str, list[dict[str, object]]] = {}
    for row in call_rows(store, season, of_season=of_season):
        out.setdefault(row.agent, []).append(row.to_payload())
    return out
