"""Recorded answers: re-run a season from its recorded calls, never calling a model (C-5).

``ReplayGateway`` answers each call from the records of its ``CallKey``: the
same text, outcome, token counts and the same whole-millisecond latencies, so
``timeout`` and ``late`` classifications come out as they did live. A call it
cannot answer faithfully gives a ``ReplayMiss`` value (no record, a different
request, a cut-off log); it never falls back to a live call.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterable, Sequence

from tradeleague.llm.gateway import Call, Recorder
from tradeleague.llm.records import CallKey, CallRecord, MissReason, ReplayMiss

__all__ = ["RecordedAnswers", "ReplayGateway"]


class RecordedAnswers:
    """Call records indexed by call key, each key's attempts in order.

    Raises
    ------
    ValueError
        If two records hold the same key and attempt.
    """

    def __init__(self, records: Iterable[CallRecord]) -> None:
        by_key: dict[CallKey, dict[int, CallRecord]] = {}
        for record in records:
            attempts = by_key.setdefault(record.key, {})
            if record.attempt in attempts:
                raise ValueError(f"two records of call {record.key.text} attempt {record.attempt}")
            attempts[record.attempt] = record
        self._by_key = {k: tuple(v[i] for i in sorted(v)) for k, v in by_key.items()}

    def __len__(self) -> int:
        return len(self._by_key)

    def lookup(self, call: Call) -> tuple[CallRecord, ...] | ReplayMiss:
        """Return the recorded attempts of ``call``, or why they cannot answer it."""
        records = self._by_key.get(call.key)
        if records is None:
            return ReplayMiss(
                key=call.key, reason=MissReason.NOT_RECORDED, detail="no record holds this key"
            )
        if [r.attempt for r in records] != list(range(len(records))) or not records[-1].final:
            return ReplayMiss(
                key=call.key,
                reason=MissReason.INCOMPLETE,
                detail=f"attempts {[r.attempt for r in records]} do not end in a final one",
            )
        differs = _differences(call, records[-1])
        if differs:
            return ReplayMiss(
                key=call.key,
                reason=MissReason.REQUEST_DIFFERS,
                detail="the request differs from the record in: " + ", ".join(differs),
            )
        return records


class ReplayGateway:
    """A gateway that answers from ``RecordedAnswers`` (the ``ModelGateway`` protocol).

    Parameters
    ----------
    answers
        The recorded calls.
    recorder
        Called with each replayed record, as the live gateway calls its own.
    """

    def __init__(self, answers: RecordedAnswers, *, recorder: Recorder | None = None) -> None:
        self._answers = answers
        self._recorder = recorder

    async def call(self, call: Call) -> CallRecord | ReplayMiss:
        """Answer one call from its records."""
        found = self._answers.lookup(call)
        if isinstance(found, ReplayMiss):
            return found
        for record in found:
            if self._recorder is not None:
                result = self._recorder(record)
                if inspect.isawaitable(result):
                    await result
        return found[-1]

    async def call_all(self, calls: Sequence[Call]) -> list[CallRecord | ReplayMiss]:
        """Answer ``calls`` from their records, in order."""
        return [await self.call(c) for c in calls]


def _differences(call: Call, record: CallRecord) -> list[str]:
    request = call.request
    checks = {
        "provider": call.provider == record.provider,
        "model": request.model == record.model,
        "messages": request.messages == record.messages,
        "params": request.params == record.params,
        "json_schema": _json(request.json_schema) == _json(record.json_schema),
        "tools": _json(list(request.tools)) == _json(list(record.tools)),
    }
    return [name for name, same in checks.items() if not same]


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=dict)
