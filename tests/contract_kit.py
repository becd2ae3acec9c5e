"""Hold an app to its OpenAPI document: schemathesis's engine, every check, as ``st run`` runs.

`run_contract` loads ``/openapi.json`` from the app itself (in process, ASGI)
and runs schemathesis's own engine over it: every phase the command line runs
(the schema's examples, the coverage phase's boundary and negative values,
unsupported methods and missing headers, fuzzing in positive and negative
modes, and stateful links), with every check (``--checks all``: no 5xx, status
codes, content types, headers and bodies as documented, valid data accepted,
invalid data refused, ``Allow`` on 405 and on ``OPTIONS``, authentication not
ignored...). It returns what failed, one line per distinct failure, with the
request that showed it; a test asserts the list is empty.

Examples are bounded per operation (``max_examples``) so the whole run stays
short on a loaded two-core machine; the engine's seed is fixed, so a run is
repeatable.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import schemathesis
from schemathesis.engine import Status, events, from_schema

__all__ = ["ContractRun", "run_contract"]

SEED = 20260716
"""The engine's seed: the same cases every run."""


@dataclass
class ContractRun:
    """What a run did: the checks made, the statuses answered, and what failed."""

    checks: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    operations: set[str] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    phases: dict[str, float] = field(default_factory=dict)
    """Seconds each phase took (what to trim when the run is slow)."""

    @property
    def accepted(self) -> int:
        """How many answers were 2xx (the run reached the routes' work, not only their guards)."""
        return sum(n for status, n in self.statuses.items() if 200 <= status < 300)


def run_contract(
    app: Any,
    *,
    max_examples: int,
    headers: dict[str, str] | None = None,
    include: Callable[[Any], Any] | None = None,
    before_call: Callable[[Any], None] | None = None,
) -> ContractRun:
    """Run schemathesis's engine, every phase and every check, over ``app``'s document.

    Parameters
    ----------
    app
        The ASGI app; its document is read from ``/openapi.json``.
    max_examples
        The most fuzzed examples per operation (the other phases are bounded by the schema).
    headers
        Sent with every request (an API key).
    include
        Narrows the schema to the operations under test (``schema.include(...)``).
    before_call
        Adjusts each case just before it is sent (a session cookie, a fresh account).
    """
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    if include is not None:
        schema = include(schema)
    schema.config.update(headers=headers or {})
    schema.config.generation.update(max_examples=max_examples)
    schema.config.seed = SEED
    adjust = before_call or (lambda case: None)
    run = ContractRun()

    def before_call_hook(context: Any, case: Any, kwargs: Any) -> None:
        adjust(case)

    def after_call(context: Any, case: Any, response: Any) -> None:
        run.statuses[response.status_code] += 1

    # global hooks (schemathesis has no other for these), taken off when the run ends
    schemathesis.hook("before_call")(before_call_hook)
    schemathesis.hook(after_call)
    try:
        for event in from_schema(schema).execute():
            if isinstance(event, events.ScenarioFinished):
                _record(run, event)
            elif isinstance(event, events.PhaseStarted):
                run.phases[event.phase.name.value] = -event.timestamp
            elif isinstance(event, events.PhaseFinished):
                run.phases[event.phase.name.value] += event.timestamp
            elif isinstance(event, events.NonFatalError | events.FatalError):
                run.errors.append(f"{getattr(event, 'label', '')}: {_error_text(event)}")
    finally:
        schemathesis.hooks.unregister(before_call_hook)
        schemathesis.hooks.unregister(after_call)
    return run


def _error_text(event: Any) -> str:
    info = getattr(event, "info", None)
    message = getattr(info, "message", None)
    return str(message or getattr(event, "exception", None) or getattr(event, "value", ""))[:400]


def _record(run: ContractRun, event: Any) -> None:
    recorder = event.recorder
    run.operations.add(recorder.label)
    seen = set(run.failures)
    for case_id, nodes in recorder.checks.items():
        for node in nodes:
            run.checks += 1
            if node.status != Status.FAILURE or node.failure_info is None:
                continue
            failure = node.failure_info.failure
            case = recorder.cases[case_id].value
            body = getattr(case, "body", None)
            answer = getattr(recorder.interactions.get(case_id), "response", None)
            answered = "" if answer is None else f"{answer.status_code} {answer.text[:160]} "
            line = (
                f"{recorder.label} [{node.name}] {failure.title}: "
                f"{' '.join(str(failure.message).split())[:300]} "
                f"-> {answered}<- {case.method} {case.formatted_path} query={case.query} "
                f"headers={dict(case.headers or {})} body={str(body)[:200]}"
            )
            key = f"{recorder.label} [{node.name}] {failure.title}"
            if not any(f.startswith(key) for f in seen):
                run.failures.append(line)
                seen.add(line)
