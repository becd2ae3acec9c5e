"""The account routes, fuzzed from the OpenAPI document while signed in: no server errors."""

from __future__ import annotations

from typing import Any

import schemathesis
from eth_account import Account
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from account.owners_kit import NOW, new_season, sign, siwe_text  # type: ignore[import-not-found]
from tradeleague.api.account.setup import AccountSettings
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.site import create_site
from tradeleague.store import open_store


def test_account_routes_answer_fuzzed_requests_without_a_server_error(sqlite_url: str) -> None:
    """Every documented account operation, with a live session and its CSRF token."""
    clock = ReplayClock(NOW)
    with open_store(sqlite_url) as store:
        new_season(store, clock)
        app = create_site(
            ScenarioService(store, clock),
            clock=clock,
            accounts=AccountSettings(siwe_domain="t.test"),
        )
        wallet = Account.create()
        with TestClient(app) as http:
            nonce = http.get("/api/v1/account/nonce").json()["nonce"]
            text = siwe_text(wallet, domain="t.test", nonce=nonce)
            signed = http.post(
                "/api/v1/account/login", json={"message": text, "signature": sign(wallet, text)}
            )
            assert signed.status_code == 200, signed.text
            cookies = dict(http.cookies)
            csrf = signed.json()["csrf_token"]
        schema = schemathesis.openapi.from_asgi("/openapi.json", app)
        failures: list[str] = []
        calls: list[int] = []
        for operation in schema.get_all_operations():
            op = operation.ok()  # type: ignore[union-attr]
            if not op.path.startswith("/api/v1/account"):
                continue

            @settings(
                max_examples=30,
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
            )
            @given(case=op.as_strategy())
            def check(case: schemathesis.Case[Any]) -> None:
                case.cookies = {**(case.cookies or {}), **cookies}
                case.headers["X-CSRF-Token"] = csrf
                response = case.call()
                calls.append(response.status_code)
                if response.status_code >= 500:
                    failures.append(f"{case.operation.label}: {response.status_code}")
                case.validate_response(response, checks=[not_a_server_error])

            check()
    assert failures == []
    assert len(calls) > 100
    assert any(c < 300 for c in calls)
