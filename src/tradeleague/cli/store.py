"""CLI commands for the event store: ``verify`` and ``db upgrade | info | refresh``.

``tradeleague verify`` walks the whole hash chain and rebuilds every read model
(and every scenario run) from events alone (SPEC C-4, C-5); it exits 0 when
everything agrees, 1 on any mismatch, and 2 (one sentence, from the CLI root)
when the database cannot be reached.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from tradeleague.errors import ConfigError
from tradeleague.terminal.options import DbOption, JsonOption

if TYPE_CHECKING:
    from tradeleague.cli.plugin import ProjectionsPart
    from tradeleague.store import DbInfo, Mismatch, VerifyReport

__all__ = ["DbOption", "register", "register_projections"]

_SHOWN_MISMATCHES = 50


def _print_json(data: dict[str, object]) -> None:
    typer.echo(json.dumps(data, indent=2, sort_keys=True))


def register_projections() -> None:
    """Register every read model a format keeps outside the store, so `verify` rebuilds it too.

    Each installed format with a ``projections`` part
    (`tradeleague.cli.plugin.ProjectionsPart`) registers its own. The commands
    load lazily: a bare `tradeleague verify` would otherwise never import the
    weights league and report its entries as "not checked".
    """
    from tradeleague.plugin import formats

    for fmt in formats():
        if fmt.has("projections"):
            register: ProjectionsPart = fmt.part("projections")
            register()


def _verify_tables(
    report: VerifyReport, console: Console, checkpoint: tuple[int, str] | None
) -> None:
    summary = Table(title="What was checked", show_header=False, title_justify="left")
    summary.add_column("item", style="bold")
    summary.add_column("value", overflow="fold")
    summary.add_row("database", report.url)
    if report.since is not None:
        summary.add_row("read from", f"after seq {report.since:,} (the signed head)")
    summary.add_row("events (hashes recomputed)", f"{report.events:,}")
    summary.add_row("streams", f"{report.streams:,}")
    summary.add_row("head seq", str(report.head_seq))
    summary.add_row("head hash", report.head_hash)
    if checkpoint is not None:
        broken = any(m.check == "checkpoint" for m in report.mismatches)
        held = "does NOT hold (see Mismatches)" if broken else "holds"
        summary.add_row("published checkpoint", f"{checkpoint[0]}:{checkpoint[1]} {held}")
    if report.unchecked_projections:
        summary.add_row("not checked (unregistered)", ", ".join(report.unchecked_projections))
    console.print(summary)
    if report.projections:
        table = Table(title="Projections rebuilt from events", title_justify="left")
        for column in ("projection", "keys", "cursor", "behind"):
            table.add_column(column, justify="left" if column == "projection" else "right")
        for check in report.projections:
            table.add_row(check.name, str(check.keys), str(check.cursor), str(check.behind))
        console.print(table)
        behind = max(check.behind for check in report.projections)
        if behind:
            console.print(_behind_words(behind, report.url), highlight=False, soft_wrap=True)
    if report.mismatches:
        table = Table(title="Mismatches", title_justify="left", title_style="bold red")
        for column in ("check", "seq", "projection", "key", "detail"):
            table.add_column(column, overflow="fold")
        for m in report.mismatches[:_SHOWN_MISMATCHES]:
            seq = "" if m.seq is None else str(m.seq)
            table.add_row(m.check, seq, m.projection or "", m.key or "", m.detail)
        console.print(table)
        hidden = len(report.mismatches) - _SHOWN_MISMATCHES
        if hidden > 0:
            console.print(f"... and {hidden} more (use --json for all).")
        console.print(
            f"[bold red]FAILED[/]: {len(report.mismatches)} mismatch(es); the first: "
            f"{_first_words(report.mismatches[0])}",
            highlight=False,
            soft_wrap=True,
        )
    elif report.since is not None:
        console.print(
            f"[bold green]OK[/]: the {report.events:,} events after seq {report.since:,} "
            "chain correctly onto the signed head (projections: run a whole verify).",
            highlight=False,
        )
    else:
        console.print(
            f"[bold green]OK[/]: {report.events:,} events chain correctly and "
            f"{len(report.projections)} projection(s) match their events."
        )


def _first_words(mismatch: Mismatch) -> str:
    """Return the first mismatch as the one sentence the FAILED line ends on."""
    where = "" if mismatch.seq is None else f"event {mismatch.seq}: "
    if mismatch.projection is not None and mismatch.column is None and mismatch.key is not None:
        where += f"{mismatch.projection} {mismatch.key}: "
    return f"{where}{mismatch.detail.rstrip('.')}."


def _behind_words(behind: int, url: str) -> str:
    """Say what a projection's ``behind`` means, and that it is expected (not a mismatch).

    ``behind`` is the most any projection is behind.
    """
    return (
        "behind: the events recorded after a projection's stored state was last refreshed "
        f"(here up to {behind:,}), not yet folded into that read model. This is expected and "
        "not a mismatch: "
        "a host and every live writer append events without refreshing the stored read "
        "models, and every page and report reads the events themselves; verify still folded "
        "each of those events to check that it applies. To bring the stored read models up "
        f"to date: tradeleague db refresh --db {url}"
    )


def _checkpoint(text: str | None, signer: str | None) -> tuple[int, str] | None:
    """Return the checkpoint ``SEQ:HASH`` names, or the one a signed head file holds."""
    from tradeleague.store.signing import parse_checkpoint, read_signed_head

    if text is None:
        if signer is not None:
            raise ConfigError("--signer needs --checkpoint with a signed head file.")
        return None
    if not Path(text).is_file():
        if signer is not None:
            raise ConfigError("--signer needs a signed head file, not SEQ:HASH.")
        return parse_checkpoint(text)
    head = read_signed_head(Path(text))
    if signer is not None and head.public_key != signer.strip().lower():
        raise ConfigError(
            f"The head in {text} is signed by key {head.public_key}, not the one given."
        )
    return head.seq, head.hash


def _since_checkpoint(since: int, checkpoint: str | None, to_head: bool) -> None:
    """Refuse ``--since`` without a signed head file, or beside ``--to-head``."""
    if checkpoint is None or not Path(checkpoint).is_file():
        raise ConfigError(
            f"--since {since} needs --checkpoint FILE, the head signed at seq {since} "
            "(see `tradeleague db sign-head`)."
        )
    if to_head:
        raise ConfigError("--since checks up to the log's end already: drop --to-head.")


def verify_command(
    db: DbOption = None,
    as_json: JsonOption = False,
    checkpoint: Annotated[
        str | None,
        typer.Option(
            help="SEQ:HASH of the chain head published earlier (see `db info`), or a signed "
            "head file (see `db sign-head`): proves no event up to it was cut or rewritten, "
            "even with the head row rewritten too."
        ),
    ] = None,
    to_head: Annotated[
        bool,
        typer.Option(
            "--to-head",
            help="The checkpoint is the last head published: any event after it is a mismatch.",
        ),
    ] = False,
    signer: Annotated[
        str | None,
        typer.Option(
            help="The public key (hex) that must have signed the --checkpoint file, or the "
            "--bundle's head.",
            show_default=False,
        ),
    ] = None,
    since: Annotated[
        int | None,
        typer.Option(
            "--since",
            metavar="SEQ",
            min=0,
            help="Read only the events after SEQ: a daily audit from the head signed at SEQ "
            "(--checkpoint FILE, as `db sign-head` writes) onward, without re-reading the "
            "years before it. Each later hash is recomputed and the first must link to the "
            "signed hash; projections are left to a whole verify (default: the whole log).",
            show_default=False,
        ),
    ] = None,
    bundle: Annotated[
        Path | None,
        typer.Option(
            "--bundle",
            metavar="DIR",
            help="Check a season's audit bundle (see `tradeleague export`) instead of a "
            "database: its chain, its signed head, and every figure of its REPORT.json "
            "recomputed from its events and market data (default: check the database).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Walk the hash chain and rebuild every projection from events; exit 1 on any mismatch.

    Every scenario run is replayed from its events on its scenario's bars, and
    each column of the scenario tables (a run's account, status, state, equity
    rows, results, publication time; each scenario's version row and bars)
    must be what the replay gives: the last line names the first table, row
    and column that differ.

    A projection's "behind" counts the events recorded after its stored state
    was last refreshed, not yet folded into it: expected while a host writes
    (it never refreshes them), not a mismatch; `tradeleague db refresh` folds them.

    With --bundle DIR it reads no database: it checks a season's audit bundle
    written by `tradeleague export` and names the first event, bar or report
    figure that does not hold.

    Example: tradeleague verify --db sqlite:///league.db --checkpoint 1234:<64 hex digits>

    Example: tradeleague verify --db sqlite:///league.db --since 1234 --checkpoint head.json

    Example: tradeleague verify --bundle bundle-S1 --signer <the league's public key, 64 hex>
    """
    from tradeleague.store import open_store, verify, verify_since

    if bundle is not None:
        if checkpoint is not None or to_head or db is not None or since is not None:
            raise ConfigError(
                "--bundle checks a bundle alone: drop --db, --checkpoint, --since and --to-head."
            )
        from tradeleague.cli.bundle import verify_bundle_command

        verify_bundle_command(bundle, signer, as_json)
        return
    if since is not None:
        _since_checkpoint(since, checkpoint, to_head)
    expected = _checkpoint(checkpoint, signer)
    if to_head and expected is None:
        raise ConfigError("--to-head needs --checkpoint.")
    if since is not None and expected is not None and expected[0] != since:
        raise ConfigError(
            f"--since {since} needs the head signed at seq {since}; "
            f"the --checkpoint file is signed at seq {expected[0]}."
        )
    register_projections()
    with open_store(db, upgrade=False) as store:
        if since is not None and expected is not None:
            report = verify_since(store, expected)
        else:
            report = verify(store, checkpoint=expected, to_head=to_head)
    if as_json:
        _print_json(report.to_dict())
    else:
        _verify_tables(report, Console(highlight=False), expected)
    if not report.ok:
        raise typer.Exit(1)


def keygen_command(
    out: Annotated[Path, typer.Option("--out", help="Where to write the new private key.")],
) -> None:
    """Write a new Ed25519 key for signing chain heads (never overwrites a file).

    Keep the key private; publish the public key it prints, so anyone can check
    a signed head with `tradeleague verify --checkpoint FILE --signer HEX`.

    Example: tradeleague db keygen --out ~/.config/tradeleague/head.key
    """
    from tradeleague.store.signing import generate_key

    public = generate_key(out)
    typer.echo(f"Wrote a new signing key to {out}; its public key is {public}")


def sign_head_command(
    key: Annotated[Path, typer.Option("--key", help="The Ed25519 key file (see `db keygen`).")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the signed head.")],
    db: DbOption = None,
) -> None:
    """Sign the chain head with a key and write it to a file to publish.

    A published signed head lets anyone prove later that no event up to it was
    cut or replaced (`tradeleague verify --checkpoint FILE`).

    Example: tradeleague db sign-head --key head.key --out head.json --db sqlite:///league.db
    """
    from tradeleague.store import describe
    from tradeleague.store.signing import load_key, sign_head

    private = load_key(key)
    info = describe(db)
    signed = sign_head(private, info.head_seq, info.head_hash)
    try:
        out.write_text(signed.to_json(), encoding="ascii")
    except OSError as exc:
        raise ConfigError(f"Cannot write {out}: {exc.strerror}.") from None
    typer.echo(f"Signed head {signed.seq}:{signed.hash} written to {out}.")


def upgrade_command(db: DbOption = None) -> None:
    """Create the schema in a blank database, or bring an old one to the current revision.

    Example: tradeleague db upgrade --db postgresql+psycopg://league@localhost/league
    """
    from tradeleague.store import describe, open_store

    with open_store(db):
        pass
    info = describe(db)
    typer.echo(f"{info.url} is at schema revision {info.revision} (the current one).")


def _info_table(info: DbInfo, console: Console) -> None:
    table = Table(show_header=False)
    table.add_column("item", style="bold")
    table.add_column("value", overflow="fold")
    table.add_row("database", info.url)
    table.add_row("backend", info.backend)
    state = "" if info.up_to_date else f"  (expected {info.head_revision}: run `db upgrade`)"
    table.add_row("schema revision", f"{info.revision or 'none (blank database)'}{state}")
    table.add_row("events", f"{info.events:,}")
    console.print(table)
    # one unwrapped token, easy to copy into `verify --checkpoint`
    typer.echo(f"head {info.head_seq}:{info.head_hash}")


def info_command(db: DbOption = None, as_json: JsonOption = False) -> None:
    """Show the database (password masked), its schema revision, event count and head hash.

    Example: tradeleague db info --db sqlite:///league.db --json
    """
    from tradeleague.store import describe

    info = describe(db)
    if as_json:
        _print_json(info.to_dict())
    else:
        _info_table(info, Console(highlight=False))


def refresh_command(db: DbOption = None) -> None:
    """Bring every registered projection up to date with the event log.

    Example: tradeleague db refresh --db sqlite:///league.db
    """
    from tradeleague.store import open_store

    register_projections()
    with open_store(db, upgrade=False) as store:
        applied = store.refresh_projections()
    for name, count in sorted(applied.items()):
        typer.echo(f"{name}: {count} event(s) applied.")


def register(app: typer.Typer) -> None:
    """Add ``verify`` and the ``db`` group to ``app``."""
    app.command("verify")(verify_command)
    db = typer.Typer(name="db", help="Manage the event store's database.", no_args_is_help=True)
    db.command("upgrade")(upgrade_command)
    db.command("info")(info_command)
    db.command("refresh")(refresh_command)
    db.command("keygen")(keygen_command)
    db.command("sign-head")(sign_head_command)
    app.add_typer(db, name="db")
