"""Hostile requests through every REST entry point: a 4xx JSON error each, never a crash.

A real uvicorn server (``tradeleague.testing.server``) serves the whole site
(scenario, weights, direction, account and MCP routes); the corpus is sent with the
recursion limit raised as ``py_ecc`` raises it, and ``/healthz`` must still
answer after each request (the server is alive and its loop not stuck; how fast
it answers is for the benchmarks, not a test).
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator

import httpx
import pytest

from tradeleague.api.app import idempotency_key
from tradeleague.api.service import ScenarioService, ServiceError
from tradeleague.api.service.idempotency import IN_FLIGHT_LEASE, _claim
from tradeleague.api.service.scenarios import Scenario
from tradeleague.api.site import create_site
from tradeleague.clock import ReplayClock
from tradeleague.testing.server import serve_asgi

DEEP = b"[" * 70_000 + b"]" * 70_000
DEEP_OBJECT = b'{"scenario":' * 70_000 + b"1" + b"}" * 70_000
BOMB = gzip.compress(b" " * (64 << 20))  # 64 MiB of spaces, about 64 KiB compressed


@pytest.fixture
def site(service: ScenarioService) -> Iterator[str]:
    with serve_asgi(create_site(service)) as url:
        yield url


def _corpus(run: str) -> list[tuple[str, str, bytes, dict[str, str], int]]:
    routes = [
        "/api/v1/runs",
        f"/api/v1/runs/{run}/trades",
        f"/api/v1/runs/{run}/step",
        "/api/v1/direction/rounds/current/calls",
        "/api/v1/account/login",
        "/api/v1/account/agent",
        "/api/v1/account/agent/prompt",
        "/api/v1/account/keys",
        "/mcp",
    ]
    json_type = {"content-type": "application/json"}
    cases: list[tuple[str, str, bytes, dict[str, str], int]] = []
    for route in routes:
        cases += [
            ("deep array", route, DEEP, json_type, 400),
            ("deep object", route, DEEP_OBJECT, json_type, 400),
            (
                "deep gzip",
                route,
                gzip.compress(DEEP),
                {**json_type, "content-encoding": "gzip"},
                400,
            ),
            ("gzip bomb", route, BOMB, {**json_type, "content-encoding": "gzip"}, 413),
            ("corrupt gzip", route, b"\x1f\x8b\x08\x00garbage", {"content-encoding": "gzip"}, 400),
            ("truncated gzip", route, gzip.compress(b"{}")[:-6], {"content-encoding": "gzip"}, 400),
            ("corrupt deflate", route, b"not deflate", {"content-encoding": "deflate"}, 400),
            ("brotli", route, b"{}", {"content-encoding": "br"}, 415),
            ("50 MB body", route, b" " * (50 << 20), json_type, 413),
        ]
    for route in routes:
        for body in (
            b'{"scenario": "\\ud800"}',
            b'{"orders": [{"symbol": "\\udfff", "side": "buy", "quantity": 1e999999}]}',
            b'{"idempotency_key": "' + b"9" * 5000 + b'", "visitor": 1}',
            b"\xff\xfe\x00garbage",
            b'{"quantity": ' + b"9" * 5000 + b"}",
        ):
            cases.append(("odd json", route, body, json_type, 0))
            cases.append(("wrong type", route, body, {"content-type": "text/plain"}, 0))
    return cases


def _healthz_answers(client: httpx.Client) -> None:
    assert client.get("/healthz", timeout=10).status_code == 200


def test_hostile_bodies_get_json_4xx_and_the_server_keeps_answering(
    site: str, key: str, scenario: Scenario, deep_stack: None
) -> None:
    """Hostile bodies: each a JSON 4xx error, never a traceback; /healthz keeps answering."""
    with httpx.Client(base_url=site, timeout=30) as client:
        created = client.post(
            "/api/v1/runs", json={"scenario": scenario.id}, headers={"X-API-Key": key}
        )
        run = created.json()["id"]
        for index, (name, route, body, headers, status) in enumerate(_corpus(run)):
            sent = {**headers, "X-API-Key": key if index % 2 else ""}  # with a key and without
            response = client.post(route, content=body, headers=sent)
            where = f"{name} to {route}: {response.status_code} {response.text[:200]}"
            assert 400 <= response.status_code < 500, where
            if status:
                assert response.status_code == status, where
            error = response.json()["error"]
            assert error["code"], where
            assert error["message"], where
            assert "Traceback" not in response.text
            _healthz_answers(client)


def test_405_carries_allow_and_the_json_error(site: str) -> None:
    """A method a route does not take: 405 with ``Allow`` and the JSON error body."""
    response = httpx.delete(f"{site}/api/v1/leaderboard/scenarios")
    assert response.status_code == 405
    assert "GET" in response.headers["allow"]
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_gzip_bodies_are_read(site: str, key: str, scenario: Scenario) -> None:
    """A well-formed gzip or deflate body is decompressed and served as usual."""
    body = f'{{"scenario": "{scenario.id}"}}'.encode()
    for encoding, packed in (("gzip", gzip.compress(body)), ("deflate", zlib.compress(body))):
        response = httpx.post(
            f"{site}/api/v1/runs",
            content=packed,
            headers={"X-API-Key": key, "content-type": "application/json",
                     "content-encoding": encoding},
        )  # fmt: skip
        assert response.status_code == 201, response.text


def test_idempotency_key_header_as_the_ietf_draft(site: str, key: str, scenario: Scenario) -> None:
    """S-SVC-1: the ``Idempotency-Key`` header works like the body field; both must agree."""
    with httpx.Client(base_url=site, headers={"X-API-Key": key}) as client:
        run = client.post("/api/v1/runs", json={"scenario": scenario.id}).json()["id"]
        first = client.post(f"/api/v1/runs/{run}/step", headers={"Idempotency-Key": '"k-1"'})
        again = client.post(f"/api/v1/runs/{run}/step", headers={"Idempotency-Key": '"k-1"'})
        assert first.status_code == again.status_code == 200
        assert again.content == first.content
        assert again.headers["idempotent-replayed"] == "true"
        body = client.post(f"/api/v1/runs/{run}/step", json={"idempotency_key": "k-1"})
        assert body.content == first.content
        clash = client.post(
            f"/api/v1/runs/{run}/step",
            json={"idempotency_key": "k-2"},
            headers={"Idempotency-Key": '"k-3"'},
        )
        assert clash.status_code == 422
        assert clash.json()["error"]["code"] == "invalid_idempotency_key"


def test_sf_string_header_values() -> None:
    """The header is a structured-field string; a bare token is accepted as it is."""
    assert idempotency_key('"a\\"b"', None) == 'a"b'
    assert idempotency_key("plain-token", None) == "plain-token"
    assert idempotency_key(None, "field") == "field"
    for bad in ('"open', '"a"b"', '"\\x"', '"caf\u00e9"'):
        with pytest.raises(ServiceError):
            idempotency_key(bad, None)


def test_a_key_left_in_flight_lapses_after_its_lease(
    service: ScenarioService, clock: ReplayClock, key: str, scenario: Scenario, site: str
) -> None:
    """S-SVC-1: a claim whose request died with the database is released by its lease."""
    account = service.authenticate(key)
    with httpx.Client(base_url=site, headers={"X-API-Key": key}) as client:
        run = client.post("/api/v1/runs", json={"scenario": scenario.id}).json()["id"]
        from tradeleague.api.service import fingerprint

        digest = fingerprint("POST", f"/runs/{run}/step", {})
        assert _claim(service, account, "lost", digest) is None  # claimed, then the DB died
        stuck = client.post(f"/api/v1/runs/{run}/step", headers={"Idempotency-Key": "lost"})
        assert stuck.status_code == 409
        clock.advance(IN_FLIGHT_LEASE)
        retry = client.post(f"/api/v1/runs/{run}/step", headers={"Idempotency-Key": "lost"})
        assert retry.status_code == 200, retry.text
        again = client.post(f"/api/v1/runs/{run}/step", headers={"Idempotency-Key": "lost"})
        assert again.content == retry.content
