"""Model calls as ``ModelCalled`` events, and the recorded answers a replay reads (C-5).

Live, ``store_recorder`` is the gateway's recorder: each call record (every
attempt) becomes one ``ModelCalled`` event whose payload is
``CallRecord.to_payload()``. For a replay, ``load_recorded_answers`` reads a
season's ``ModelCalled`` events back into the ``RecordedAnswers`` that
``tradeleague.llm.replay.ReplayGateway`` answers from (``--replay-answers
FROM_DB``), so the season re-runs with the recorded texts, outcomes and
latencies and no model is called.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from tradeleague.clock import Clock
from tradeleague.events import Event, EventKind
from tradeleague.llm.records import CallRecord, RecordFormatError
from tradeleague.llm.replay import RecordedAnswers
from tradeleague.store import Store

__all__ = [
    "call_record_of",
    "load_recorded_answers",
    "model_called_event",
    "recorded_calls",
    "store_recorder",
]


def model_called_event(record: CallRecord, *, stream: str, clock: Clock) -> Event:
    """Return the ``ModelCalled`` event of ``record`` in ``stream``, stamped ``clock.now()``."""
    return Event.now(clock, stream, EventKind.MODEL_CALLED, record.to_payload())


def call_record_of(payload: Mapping[str, object]) -> CallRecord:
    """Return the call record a ``ModelCalled`` payload holds, in any of the formats' shapes.

    A payload is the record itself (``CallRecord.to_payload()``), the record plus
    the agent's id under ``agent`` (the weights league), or ``{"record": ...}``
    beside other fields (the direction arena).

    Raises
    ------
    RecordFormatError
        If the payload holds no valid record.
    """
    nested = payload.get("record")
    if isinstance(nested, Mapping):
        return CallRecord.from_payload(nested)
    try:
        return CallRecord.from_payload({k: v for k, v in payload.items() if k != "agent"})
    except (KeyError, TypeError) as exc:
        raise RecordFormatError(str(exc)) from None


def store_recorder(store: Store, *, stream: str, clock: Clock) -> Callable[[CallRecord], None]:
    """Return a gateway recorder that appends each record to ``store`` as it arrives."""

    def record(call: CallRecord) -> None:
        store.append([model_called_event(call, stream=stream, clock=clock)])

    return record


def recorded_calls(store: Store, season: str, *, stream: str | None = None) -> list[CallRecord]:
    """Return the call records of ``season`` in log order.

    Parameters
    ----------
    store
        The store holding the season's log.
    season
        The season id, as in each record's ``CallKey.season``.
    stream
        The event stream the records were written to; the season id by default.

    Raises
    ------
    RecordFormatError
        If a ``ModelCalled`` payload is not a valid record (the message names
        the event's sequence number).
    """
    records: list[CallRecord] = []
    for stored in store.events(stream=season if stream is None else stream):
        if stored.event.kind != EventKind.MODEL_CALLED:
            continue
        try:
            record = call_record_of(stored.event.payload)
        except RecordFormatError as exc:
            raise RecordFormatError(f"event {stored.seq}: not a call record: {exc}") from None
        if record.key.season == season:
            records.append(record)
    return records


def load_recorded_answers(
    store: Store, season: str, *, stream: str | None = None
) -> RecordedAnswers:
    """Return the recorded answers of ``season`` for a ``ReplayGateway``.

    Raises
    ------
    RecordFormatError
        If a ``ModelCalled`` payload is not a valid record.
    ValueError
        If two records hold the same call key and attempt (a season recorded twice
        into one stream).
    """
    return RecordedAnswers(recorded_calls(store, season, stream=stream))
