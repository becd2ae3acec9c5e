"""The document's patterns are the code's rules; 405s list every method; probes need no store.

Issue 24 items 6 and 7, held directly (schemathesis samples them; these
decide them): each pattern the OpenAPI document gives for a value the code
reads accepts exactly what the code accepts, ``Allow`` names every method of
a path served by several routes, and ``/healthz`` and ``/metrics`` are
answered from memory, before any layer that could wait on the store.
"""

from __future__ import annotations

import re
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tradeleague.api.app import IDEMPOTENCY_HEADER_PATTERN, idempotency_key
from tradeleague.clock import ReplayClock
from tradeleague.errors import ServiceError
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.scenario.models import QUANTITY_TEXT, OrderIn
from tradeleague.league.weights.owners import KEY_PATTERN, MAX_KEY_CHARS
from tradeleague.site import create_site
from tradeleague.store import open_store
from tradeleague.untrusted import VISIBLE, is_blank

_HEADER_TEXT = st.text(alphabet=st.sampled_from('ab7~ "\\\t\u00e9-'), max_size=270)


@given(_HEADER_TEXT | st.text(max_size=8))
def test_the_idempotency_header_pattern_is_what_is_read(value: str) -> None:
    """S-SVC-1: a header value matches the documented pattern exactly when it is read."""
    documented = re.fullmatch(IDEMPOTENCY_HEADER_PATTERN, value) is not None
    try:
        idempotency_key(value, None)
        read = True
    except ServiceError:
        read = False
    assert documented == read, value


def test_a_header_and_a_body_key_that_differ_conflict() -> None:
    """S-SVC-1: two well-formed keys that differ are a conflict (409), not a malformed key."""
    assert idempotency_key('"k-1"', "k-1") == "k-1"
    with pytest.raises(ServiceError) as refused:
        idempotency_key('"k-1"', "k-2")
    assert (refused.value.status, refused.value.code) == (409, "idempotency_key_conflict")


@given(st.text(alphabet=st.sampled_from("0123456789.-+e "), max_size=22))
def test_the_quantity_text_pattern_is_what_is_read(text: str) -> None:
    """S-API-2: a quantity sent as text matches the documented pattern exactly when it is read."""
    documented = re.fullmatch(QUANTITY_TEXT, text) is not None
    try:
        OrderIn(symbol="SPY", side="buy", quantity=text)  # type: ignore[arg-type]
        read = True
    except ValidationError:
        read = False
    assert documented == read, text


def test_visible_is_what_is_blank_refuses_over_every_code_point() -> None:
    """A one-character text matches `VISIBLE` exactly when `is_blank` says it is not blank."""
    visible = re.compile(VISIBLE)
    wrong = [
        c
        for c in range(sys.maxunicode + 1)
        if (visible.fullmatch(chr(c)) is None) != is_blank(chr(c))
    ]
    assert wrong == []


@given(st.text(alphabet=st.sampled_from("ab~ \t\r\n\x7f\u00e9"), max_size=MAX_KEY_CHARS + 3))
def test_the_model_key_pattern_is_what_is_read(key: str) -> None:
    """An owner's model key matches the documented pattern (and length) exactly when it is read."""
    from tradeleague.league.weights.owners import _key

    documented = len(key) <= MAX_KEY_CHARS and re.fullmatch(KEY_PATTERN, key) is not None
    try:
        _key(key)
        read = True
    except ServiceError:
        read = False
    assert documented == read, key


@pytest.fixture
def site(tmp_path: Path) -> TestClient:
    clock = ReplayClock(datetime(2026, 3, 10, 12, tzinfo=UTC))
    service = ScenarioService(open_store(f"sqlite:///{tmp_path / 'site.db'}"), clock)
    client = TestClient(create_site(service, clock=clock))
    client.service = service  # type: ignore[attr-defined]
    return client


def test_allow_names_every_method_of_the_path(site: TestClient) -> None:
    """A path served by several routes: its 405 and its OPTIONS list them all."""
    for method in ("OPTIONS", "PATCH", "PUT"):
        answer = site.request(method, "/api/v1/runs")
        assert answer.status_code == 405
        assert answer.headers["allow"] == "GET, POST"
        assert answer.json()["error"]["code"] == "method_not_allowed"
    assert site.request("OPTIONS", "/healthz").headers["allow"] == "GET"


def test_probes_are_answered_from_memory_with_the_store_gone(site: TestClient) -> None:
    """/healthz and /metrics touch no store: they answer with its connections closed."""
    site.service.store.close()  # type: ignore[attr-defined]
    health = site.get("/healthz")
    assert (health.status_code, health.json()) == (200, {"status": "ok"})
    metrics = site.get("/metrics")
    assert metrics.status_code == 200
    assert metrics.headers["content-type"].startswith("text/plain")
    assert "tradeleague_" in metrics.text


def test_the_checked_keys_kept_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys a fuzzer presents cannot grow the process: past the bound the kept keys are dropped."""
    from tradeleague.accounts import Tier
    from tradeleague.accounts import accounts as accounts_module

    monkeypatch.setattr(accounts_module, "CACHE_LIMIT", 3)
    clock = ReplayClock(datetime(2026, 3, 10, 12, tzinfo=UTC))
    service = ScenarioService(open_store(f"sqlite:///{tmp_path / 'keys.db'}"), clock)
    try:
        keys = [service.create_key(f"a{n}", Tier.PRO) for n in range(7)]
        kept = service.accounts._keys  # the process's checked keys
        for key in keys:
            assert service.authenticate(key).name.startswith("a")
            assert len(kept) <= 3
        assert service.authenticate(keys[0]).name == "a0"  # dropped, then read again
    finally:
        service.store.close()
