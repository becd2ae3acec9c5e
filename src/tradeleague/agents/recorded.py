"""Model calls as ``ModelCalled`` events, and the recorded answers a replay reads (C-5).

Live, ``store_recorder`` is the gateway's recorder: each call record (every
attempt) becomes one ``ModelCalled`` event whose payload holds
``CallRecord.to_payload()`` (`tradeleague.events.model_called_payload`).
For a replay, ``load_recorded_answers`` reads a season's ``ModelCalled``
events back into the ``RecordedAnswers`` that
``tradeleague.llm.replay.ReplayGateway`` answers from (``--replay-answers
FROM_DB``), so the season re-runs with the recorded texts, outcomes and
latencies and no model is called.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from tradeleague.clock import Clock
from tradeleague.events import Event, EventKind, model_called_payload, model_called_record
from tradeleague.llm.records import CallRecord, RecordFormatError
from tradeleague.llm.replay import RecordedAnswers
from tradeleague.store import Store, StoredEvent

__all__ = [
    "NotACallRecord",
    "call_record_of",
    "calls_in",
    "load_recorded_answers",
    "model_called_event",
    "recorded_calls",
    "store_recorder",
]


def model_called_event(
    record: CallRecord, *, stream: str, clock: Clock, agent: str | None = None
) -> Event:
    """Return the ``ModelCalled`` event of ``record`` in ``stream``, stamped ``clock.now()``.

    The payload is the one ``ModelCalled`` shape (`tradeleague.events.common`);
    the agent is the record's key's agent unless given.
    """
    payload = model_called_payload(
        agent=record.key.agent if agent is None else agent,
        round=record.key.round,
        record=record.to_payload(),
    )
    return Event.now(clock, stream, EventKind.MODEL_CALLED, payload)


def call_record_of(payload: Mapping[str, object]) -> CallRecord:
    """Return the call record a ``ModelCalled`` payload holds, in any of its shapes.

    The current shape holds it under ``record``; the older ones are upcast
    (`tradeleague.events.upcast_model_called`): the weights league's record
    fields flat beside ``agent``, and the direction arena's unversioned
    ``{"record": ...}`` beside other fields.

    Raises
    ------
    RecordFormatError
        If the payload holds no valid record.
    """
    try:
        return CallRecord.from_payload(model_called_record(payload))
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, RecordFormatError):
            raise
        raise RecordFormatError(str(exc)) from None


class NotACallRecord(RecordFormatError):
    """A ``ModelCalled`` event whose payload holds no valid call record.

    Parameters
    ----------
    seq
        The event's sequence number in the store.
    reason
        What is wrong with it.
    """

    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(f"event {seq}: not a call record: {reason}")
        self.seq = seq
        self.reason = reason


def calls_in(stored: Iterable[StoredEvent], *, season: str | None = None) -> list[CallRecord]:
    """Return the call records of the ``ModelCalled`` events in ``stored``, in log order.

    This is the one reader of recorded model calls: every replay that answers
    from a log (``--replay-answers FROM_DB``) reads them through it.

    Parameters
    ----------
    stored
        Events as read back from a store.
    season
        Keep only the records whose call key names this season (all by default).

    Raises
    ------
    NotACallRecord
        If a ``ModelCalled`` payload is not a valid record.
    """
    records: list[CallRecord] = []
    for item in stored:
        if item.event.kind != EventKind.MODEL_CALLED:
            continue
        try:
            record = call_record_of(item.event.payload)
        except RecordFormatError as exc:
            raise NotACallRecord(item.seq, str(exc)) from None
        if season is None or record.key.season == season:
            records.append(record)
    return records


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
    return calls_in(store.events(stream=season if stream is None else stream), season=season)


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
