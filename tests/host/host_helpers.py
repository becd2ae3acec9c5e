"""League files for the host tests, written over the shared data or local peers."""

from __future__ import annotations

from pathlib import Path


def replay_league(path: Path, data: Path, db: str, *, direction: bool = True) -> Path:
    """Write a league file: weights (Open and Pro) over hourly bars, the arena over 1m candles."""
    text = f"""
[league]
db = "{db}"

[weights]
season = "W1"
start = 2025-09-02
end = 2025-09-03
market = "{data / "us_equities_1h"}"
symbols = ["AAPL", "MSFT", "NVDA"]

[[weights.agents]]
name = "equal"
spec = "baseline:equal_weight"
division = "open"

[[weights.agents]]
name = "momentum"
spec = "baseline:momentum"
division = "pro"
"""
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
