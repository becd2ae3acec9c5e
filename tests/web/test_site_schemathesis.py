"""The whole site's OpenAPI document is its contract: schemathesis, every check, passes.

Issue 24 item 7, for what ``tradeleague serve`` serves beside the agent loop
and the account routes (each held by its own module: the scenario and account
tests): every format's read API, the visitors' call, the ratings, the root.
The store is empty but for a scenario: every board that has nothing yet must
answer what the document says (a 404 documented, not a surprise).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from contract_kit import ContractRun, run_contract  # type: ignore[import-not-found]
from tradeleague.accounts.anonymous import WriteLimit
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.site import create_site
from tradeleague.store import open_store

_ELSEWHERE = r"^/api/v1/(runs|scenarios$|account)"
"""The agent loop and the account routes: their own modules run them, signed in."""


@pytest.fixture(scope="module")
def contract(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContractRun]:
    url = f"sqlite:///{tmp_path_factory.mktemp('contract') / 'site.db'}"
    clock = ReplayClock(datetime(2026, 3, 10, 12, tzinfo=UTC))
    service = ScenarioService(open_store(url), clock)
    try:
        app = create_site(service, clock=clock, write_limit=WriteLimit())

        def elsewhere(schema: Any) -> Any:
            return schema.exclude(path_regex=_ELSEWHERE)

        yield run_contract(app, max_examples=3, include=elsewhere)
    finally:
        service.store.close()


def test_schemathesis_with_every_check_finds_nothing(contract: ContractRun) -> None:
    """S-SCO-2, S-SVC-4: every public answer is the one the document promises."""
    assert contract.errors == []
    assert contract.failures == [], "\n".join(contract.failures)


def test_the_run_reached_every_public_operation(contract: ContractRun) -> None:
    """Every format's read routes were called, and answered."""
    assert contract.checks > 1000
    assert len(contract.operations) >= 30
    assert contract.accepted > 20
