"""``tradeleague replay toy``: a toy season over a synthetic tape, resumable."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ConfigError
from tradeleague.store import open_store

from .season import BASELINES, ToySeason, replay, report, tape

__all__ = ["register_replay", "replay_toy", "roster_of"]


def roster_of(agents: list[str]) -> dict[str, str]:
    """Return the roster ``NAME=SPEC`` options name, checked."""
    roster: dict[str, str] = {}
    for item in agents:
        name, _, spec = item.partition("=")
        if not name or spec not in BASELINES or name in roster:
            raise ConfigError(
                f"--agent {item!r}: write NAME=SPEC once per name, SPEC one of "
                f"{', '.join(BASELINES)}"
            )
        roster[name] = spec
    return roster


def replay_toy(
    agent: Annotated[
        list[str], typer.Option("--agent", help="NAME=SPEC, SPEC one of first, last, cash, coin.")
    ],
    db: Annotated[str, typer.Option("--db", help="The store's URL.")] = "sqlite:///toy.db",
    season: Annotated[str, typer.Option(help="The season's id.")] = "t1",
    seed: Annotated[int, typer.Option(help="The synthetic tape's seed.")] = 7,
    days: Annotated[int, typer.Option(min=1, max=365, help="Rounds to play.")] = 5,
    out: Annotated[Path | None, typer.Option(help="Write REPORT.json here.")] = None,
) -> None:
    """Replay a toy season: each round every agent names one symbol to hold.

    Example: tradeleague replay toy --agent a=first --agent b=coin --days 5
    """
    roster = roster_of(agent)
    store = open_store(db).deriving_ids()
    try:
        played = asyncio.run(replay(ToySeason(store, season, roster, tape(seed, days))))
        payload = report(store, season)
    finally:
        store.close()
    typer.echo(f"toy season {season}: {played} rounds played")
    for row in (payload or {}).get("board", []):
        typer.echo(f"{row['rank']}. {row['agent']} {row['return_ppm'] / 10_000:+.2f}%")
    if out is not None and payload is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
    typer.echo(DISCLAIMER)


def register_replay(app: typer.Typer) -> None:
    """Add ``replay toy`` to ``app``."""
    app.command("toy")(replay_toy)
