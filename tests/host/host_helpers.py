"""League files for the host tests, written over the shared data or local peers."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path


def weights_league(
    data: Path,
    db: str,
    agents: Sequence[tuple[str, str, str]],
    *,
    end: str = "2025-09-03",
    symbols: Sequence[str] = ("AAPL", "MSFT", "NVDA"),
) -> str:
    """Return a league file's text: season W1 of the weights league over hourly bars.

    ``agents`` are (name, spec, division); the season runs 2025-09-02 to ``end``.
    """
    text = f"""
[league]
db = "{db}"

[weights]
season = "W1"
start = 2025-09-02
end = {end}
market = "{data / "us_equities_1h"}"
symbols = {json.dumps(list(symbols))}
"""
    for name, spec, division in agents:
        text += f"""
[[weights.agents]]
name = "{name}"
spec = "{spec}"
division = "{division}"
"""
    return text


def replay_league(path: Path, data: Path, db: str, *, direction: bool = True) -> Path:
    """Write a league file: weights (Open and Pro) over hourly bars, the arena over 1m candles."""
    text = weights_league(
        data,
        db,
        [("equal", "baseline:equal_weight", "open"), ("momentum", "baseline:momentum", "pro")],
    )
    if direction:
        text += f"""
[direction]
market = "{data / "crypto_1m"}"

[[direction.agents]]
name = "up"
spec = "baseline:up"

[[direction.agents]]
name = "momentum"
spec = "baseline:momentum"
"""
    path.write_text(text, encoding="utf-8")
    return path


def drill_league(
    path: Path, db: str, exchange: str, provider: str, *, http: str | None = None
) -> Path:
    """Write a live league file: the arena's 2 s drill rounds against local peers.

    ``http`` (HOST:PORT) is where the file says the host serves /healthz and /metrics.
    """
    served = "" if http is None else f'http = "{http}"'
    path.write_text(
        f"""
[league]
db = "{db}"
{served}

[direction]
exchange = "binance"
api_base = "{exchange}"
drill = true

[[direction.agents]]
name = "up"
spec = "baseline:up"

[[direction.agents]]
name = "fast"
spec = "openai:fast@{provider},key_env=FAKE_KEY"

[providers.fake]
key_env = "FAKE_KEY"
""",
        encoding="utf-8",
    )
    return path
