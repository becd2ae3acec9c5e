"""Visitors' calls on a hosted arena: the site takes them, the host settles them (issue 17).

A host (``tradeleague run --clock replay``, its own process) plays the arena
over the shared one-minute candles while the site (``create_site``, as
``tradeleague serve`` builds it, on a real port) serves the same SQLite file
on a clock the test sets inside the host's replay. The two share nothing but
the store: the site writes each call to the round's visitors stream, the host
reads it when it plays the round.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from host_process import (  # type: ignore[import-not-found]
    SRC,
    free_port,
    start_host,
    stop,
    wait_for,
)

from tradeleague.clock import ReplayClock
from tradeleague.events import Event
from tradeleague.league.direction.models import VisitorCallOut
from tradeleague.league.scenario import ScenarioService
from tradeleague.site import create_site
from tradeleague.store import open_store, verify
from tradeleague.testing.server import serve_asgi

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]

DAY = datetime(2025, 9, 2, tzinfo=UTC)
ROUND = DAY + timedelta(minutes=30)  # the round visitors call: 00:30 to 00:35
RID = "20250902T0030Z"
EXPIRY = ROUND + timedelta(minutes=5)
CALLS = "/api/v1/direction/rounds/current/calls"
HIDDEN = {"direction", "rationale", "calls", "label", "result", "text", "tally"}


def _league(path: Path, data: Path, db: str) -> Path:
    path.write_text(
        f"""
[league]
db = "{db}"

[direction]
market = "{data / "crypto_1m"}"

[[direction.agents]]
name = "up"
spec = "baseline:up"

[[direction.agents]]
name = "momentum"
spec = "baseline:momentum"
""",
        encoding="utf-8",
    )
    return path


def _host(league: Path, log: Path, until: datetime) -> None:
    """Run ``tradeleague run --clock replay`` from the day's start to ``until``, to its end."""
    process = start_host(
        ["--config", str(league), "--clock", "replay", "--from", "2025-09-02T00:00Z",
         "--to", until.strftime("%Y-%m-%dT%H:%MZ")],
        log,
    )  # fmt: skip
    assert process.wait(timeout=300) == 0, log.read_text(encoding="utf-8")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _nodes(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _nodes(item)
    elif isinstance(value, list):
        for item in value:
            yield from _nodes(item)


def _public(client: httpx.Client) -> list[tuple[str, Any]]:
    paths = [
        "/api/v1/direction",
        "/api/v1/direction/rounds/current",
        "/api/v1/direction/rounds",
        "/api/v1/direction/boards",
        "/api/v1/direction/visitors",
        "/api/v1/direction/config",
        "/api/v1/direction/changelog",
    ]
    out = []
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, (path, response.text)
        out.append((path, response.json()))
    return out


def _error(response: httpx.Response, status: int, code: str | None = None) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["message"]
    if code is not None:
        assert error["code"] == code, error
    assert "Traceback" not in response.text
    assert "D-" not in error["message"]  # no rule ids in what a user reads
    return str(error["message"])


@pytest.fixture
def hosted(shared_data: Path, tmp_path: Path) -> Iterator[tuple[str, ReplayClock, Path, Path]]:
    """The site on a replay clock over the store a host's league file names."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    league = _league(tmp_path / "league.toml", shared_data, db)
    clock = ReplayClock(ROUND + timedelta(minutes=1))
    service = ScenarioService(open_store(db), clock)
    try:
        with serve_asgi(create_site(service, clock=clock)) as base:
            yield base, clock, league, tmp_path
    finally:
        service.store.close()


def test_host_visitor_calls_over_http_settle_with_the_round_and_rank_apart(
    hosted: tuple[str, ReplayClock, Path, Path],
) -> None:
    """D-PUB-2, D-PUB-1, D-RND-4: calls taken over HTTP, hidden, settled by the host.

    Before the host has played anything no round takes calls. Once it has
    played up to the round, a call in time is taken (202, no direction in the
    answer); the same name again, even written full-width, is refused 409; a
    call with exactly 30 s left is on time, one with 29.999 s left is late
    (409). Until the host plays the round nothing public names a visitor or a
    direction. Then the calls are settled with the round, scored like the
    models' and ranked on the visitors' board, the late name nowhere, and the
    record verifies.
    """
    base, clock, league, tmp = hosted
    with httpx.Client(base_url=base, timeout=30) as client:
        refused = client.post(CALLS, json={"visitor": "ann", "direction": "up"})
        _error(refused, 409, "no_open_round")

        _host(league, tmp / "host1.log", ROUND)  # plays 00:00 to 00:25: the arena runs

        taken = client.post(CALLS, json={"visitor": "ann", "direction": "up"})
        assert taken.status_code == 202, taken.text
        body = taken.json()
        VisitorCallOut.model_validate(body)  # the documented 202 answer, no field beyond it
        assert body["round"] == RID
        assert body["visitor"] == "visitor:ann"
        assert body["hidden_until"] == "2025-09-02T00:35:00.000000Z"
        assert body["calls_close_at"] == "2025-09-02T00:34:30.000000Z"
        assert "direction" not in body
        assert "up" not in set(_strings(body))
        assert client.post(CALLS, json={"visitor": " bob ", "direction": "down"}).status_code == 202

        again = client.post(CALLS, json={"visitor": "ann", "direction": "down"})
        _error(again, 409, "already_called")
        wide = client.post(CALLS, json={"visitor": "\uff41\uff4e\uff4e", "direction": "down"})
        _error(wide, 409, "already_called")  # full-width "ann" is ann

        clock.set(EXPIRY - timedelta(seconds=30))  # exactly 30 s left: on time
        assert client.post(CALLS, json={"visitor": "dave", "direction": "up"}).status_code == 202
        clock.set(EXPIRY - timedelta(seconds=30) + timedelta(milliseconds=1))
        late = client.post(CALLS, json={"visitor": "carol", "direction": "up"})
        message = _error(late, 409, "late")
        assert "00:34:30" in message

        # D-PUB-1: until the round is played and over, no visitor and no call in any payload.
        for path, payload in _public(client):
            texts = set(_strings(payload))
            assert not any("visitor:" in t for t in texts), path
            assert not texts & {"ann", "bob", "dave"}, path
            for node in _nodes(payload):
                if isinstance(node, dict) and node.get("round") == RID:
                    assert not HIDDEN & set(node), (path, node.keys())
        assert client.get("/api/v1/direction/visitors").json()["visitors"] == []
        assert client.get("/api/v1/direction/models/visitor:ann/log").status_code == 404
        page = client.get("/direction")
        assert page.status_code == 200
        assert "visitor:ann" not in page.text
        assert "visitor:bob" not in page.text

        _host(league, tmp / "host2.log", ROUND + timedelta(minutes=10))  # plays 00:30, 00:35

        board = client.get("/api/v1/direction/visitors").json()
        rows = {r["name"]: r for r in board["visitors"]}
        assert set(rows) == {"visitor:ann", "visitor:bob", "visitor:dave"}
        assert [r["rank"] for r in board["visitors"]] == [1, 2, 3]
        for row in rows.values():
            assert row["settled"] + sum(row["skips"].values()) == 1
            assert row["kind"] == "visitor"
        boards = client.get("/api/v1/direction/boards").json()
        assert {m["name"] for m in boards["models"]} == {"up", "momentum"}  # ranked apart
        assert boards["visitors"] == board["visitors"]
        played = client.get(f"/api/v1/direction/rounds/{RID}").json()
        calls = {c["model"]: c for c in played["calls"]}
        assert calls["visitor:ann"]["direction"] == "up"
        assert calls["visitor:bob"]["direction"] == "down"
        assert calls["visitor:dave"]["direction"] == "up"
        assert "visitor:carol" not in calls
        # D-PUB-2: scored the same way: a settled call's result and P&L as a model's are.
        model_up = calls["up"]
        assert calls["visitor:ann"]["result"] == model_up["result"]
        assert calls["visitor:ann"]["pnl"] == model_up["pnl"]
        log = client.get("/api/v1/direction/models/visitor:ann/log").json()
        assert [r["round"] for r in log["rows"]] == [RID]
        html = client.get("/direction/visitors").text
        assert "visitor:ann" in html
        assert "visitor:carol" not in html

    with open_store(f"sqlite:///{tmp / 'league.db'}") as store:
        assert verify(store).ok
        logged = [
            s.event.payload
            for s in store.events("direction")
            if s.event.kind == "VisitorCallLogged"
        ]
        ids = {s.event.id for s in store.events(f"direction/visitors/{RID}")}
        assert {p["agent"] for p in logged} == {"visitor:ann", "visitor:bob", "visitor:dave"}
        assert {p["call"] for p in logged} == ids  # each names the call it was taken from


def test_host_visitor_calls_replay_the_same_in_one_go(
    hosted: tuple[str, ReplayClock, Path, Path], shared_data: Path
) -> None:
    """A round's visitors' calls are inputs in the record: replayed in one go, same events.

    The host played up to the round, then (after the calls) on; a fresh host
    given the same calls plays the whole span at once and writes the arena's
    stream byte for byte the same.
    """
    base, _clock, league, tmp = hosted
    _host(league, tmp / "host1.log", ROUND)
    with httpx.Client(base_url=base, timeout=30) as client:
        for name, way in (("ann", "up"), ("bob", "down")):
            assert client.post(CALLS, json={"visitor": name, "direction": way}).status_code == 202
    _host(league, tmp / "host2.log", ROUND + timedelta(minutes=10))

    fresh = f"sqlite:///{tmp / 'fresh.db'}"
    again = _league(tmp / "fresh.toml", shared_data, fresh)
    with open_store(f"sqlite:///{tmp / 'league.db'}") as first, open_store(fresh) as second:
        second.append(
            Event(e.stream, e.kind, e.payload, e.occurred_at, e.id)
            for e in (s.event for s in first.events(f"direction/visitors/{RID}"))
        )
    _host(again, tmp / "fresh.log", ROUND + timedelta(minutes=10))

    def arena(url: str) -> list[tuple[str, str, str]]:
        with open_store(url) as store:
            return [
                (s.event.id, s.event.kind, json.dumps(s.event.payload, sort_keys=True))
                for s in store.events("direction")
            ]

    resumed, whole = arena(f"sqlite:///{tmp / 'league.db'}"), arena(fresh)
    assert any(kind == "VisitorCallLogged" for _, kind, _ in whole)
    assert resumed == whole


def test_host_visitor_call_garbage_bodies_get_4xx(
    hosted: tuple[str, ReplayClock, Path, Path],
) -> None:
    """Hostile bodies to the call route: each a JSON 4xx error, never a crash or a call."""
    base, _clock, league, tmp = hosted
    _host(league, tmp / "host1.log", ROUND)
    json_type = {"content-type": "application/json"}
    cases: list[tuple[bytes, dict[str, str], int]] = [
        (b" " * (50 << 20), json_type, 413),  # huge
        (b'{"visitor":' * 70_000 + b'"x"' + b"}" * 70_000, json_type, 400),  # deeply nested
        (b'{"visitor": "\xff\xfe", "direction": "up"}', json_type, 400),  # bad UTF-8
        (b'{"visitor": "\\ud800", "direction": "up"}', json_type, 0),  # a lone surrogate
        (b"{}", json_type, 422),  # missing fields
        (b'{"visitor": "x"}', json_type, 422),
        (b'{"direction": "up"}', json_type, 422),
        (b'{"visitor": "x", "direction": "sideways"}', json_type, 422),
        (b'{"visitor": "x", "direction": "up", "stake": 100}', json_type, 422),
        (b'{"visitor": 7, "direction": "up"}', json_type, 422),
        (b'{"visitor": "' + b"a" * 41 + b'", "direction": "up"}', json_type, 422),
        (b'{"visitor": "' + b"a" * 5000 + b'", "direction": "up"}', json_type, 422),
        (b'{"visitor": " \\u200b\\u2060 ", "direction": "up"}', json_type, 422),
        (b'{"visitor": "a\\u0000b", "direction": "up"}', json_type, 422),
        (b'["visitor", "direction"]', json_type, 422),
        (b"visitor=x&direction=up", {"content-type": "text/plain"}, 415),
        (b"not json", json_type, 0),
    ]
    with httpx.Client(base_url=base, timeout=60) as client:
        for body, headers, status in cases:
            response = client.post(CALLS, content=body, headers=headers)
            where = f"{body[:60]!r}: {response.status_code} {response.text[:200]}"
            assert 400 <= response.status_code < 500, where
            if status:
                assert response.status_code == status, where
            assert response.json()["error"]["code"], where
        assert client.get("/api/v1/direction/rounds/current").status_code == 200

        # Two equal calls at once: one is taken, every other refused.
        def post(_: int) -> int:
            return client.post(CALLS, json={"visitor": "eve", "direction": "up"}).status_code

        with ThreadPoolExecutor(8) as pool:
            statuses = sorted(pool.map(post, range(8)))
        assert statuses == [202] + [409] * 7
    with open_store(f"sqlite:///{tmp / 'league.db'}") as store:
        calls = [s.event.payload for s in store.events(f"direction/visitors/{RID}")]
        assert [c["visitor"] for c in calls] == ["eve"]


def test_host_serve_with_the_league_file_takes_its_database_and_arena(
    shared_data: Path, tmp_path: Path
) -> None:
    """``tradeleague serve --config``: the league file's store and arena, its calls refused live.

    The site runs as its own process on the wall clock: it serves the rounds
    the host recorded in the file's database, and, the host's rounds being
    history, refuses a visitor's call (409) because the arena is not playing now.
    """
    db = f"sqlite:///{tmp_path / 'league.db'}"
    league = _league(tmp_path / "league.toml", shared_data, db)
    _host(league, tmp_path / "host.log", DAY + timedelta(minutes=10))
    port = free_port()
    log = tmp_path / "serve.log"
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    with log.open("ab") as handle:
        serve = subprocess.Popen(
            [sys.executable, "-m", "tradeleague.cli", "serve", "--config", str(league),
             "--port", str(port)],
            stdout=handle, stderr=handle, env=env, start_new_session=True, cwd=tmp_path,
        )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"

        def up() -> bool:
            try:
                return httpx.get(f"{base}/api/v1", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        wait_for(up, 60, "tradeleague serve")
        rounds = httpx.get(f"{base}/api/v1/direction/rounds").json()["rounds"]
        assert [r["round"] for r in rounds] == ["20250902T0005Z", "20250902T0000Z"]
        refused = httpx.post(f"{base}{CALLS}", json={"visitor": "ann", "direction": "up"})
        assert "not playing now" in _error(refused, 409, "no_open_round")
        page = httpx.get(f"{base}/direction").text
        assert "not playing now" in page
        assert not list(tmp_path.glob("tradeleague.db*"))  # the file's database, not the default
    finally:
        assert stop(serve) in (0, -15), log.read_text(encoding="utf-8")
