"""Property-based API testing from the served OpenAPI document: no server errors."""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from tradeleague.accounts import Tier
from tradeleague.league.scenario import Scenario, ScenarioService
from tradeleague.league.scenario.routes import create_app


def test_schemathesis_finds_no_server_error(service: ScenarioService, scenario: Scenario) -> None:
    """Every documented operation, fuzzed from /openapi.json, answers without a 5xx."""
    key = service.create_key("fuzzer", Tier.PRO)
    app = create_app(service)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    failures: list[str] = []
    calls: list[int] = []
    for operation in schema.get_all_operations():
        op = operation.ok()  # type: ignore[union-attr]

        @settings(
            max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck)
        )
        @given(case=op.as_strategy())
        def check(case: schemathesis.Case[Any]) -> None:
            case.headers["X-API-Key"] = key
            response = case.call()
            calls.append(response.status_code)
            if response.status_code >= 500:
                failures.append(
                    f"{case.operation.label}: {response.status_code} {response.text[:200]}"
                )
            case.validate_response(response, checks=[not_a_server_error])

        check()
    assert failures == []
    assert len(calls) > 100
    assert any(c < 300 for c in calls)
