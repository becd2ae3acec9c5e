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

from tradeleague.accounts.idempotency import IN_FLIGHT_LEASE, claim
from tradeleague.api.app import idempotency_key
from tradeleague.clock import ReplayClock
from tradeleague.errors import ServiceError
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.scenario.scenarios import Scenario
from tradeleague.site import create_site
from tradeleague.testing.hostile import hostile_corpus
from tradeleague.testing.server import serve_asgi


@pytest.fixture
def site(service: ScenarioService) -> Iterator[str]:
    with serve_asgi(create_site(service)) as url:
        yield url


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
        for index, (name, route, body, headers, status) in enumerate(hostile_corpus(run)):
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
        assert clash.status_code == 409  # each key well formed; which one was meant is unknown
        assert clash.json()["error"]["code"] == "idempotency_key_conflict"


def test_sf_string_header_values() -> None:
    """The header is a structured-field string; a bare token is accepted as it is."""
    assert idempotency_key('"a\\"b"', None) == 'a"b'
    assert idempotency_key("plain-token", None) == "plain-token"
    assert idempotency_key(None, "field") == "field"
    for bad in ('"open', '"a"b"', '"\\x"', '"caf\u00e9"', '"a b"', "a b", '""', "k" * 256):
        with pytest.raises(ServiceError):
            idempotency_key(bad, None)


def test_a_key_left_in_flight_lapses_after_its_lease(
    service: ScenarioService, clock: ReplayClock, key: str, scenario: Scenario, site: str
) -> None:
    """S-SVC-1: a claim an earlier version left without its answer is released by its lease."""
    account = service.authenticate(key)
    with httpx.Client(base_url=site, headers={"X-API-Key": key}) as client:
        run = client.post("/api/v1/runs", json={"scenario": scenario.id}).json()["id"]
        from tradeleague.accounts import fingerprint

        digest = fingerprint("POST", f"/runs/{run}/step", {})
        with service.write("claim a key in") as conn:  # an earlier version's claim, then death
            assert claim(conn, service, account, "lost", digest) is None
        stuck = client.post(f"/api/v1/runs/{run}/step", headers={"Idempotency-Key": "lost"})
        assert stuck.status_code == 409
        clock.advance(IN_FLIGHT_LEASE)
        retry = client.post(f"/api/v1/runs/{run}/step", headers={"Idempotency-Key": "lost"})
        assert retry.status_code == 200, retry.text
        again = client.post(f"/api/v1/runs/{run}/step", headers={"Idempotency-Key": "lost"})
        assert again.content == retry.content
