"""``tradeleague export``: a season's audit bundle; and ``verify --bundle``, which checks one.

A third party checks a bundle with no access to the league's database
(`tradeleague.host.bundle`, ``docs/audit.md``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from tradeleague.errors import ConfigError
from tradeleague.terminal.options import DbOption

__all__ = ["export_command", "register", "verify_bundle_command"]


def export_command(
    season: Annotated[
        str,
        typer.Option(
            "--season",
            metavar="ID",
            help="The season to export: a weights or thesis season's id, an arena season "
            "(S1), or a scenario's id.",
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out", metavar="DIR", help="A new (or empty) folder to write the bundle to."
        ),
    ],
    key: Annotated[
        Path | None,
        typer.Option(
            "--key",
            metavar="FILE",
            help="Sign the chain head at the season's last event with this Ed25519 key "
            "(see `db keygen`). No default: give --key or --head.",
        ),
    ] = None,
    head: Annotated[
        Path | None,
        typer.Option(
            "--head",
            metavar="FILE",
            help="Or end the bundle at a signed head already published (the host's head_out, "
            "or `db sign-head`). No default: give --key or --head.",
        ),
    ] = None,
    stream: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="The arena's stream, as for `tradeleague report` (default: the format's "
            "default stream).",
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Write a season's audit bundle: its events, signed head, REPORT.json and market data.

    The bundle lets anyone check the season without the league's database:
    events.jsonl holds every event from the season's first to the signed head,
    one canonical JSON object a line with its hash and the previous event's;
    head.json is that head signed with Ed25519; REPORT.json is the season's
    report; market/ holds the market data the season read when its format keeps
    it in the store (a scenario's bars); README.txt says how to check it all
    with `tradeleague verify --bundle DIR --signer PUBLIC_KEY`. Make a key once
    with `tradeleague db keygen --out head.key` and publish its public key.

    Example: tradeleague export --season S1 --out bundle-S1 --key head.key --db sqlite:///league.db

    Example: tradeleague export --season S1 --out bundle-S1 --head head.json --db sqlite:///league.db
    """
    from tradeleague.host.bundle import export_bundle
    from tradeleague.store import open_store
    from tradeleague.store.signing import load_key

    private = None if key is None else load_key(key)
    with open_store(db, upgrade=False) as store:
        summary = export_bundle(store, season, out, key=private, head_file=head, stream=stream)
    typer.echo(
        f"Wrote season {summary.season}'s bundle to {summary.out}: {summary.events:,} events "
        f"(seq {summary.first_seq} to {summary.head.seq}), signed by {summary.head.public_key}."
    )
    typer.echo(
        f"Check it with: tradeleague verify --bundle {out} --signer {summary.head.public_key}"
    )


def verify_bundle_command(folder: Path, signer: str | None, as_json: bool) -> None:
    """Check the bundle in ``folder`` (``verify --bundle``); exit 1 naming the first mismatch."""
    from tradeleague.host.bundle import verify_bundle
    from tradeleague.store.bundle import BundleMismatch

    if not folder.is_dir():
        raise ConfigError(f"There is no bundle folder at {folder}.")
    try:
        summary = verify_bundle(folder, signer)
    except BundleMismatch as exc:
        if as_json:
            typer.echo(json.dumps({"ok": False, "bundle": str(folder), "mismatch": str(exc)}))
        else:
            Console(highlight=False, soft_wrap=True).print(f"[bold red]FAILED[/]: {exc}")
        raise typer.Exit(1) from None
    if as_json:
        body = {
            "ok": True,
            "bundle": str(folder),
            "season": summary.season,
            "events": summary.events,
            "first_seq": summary.first_seq,
            "head_seq": summary.head.seq,
            "head_hash": summary.head.hash,
            "signer": summary.head.public_key,
            "signer_pinned": signer is not None,
            "market_files": summary.market_files,
            "report_figures": summary.report_fields,
        }
        typer.echo(json.dumps(body, indent=2, sort_keys=True))
        return
    console = Console(highlight=False)
    table = Table(title="What was checked", show_header=False, title_justify="left")
    table.add_column("item", style="bold")
    table.add_column("value", overflow="fold")
    table.add_row("bundle", str(folder))
    table.add_row("season", summary.season)
    table.add_row("events (hashes recomputed)", f"{summary.events:,}")
    table.add_row("first seq", str(summary.first_seq))
    table.add_row("signed head", f"{summary.head.seq}:{summary.head.hash}")
    pinned = "" if signer is not None else " (not pinned: pass --signer)"
    table.add_row("signed by", summary.head.public_key + pinned)
    table.add_row("market files", str(summary.market_files))
    table.add_row("report figures recomputed", f"{summary.report_fields:,}")
    console.print(table)
    console.print(
        f"[bold green]OK[/]: {summary.events:,} events chain to the signed head and every "
        "figure of REPORT.json follows from them."
    )


def register(app: typer.Typer) -> None:
    """Add ``export`` to ``app``."""
    app.command("export")(export_command)
