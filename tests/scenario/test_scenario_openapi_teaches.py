"""The OpenAPI document teaches (issue 29 item 1), walked as the whole site serves it.

Every operation says what it does; every 2xx JSON answer has a typed schema
with described fields and an example; every error answer is the one shared
error schema, whose codes list covers each status a route documents and each
code any route raises. No route is left out.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from pydantic import BaseModel

import tradeleague
from tradeleague.api.models import ERROR_CODES
from tradeleague.formats.direction.visitors import Refusal
from tradeleague.league.scenario import Scenario, ScenarioService
from tradeleague.league.scenario.models import (
    BoardScenariosOut,
    CancelOut,
    ChangelogOut,
    LeaderboardEntryOut,
    LeaderboardOut,
    MarketOut,
    PublicRunOut,
    PublishOut,
    ResultsOut,
    RunOut,
    RunsOut,
    RunStateOut,
    ScenariosOut,
    StepOut,
    TradesOut,
)
from tradeleague.site import create_site

_METHODS = ("get", "post", "put", "patch", "delete")


def _resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref is None:
        return schema
    found: dict[str, Any] = doc
    for part in ref.removeprefix("#/").split("/"):
        found = found[part]
    return found


def _request_gaps(doc: dict[str, Any], where: str, op: dict[str, Any]) -> list[str]:
    """What a JSON request body lacks: an example, or a description on a field."""
    content = op.get("requestBody", {}).get("content", {}).get("application/json")
    if content is None:
        return []
    schema = content.get("schema", {})
    schema = next((s for s in schema.get("anyOf", []) if "$ref" in s), schema)
    body = _resolve(doc, schema)
    gaps = [] if body.get("examples") or content.get("example") else [f"{where}: body no example"]
    for name, field in body.get("properties", {}).items():
        if not field.get("description") and not _resolve(doc, field).get("description"):
            gaps.append(f"{where}: body field {name} has no description")
    return gaps


def _operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, op)
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if method in _METHODS
    ]


def test_every_operation_and_answer_is_described(service: ScenarioService) -> None:
    """Every operation of the whole site, no carve-outs: a summary and a description; every
    parameter and request field described, every request body with an example; every 2xx
    JSON answer a typed schema with an example; every error the one shared schema, whose
    codes cover each status a route documents."""
    with TestClient(create_site(service)) as client:
        doc = client.get("/openapi.json").json()
        docs = client.get("/docs")
    operations = _operations(doc)
    assert len(operations) > 45
    listed = doc["components"]["schemas"]["ErrorBody"]["x-error-codes"]
    assert set(listed) == set(ERROR_CODES)
    bare = []
    for method, path, op in operations:
        where = f"{method} {path}"
        if not op.get("summary") or len(op.get("description", "")) < 20:
            bare.append(f"{where}: no summary or description")
        for param in op.get("parameters", []):
            if not param.get("description"):
                bare.append(f"{where}: parameter {param['name']} has no description")
        bare += _request_gaps(doc, where, op)
        for status, answer in op.get("responses", {}).items():
            content = answer.get("content", {}).get("application/json")
            if status.startswith("2"):
                if content is None:
                    bare.append(f"{where} {status}: no JSON answer documented")
                    continue
                schema = _resolve(doc, content.get("schema", {}))
                if not (schema.get("properties") or schema.get("items") or schema.get("anyOf")):
                    bare.append(f"{where} {status}: an empty schema")
                if not (
                    schema.get("examples") or content.get("example") or content.get("examples")
                ):
                    bare.append(f"{where} {status}: no example")
                for name, field in schema.get("properties", {}).items():
                    if not _resolve(doc, field).get("description") and "$ref" not in field:
                        bare.append(f"{where} {status}: {name} has no description")
            elif status[0] in "45":
                schema = content.get("schema", {}) if content else {}
                if schema.get("$ref") != "#/components/schemas/ErrorOut":
                    bare.append(f"{where} {status}: not the shared error schema")
                elif int(status) not in set(listed.values()):
                    bare.append(f"{where} {status}: no listed code has this status")
    assert not bare, "\n".join(bare)
    assert docs.status_code == 200
    assert "Your first run in five calls" in doc["info"]["description"]


def test_every_code_the_api_raises_is_listed(service: ScenarioService) -> None:
    """A code raised anywhere in the package (every format's routes) is in ERROR_CODES."""
    create_site(service)  # every installed format's routes, and so its declared codes
    src = Path(tradeleague.__file__).parent
    raised = set()
    for file in src.rglob("*.py"):
        text = file.read_text()
        raised |= set(
            re.findall(r'(?:ServiceError|_Refused|error_response)\(\s*\d{3},\s*"(\w+)"', text)
        )
        raised |= set(re.findall(r'_refused\(\s*"(\w+)"', text))
    raised |= {code.value for code in Refusal}
    assert len(raised) > 40, "the scan found too few codes"
    assert raised <= set(ERROR_CODES), sorted(raised - set(ERROR_CODES))


def _fields(model: type[BaseModel], body: dict[str, Any]) -> None:
    """Assert ``body`` is an instance of ``model`` with no field the schema leaves out."""
    parsed = model.model_validate(body)
    assert set(parsed.model_dump(by_alias=True)) == set(body), model.__name__


def test_the_documented_schemas_are_what_the_routes_answer(
    api: TestClient, scenario: Scenario
) -> None:
    """S-API-1..5: each answer of a played, published run parses as its documented model."""
    run = api.post("/api/v1/runs", json={"scenario": scenario.config.name}).json()
    _fields(RunOut, run)
    run_id = run["id"]
    _fields(ScenariosOut, api.get("/api/v1/scenarios").json())
    _fields(MarketOut, api.get(f"/api/v1/runs/{run_id}/market").json())
    order = {"symbol": "SPY", "side": "buy", "quantity": "1"}
    _fields(TradesOut, api.post(f"/api/v1/runs/{run_id}/trades", json={"orders": [order]}).json())
    _fields(CancelOut, api.delete(f"/api/v1/runs/{run_id}/orders/0").json())
    api.post(f"/api/v1/runs/{run_id}/trades", json={"orders": [order]})
    done = False
    while not done:
        step = api.post(f"/api/v1/runs/{run_id}/step").json()
        _fields(StepOut, step)
        done = step["done"]
    _fields(RunStateOut, api.get(f"/api/v1/runs/{run_id}").json())
    _fields(RunsOut, api.get("/api/v1/runs").json())
    _fields(ResultsOut, api.get(f"/api/v1/runs/{run_id}/results").json())
    _fields(PublishOut, api.post(f"/api/v1/runs/{run_id}/publish").json())
    _fields(PublicRunOut, api.get(f"/api/v1/runs/{run_id}/public").json())
    board = api.get("/api/v1/leaderboard", params={"scenario": scenario.id}).json()
    _fields(LeaderboardOut, board)
    _fields(LeaderboardEntryOut, board["entries"][0])
    _fields(BoardScenariosOut, api.get("/api/v1/leaderboard/scenarios").json())
    _fields(ChangelogOut, api.get("/api/v1/scenario/changelog").json())
