"""``tradeleague serve`` serves Prometheus text on /metrics too, names prefixed tradeleague_."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tradeleague.clock import WallClock
from tradeleague.errors import ConfigError
from tradeleague.host.http import parse_hostport, serve_http
from tradeleague.host.metrics import AGENT_LABELS, LABEL_CHARS, OTHER, PROVIDER_LABELS, Metrics
from tradeleague.league.scenario import ScenarioService
from tradeleague.site import create_site
from tradeleague.store import open_store


def test_host_serve_site_exposes_metrics(tmp_path: Path) -> None:
    with open_store(f"sqlite:///{tmp_path / 'site.db'}") as store:
        site = create_site(ScenarioService(store, WallClock()))
        with TestClient(site) as client:
            response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert "# TYPE tradeleague_rounds_played_total counter" in response.text
    assert "tradeleague_store_append_seconds" in response.text


def test_host_metrics_count_rounds_calls_and_latency() -> None:
    metrics = Metrics()
    metrics.played("weights")
    metrics.missed("direction", "host_down")
    metrics.call("weights", "m", "openai", "answered", 0.4)
    metrics.call("weights", "m", "openai", "timeout", None)
    text = metrics.render().decode()
    assert 'tradeleague_rounds_played_total{format="weights"} 1.0' in text
    assert 'tradeleague_rounds_missed_total{format="direction",reason="host_down"} 1.0' in text
    assert (
        'tradeleague_model_calls_total{agent="m",format="weights",outcome="timeout",'
        'provider="openai"} 1.0'
    ) in text
    assert (
        'tradeleague_model_call_latency_seconds_count{agent="m",format="weights",'
        'outcome="answered",provider="openai"} 1.0'
    ) in text
    assert 'outcome="timeout",provider="openai"} 0.0' not in text  # no latency: not observed


def test_host_metrics_labels_are_bounded() -> None:
    """Agents past the first AGENT_LABELS and providers past PROVIDER_LABELS count as other."""
    metrics = Metrics()
    for i in range(AGENT_LABELS + 5):
        metrics.call("weights", f"agent-{i}", f"p{i}", "answered", 0.1)
    metrics.call("weights", "x" * 500 + "\n\x00", "p0", "answered", 0.1)
    text = metrics.render().decode()
    agents = set(re.findall(r'tradeleague_model_calls_total\{agent="([^"]*)"', text))
    providers = set(re.findall(r'provider="([^"]*)"', text))
    assert len(agents) == AGENT_LABELS + 1
    assert OTHER in agents
    assert "agent-0" in agents
    assert f"agent-{AGENT_LABELS}" not in agents
    assert len(providers) == PROVIDER_LABELS + 1
    assert OTHER in providers
    assert (
        f'tradeleague_model_calls_total{{agent="{OTHER}",format="weights",outcome="answered",'
        f'provider="{OTHER}"}} 5.0'
    ) in text  # the long name came after the bound: other too
    fresh = Metrics()
    fresh.call("weights", "x" * 500 + "\n", "p", "answered", None)
    assert f'agent="{"x" * LABEL_CHARS}"' in fresh.render().decode()  # cut, not refused
    assert "count as 'other'" in text  # the help says so


def test_host_http_address_is_checked() -> None:
    assert parse_hostport("127.0.0.1:9108") == ("127.0.0.1", 9108)
    for bad in ("nohost", ":80", "h:99999", "h:x"):
        with pytest.raises(ConfigError, match="HOST:PORT"):
            parse_hostport(bad)


def test_host_http_on_a_taken_port_logs_and_returns(caplog: pytest.LogCaptureFixture) -> None:
    """A port the host cannot take stops the metrics server only, never the host's rounds."""
    import asyncio
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        async def main() -> None:
            stop = asyncio.Event()
            await asyncio.wait_for(
                serve_http(f"127.0.0.1:{port}", Metrics(), lambda: {"ok": True}, stop), 30
            )

        asyncio.run(main())
    assert any("cannot serve" in r.getMessage() for r in caplog.records)
