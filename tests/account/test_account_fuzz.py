"""The account routes' OpenAPI document is their contract: schemathesis, every check, signed in.

Issue 24 item 7: a signed-in session (its cookie and CSRF token on every
request) and schemathesis's engine, every phase and every check, over the
account operations of the site's ``/openapi.json`` (`contract_kit`): no
server error, every status documented, valid data accepted, invalid refused.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest
from eth_account import Account
from fastapi.testclient import TestClient

from account.owners_kit import NOW, new_season, sign, siwe_text  # type: ignore[import-not-found]
from contract_kit import ContractRun, run_contract  # type: ignore[import-not-found]
from tradeleague.api.account.setup import AccountSettings
from tradeleague.api.app import IDEMPOTENCY_HEADER_PATTERN
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.site import create_site
from tradeleague.store import open_store


@pytest.fixture(scope="module")
def contract(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContractRun]:
    url = f"sqlite:///{tmp_path_factory.mktemp('contract') / 'accounts.db'}"
    clock = ReplayClock(NOW)
    with open_store(url) as store:
        new_season(store, clock)
        app = create_site(
            ScenarioService(store, clock),
            clock=clock,
            accounts=AccountSettings(siwe_domain="t.test"),
        )
        wallet = Account.create()
        with TestClient(app, base_url="http://t.test") as http:
            nonce = http.get("/api/v1/account/nonce").json()["nonce"]
            text = siwe_text(wallet, domain="t.test", nonce=nonce)
            signed = http.post(
                "/api/v1/account/login", json={"message": text, "signature": sign(wallet, text)}
            )
            assert signed.status_code == 200, signed.text
            cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
            csrf = signed.json()["csrf_token"]

        calls = itertools.count()

        def signed_in(case: Any) -> None:
            if case.operation.path.startswith("/api/v1/account"):
                case.headers = {**(case.headers or {}), "X-CSRF-Token": csrf}
                # S-SVC-1: a key used before with other parameters is refused (422
                # idempotency_key_reused): account state no schema describes. Each
                # well-formed key is made a first use; a malformed one is left.
                sent = case.headers.get("Idempotency-Key")
                if sent is not None and re.fullmatch(IDEMPOTENCY_HEADER_PATTERN, sent):
                    case.headers["Idempotency-Key"] = f"fuzz-{next(calls)}"

        def accounts(schema: Any) -> Any:
            return schema.include(path_regex=r"^/api/v1/account")

        yield run_contract(
            app,
            max_examples=5,
            headers={"Cookie": cookie},
            include=accounts,
            before_call=signed_in,
        )


def test_schemathesis_with_every_check_finds_nothing(contract: ContractRun) -> None:
    """Every account answer, signed in, is the one the document promises."""
    assert contract.errors == []
    assert contract.failures == [], "\n".join(contract.failures)


def test_the_run_reached_every_account_operation(contract: ContractRun) -> None:
    """Signed in for real: the reads and the key writes were accepted, not only refused."""
    assert contract.checks > 300
    assert len(contract.operations) >= 7
    assert contract.accepted >= 3  # the run signs out too: later calls are 401
