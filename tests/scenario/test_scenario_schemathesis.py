"""The scenario service's OpenAPI document is its contract: schemathesis, every check, passes.

Issue 24 item 7: every status a route answers is documented, the schema's
limits are the code's, a 405 and ``OPTIONS`` list every method of the path;
schemathesis's engine runs every phase with every check (``--checks all``) on
the app's own ``/openapi.json`` and finds nothing (`contract_kit`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest

from contract_kit import ContractRun, run_contract  # type: ignore[import-not-found]
from scenario.conftest import make_service, synthetic_scenario  # type: ignore[import-not-found]
from tradeleague.accounts import Tier
from tradeleague.api.app import IDEMPOTENCY_HEADER_PATTERN
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.scenario.routes import create_app


@pytest.fixture(scope="module")
def contract(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ContractRun, str]]:
    """One app, one store, one schemathesis run for the whole module."""
    from datetime import UTC, datetime

    url = f"sqlite:///{tmp_path_factory.mktemp('contract') / 'tradeleague.db'}"
    service: ScenarioService = make_service(url, ReplayClock(datetime(2026, 3, 10, 12, tzinfo=UTC)))
    try:
        scenario = synthetic_scenario(service)
        key = service.create_key("fuzzer", Tier.PRO)
        calls = itertools.count()

        def first_use(case: Any) -> None:
            # S-SVC-1: a key already used with other parameters is refused (422,
            # idempotency_key_reused), as the IETF draft says: the state of an
            # account, which no schema describes. Each request's well-formed key
            # is made its own (a suffix), so every use is a first use; a header
            # and a body key that were equal stay equal, a malformed one is left.
            suffix = f"~{next(calls)}"
            headers = dict(case.headers or {})
            if "Idempotency-Key" in headers:
                headers["Idempotency-Key"] = _unique_header(headers["Idempotency-Key"], suffix)
                case.headers = headers
            if isinstance(case.body, dict) and isinstance(case.body.get("idempotency_key"), str):
                case.body = {
                    **case.body,
                    "idempotency_key": _unique_key(case.body["idempotency_key"], suffix),
                }

        run = run_contract(
            create_app(service),
            max_examples=5,
            headers={"X-API-Key": key},
            before_call=first_use,
        )
        yield run, scenario.id
    finally:
        service.store.close()


_KEY = re.compile(r"[\x21-\x7E]{1,255}")


def _unique_key(key: str, suffix: str) -> str:
    """Return ``key`` made unique by ``suffix``, still a valid key (a malformed one as it is)."""
    if not _KEY.fullmatch(key):
        return key
    return (key + suffix)[-255:]


def _unique_header(value: str, suffix: str) -> str:
    """Return an ``Idempotency-Key`` value whose key is made unique, in the same form."""
    if not re.fullmatch(IDEMPOTENCY_HEADER_PATTERN, value):
        return value
    if not value.startswith('"'):
        unique = _unique_key(value, suffix)
        return unique if not unique.startswith('"') else "x" + unique[1:]
    key = re.sub(r'\\(["\\])', r"\1", value[1:-1])
    unique = _unique_key(key, suffix)
    return '"' + unique.replace("\\", "\\\\").replace('"', '\\"') + '"'


def test_schemathesis_with_every_check_finds_nothing(contract: tuple[ContractRun, str]) -> None:
    """S-API-1..5, S-SVC-1, S-SVC-4, S-SVC-5: every answer is the one the document promises."""
    run, _ = contract
    assert run.errors == []
    assert run.failures == [], "\n".join(run.failures)


def test_the_run_reached_every_operation_and_their_work(contract: tuple[ContractRun, str]) -> None:
    """Not only the guards: many checks, every operation, and accepted requests among them."""
    run, _ = contract
    assert run.checks > 1000
    assert len(run.operations) >= 13
    assert run.accepted > 20
    assert {404, 405, 422} <= set(run.statuses)
