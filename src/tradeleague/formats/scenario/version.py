"""What pins a scenario version's row to the log: one digest over all of it (S-SCN-2).

A run's start event names the digest of the version it runs (its id, name,
number, rules, content hash, bar counts and creation time), so `verify` can
tell a version row edited behind the log from the one the run was played on;
the content hash in turn pins every bar.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from tradeleague.events import canonical_json, utc_iso

__all__ = ["version_digest"]


def version_digest(
    scenario_id: str,
    name: str,
    version: int,
    config: str,
    content_hash: str,
    bars: int,
    dropped: int,
    created_at: datetime,
) -> str:
    """Return the SHA-256 of a scenario version's row (``config`` is its stored JSON text)."""
    body = canonical_json(
        {
            "id": scenario_id,
            "name": name,
            "version": version,
            "config": config,
            "content_hash": content_hash,
            "bars": bars,
            "dropped": dropped,
            "created_at": utc_iso(created_at),
        }
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()
