"""Export a season as an audit bundle, and verify one without the league's database.

A bundle (layout in `tradeleague.store.bundle`, how to check one in
``docs/audit.md``) holds the season's events as a run of the log's hash chain,
the chain head signed with the operator's Ed25519 key, the season's
REPORT.json, and the market data the season read when its format keeps it in
the store (a scenario's bars). `verify_bundle` re-checks the chain and the
signature, loads the events into a scratch store of its own, and recomputes
REPORT.json with the very code that wrote it: a format's ``bundle`` part
(`BundlePart`) when it has one, else its host part's report (the one
``tradeleague report`` and ``replay --out`` write). The first difference is
named in one sentence (`BundleMismatch`).

Which events are the season's is asked of the registry, never of a format's
name: the streams a ``bundle`` part names, every format's ``KEY/ID`` stream,
and any stream whose events carry ``"season": ID``. The bundle holds the
chain from the first of those events to the signed head, other streams'
events in between included (the chain links them); export checks that the
report recomputed from exactly that run of events is the store's, and widens
the run to the head, then to the whole log, when it is not.
"""

from __future__ import annotations

import itertools
import json
import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from tradeleague.errors import ConfigError, TradeleagueError
from tradeleague.events import Event
from tradeleague.events.streams import season_stream
from tradeleague.host.reads import season_report
from tradeleague.plugin import formats
from tradeleague.store import Store, StoredEvent, open_store
from tradeleague.store.bundle import (
    EVENTS_FILE,
    HEAD_FILE,
    MANIFEST_FILE,
    MARKET_DIR,
    README_FILE,
    REPORT_FILE,
    BundleMismatch,
    EventMismatch,
    Manifest,
    check_head,
    read_chain,
    read_manifest,
    write_events,
)
from tradeleague.store.rows import strict_loads
from tradeleague.store.signing import SignedHead, read_signed_head, sign_head

__all__ = [
    "BundleMismatch",
    "BundlePart",
    "ExportSummary",
    "VerifySummary",
    "export_bundle",
    "verify_bundle",
]

_MARKET_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_MAX_MARKET_BYTES: Final = 512 * 1024 * 1024
_MAX_REPORT_BYTES: Final = 256 * 1024 * 1024


class BundlePart(Protocol):
    """A format's part of an audit bundle, for seasons whose report needs more than events.

    ``report`` is called twice with the same code: on export with the league's
    store and the ``market`` files `market` read from it, and on verify with a
    scratch store holding only the bundle's events and the bundle's files.
    """

    def streams(self, store: Store, season: str) -> list[str] | None:
        """Return the season's streams in ``store``, or ``None`` if it is not one of this format."""
        ...

    def market(self, store: Store, season: str) -> dict[str, str]:
        """Return the market data the season read, as files (name to text) for ``market/``."""
        ...

    def report(self, store: Store, season: str, market: Mapping[str, str]) -> dict[str, Any] | None:
        """Return the season's REPORT.json from ``store``'s events and ``market``.

        Raises
        ------
        BundleMismatch
            Where the events and the market data disagree (naming the event and the bar).
        """
        ...


def _parts() -> list[BundlePart]:
    return [fmt.part("bundle") for fmt in formats() if fmt.has("bundle")]


def _normal(body: object) -> Any:
    """Return ``body`` as JSON reads it back (tuples become lists, keys strings)."""
    return json.loads(json.dumps(body))


def _report(
    store: Store, season: str, market: Mapping[str, str], stream: str | None
) -> dict[str, Any] | None:
    for part in _parts():
        body = part.report(store, season, market)
        if body is not None:
            return _normal(body)  # type: ignore[no-any-return]
    try:
        return _normal(season_report(store, season, stream=stream))  # type: ignore[no-any-return]
    except ConfigError:
        return None


def _season_streams(store: Store, season: str) -> tuple[set[str], dict[str, str]]:
    """Return the streams named for ``season`` and the market files of the format that has it."""
    for part in _parts():
        streams = part.streams(store, season)
        if streams is not None:
            return set(streams), part.market(store, season)
    return {season_stream(fmt.key, season) for fmt in formats()}, {}


def _of_season(event: Event, streams: set[str], season: str) -> bool:
    if event.stream in streams:
        return True
    return event.payload_view.get("season") == season


@dataclass(frozen=True, slots=True)
class ExportSummary:
    """What `export_bundle` wrote: how many events, the signed head, the folder."""

    season: str
    events: int
    first_seq: int
    head: SignedHead
    out: Path


def _scratch_report(
    events: Iterable[StoredEvent], season: str, market: Mapping[str, str], stream: str | None
) -> dict[str, Any] | None:
    """Return the report recomputed from ``events`` alone, in a scratch store thrown away."""
    batch = list(events)
    offset = batch[0].seq - 1 if batch else 0
    with (
        tempfile.TemporaryDirectory(prefix="tradeleague-bundle-") as folder,
        open_store(f"sqlite:///{Path(folder) / 'bundle.db'}") as scratch,
    ):
        try:
            scratch.append(s.event for s in batch)  # seq 1 here is the bundle's first
            return _report(scratch, season, market, stream)
        except EventMismatch as exc:
            raise EventMismatch(exc.seq + offset, exc.detail) from None
        except BundleMismatch:
            raise
        except (TradeleagueError, ValueError, TypeError, LookupError, ArithmeticError) as exc:
            # a chain can be whole and still hold events no league wrote (signed by another key)
            raise BundleMismatch(
                "The season's report cannot be recomputed from the bundle's events: "
                f"{str(exc).rstrip('.')}."
            ) from None


def _head_of(store: Store, head_file: Path, last_seq: int) -> tuple[SignedHead, int]:
    head = read_signed_head(head_file)
    if head.seq < last_seq:
        raise ConfigError(
            f"The signed head {head_file} is at seq {head.seq}, before the season's last event "
            f"(seq {last_seq}); sign a later head."
        )
    found = next(store.events(after_seq=head.seq - 1, batch=1), None)
    if found is None or found.seq != head.seq or found.hash != head.hash:
        raise ConfigError(f"The signed head {head_file} is not a head of this store's chain.")
    return head, head.seq


def _run_of_chain(store: Store, start: int, stop: int) -> list[StoredEvent]:
    """Return the stored events from seq ``start`` to seq ``stop``, both included."""
    return list(itertools.takewhile(lambda s: s.seq <= stop, store.events(after_seq=start - 1)))


def _empty_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        if any(out.iterdir()):
            raise ConfigError(f"The folder {out} is not empty; export writes into a new folder.")
    except OSError as exc:
        raise ConfigError(f"Cannot write the folder {out}: {exc.strerror}.") from None


def export_bundle(
    store: Store,
    season: str,
    out: Path,
    *,
    key: Any | None = None,
    head_file: Path | None = None,
    stream: str | None = None,
) -> ExportSummary:
    """Write ``season``'s audit bundle into the new folder ``out``.

    Parameters
    ----------
    key
        An Ed25519 private key (`tradeleague.store.signing.load_key`): the head
        at the season's last event is signed with it.
    head_file
        Or a signed head already published (`HeadPublisher`, ``db sign-head``)
        at or after the season's last event: the bundle runs to it.
    stream
        The stream of a format whose seasons share one (the arena's), when not
        its default; kept in ``bundle.json`` for the verifier.

    Raises
    ------
    ConfigError
        In one sentence: no such season, no key nor head, a head that is not
        this store's, or a folder that cannot be written.
    """
    if (key is None) == (head_file is None):
        raise ConfigError(
            "Give exactly one of --key (sign the head now) or --head (a signed head)."
        )
    try:
        streams, market = _season_streams(store, season)
        expected = _report(store, season, market, stream)
    except BundleMismatch as exc:
        raise ConfigError(
            f"Season {season!r} does not check out in the store itself: {exc}"
        ) from None
    if expected is None:
        raise ConfigError(f"The store holds no season {season!r}.")
    first = last = 0
    for stored in store.events():
        if _of_season(stored.event, streams, season):
            first = first or stored.seq
            last = stored.seq
    if not first:
        raise ConfigError(f"The store holds no event of season {season!r}.")
    if head_file is not None:
        head, end = _head_of(store, head_file, last)
        spans = [(first, end), (1, end)]
    else:
        end = store.head().seq
        spans = [(first, last), (first, end), (1, end)]
    chosen: list[StoredEvent] = []
    for start, stop in spans:
        chosen = _run_of_chain(store, start, stop)
        try:
            if _scratch_report(chosen, season, market, stream) == expected:
                break
        except BundleMismatch:
            continue  # a run of events too short to hold the season: widen it
    else:
        raise ConfigError(
            f"Season {season!r}'s report cannot be recomputed from its events alone; "
            "it cannot be exported."
        )
    if key is not None:
        head = sign_head(key, chosen[-1].seq, chosen[-1].hash)
    _empty_folder(out)
    try:
        count, _ = write_events(out / EVENTS_FILE, chosen)
        (out / HEAD_FILE).write_text(head.to_json(), encoding="ascii")
        (out / REPORT_FILE).write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")
        (out / MANIFEST_FILE).write_text(Manifest(season, stream).to_json(), encoding="utf-8")
        if market:
            (out / MARKET_DIR).mkdir()
            for name, text in sorted(market.items()):
                (out / MARKET_DIR / name).write_text(text, encoding="utf-8", newline="\n")
        (out / README_FILE).write_text(readme(season, head), encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"Cannot write the bundle in {out}: {exc.strerror}.") from None
    return ExportSummary(season, count, chosen[0].seq, head, out)


def readme(season: str, head: SignedHead) -> str:
    """Return the bundle's README.txt: what it holds and how to check it."""
    return f"""Audit bundle of season {season} (tradeleague).

events.jsonl  every event from the season's first to the signed head, one canonical JSON
              object a line: seq, id, stream, kind, occurred_at, payload, and the chain's
              prev_hash and hash, where hash = sha256(prev_hash || canonical content).
head.json     the chain head {head.seq}:{head.hash},
              signed with Ed25519 by public key {head.public_key}.
REPORT.json   the season's report, every figure recomputable from the events (and market/).
market/       the market data the season read, when its format keeps it (a scenario's bars).
bundle.json   the season's id.

To check it, with tradeleague installed (no database needed):

    tradeleague verify --bundle . --signer {head.public_key}

Compare the --signer key with the one the league publishes. verify re-hashes every event,
checks each link and the signature, replays the season's results from the events and the
market data with the code that wrote REPORT.json, and names the first thing that differs.
"""


@dataclass(frozen=True, slots=True)
class VerifySummary:
    """What `verify_bundle` checked: the season, how many events, the signed head."""

    season: str
    events: int
    first_seq: int
    head: SignedHead
    market_files: int
    report_fields: int


def _read_market(folder: Path) -> dict[str, str]:
    where = folder / MARKET_DIR
    if not where.is_dir():
        return {}
    files: dict[str, str] = {}
    total = 0
    for path in sorted(where.iterdir()):
        if not _MARKET_NAME.fullmatch(path.name) or not path.is_file():
            raise BundleMismatch(f"The bundle's {MARKET_DIR}/{path.name} is not a market file.")
        total += path.stat().st_size
        if total > _MAX_MARKET_BYTES:
            raise BundleMismatch(f"The bundle's {MARKET_DIR}/ is larger than any season reads.")
        try:
            files[path.name] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            raise BundleMismatch(
                f"The bundle's {MARKET_DIR}/{path.name} is not UTF-8 text."
            ) from None
    return files


def _read_report(folder: Path) -> object:
    path = folder / REPORT_FILE
    try:
        data = path.read_bytes()[: _MAX_REPORT_BYTES + 1]
        if len(data) > _MAX_REPORT_BYTES:
            raise ValueError("too large")
        return strict_loads(data.decode("utf-8"))
    except OSError as exc:
        raise BundleMismatch(
            f"The bundle's {REPORT_FILE} cannot be read: {exc.strerror}."
        ) from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BundleMismatch(f"The bundle's {REPORT_FILE} is not JSON.") from None


def first_difference(recorded: object, computed: object, path: str = "") -> str | None:
    """Return the first field where ``recorded`` and ``computed`` differ, with both values."""
    if isinstance(recorded, dict) and isinstance(computed, dict):
        for name in list(computed) + [k for k in recorded if k not in computed]:
            here = f"{path}.{name}" if path else str(name)
            if name not in recorded:
                return f"{here} is missing (the events give {_short(computed[name])})"
            if name not in computed:
                return f"{here} is not a figure the events give"
            found = first_difference(recorded[name], computed[name], here)
            if found is not None:
                return found
        return None
    if isinstance(recorded, list) and isinstance(computed, list):
        for i, (a, b) in enumerate(zip(recorded, computed, strict=False)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found is not None:
                return found
        if len(recorded) != len(computed):
            return f"{path} holds {len(recorded)} items, the events give {len(computed)}"
        return None
    if type(recorded) is not type(computed) or recorded != computed:
        return f"{path or 'the report'} is {_short(recorded)}, the events give {_short(computed)}"
    return None


def _short(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _count(body: object) -> int:
    if isinstance(body, dict):
        return sum(_count(v) for v in body.values())
    if isinstance(body, list):
        return sum(_count(v) for v in body)
    return 1


def verify_bundle(folder: Path, signer: str | None = None) -> VerifySummary:
    """Check the bundle in ``folder`` with no database; return what was checked.

    Raises
    ------
    BundleMismatch
        One sentence naming the first event, bar or report field that disagrees.
    """
    manifest = read_manifest(folder)
    chain = read_chain(folder)
    head = check_head(folder, chain[-1], signer)
    market = _read_market(folder)
    recorded = _read_report(folder)
    computed = _scratch_report(chain, manifest.season, market, manifest.stream)
    if computed is None:
        raise BundleMismatch(f"The bundle's events hold no season {manifest.season!r}.")
    difference = first_difference(recorded, computed)
    if difference is not None:
        raise BundleMismatch(f"REPORT.json's {difference}.")
    return VerifySummary(
        manifest.season, len(chain), chain[0].seq, head, len(market), _count(computed)
    )
