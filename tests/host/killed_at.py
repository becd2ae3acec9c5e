"""Run ``tradeleague ARGS`` and ``kill -9`` it the moment the log would pass an event count.

``python killed_at.py N run --config ...``: the store's append is wrapped so that,
once a batch would take the chain past sequence number N, the process sends
itself SIGKILL inside that batch's open transaction. The kill lands at an exact
place in the record (a timer polling from outside cannot: a fast replay writes
hundreds of events between two polls), and the batch it cuts is never
committed, as with a real ``kill -9`` mid-write.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterable
from typing import Any

from tradeleague.store.event_store import Store


def main() -> None:
    """Arm the kill at ``argv[1]`` events, then run the command line that follows."""
    target = int(sys.argv[1])
    append_in = Store.append_in

    def killing_append_in(self: Store, connection: Any, new_events: Iterable[Any]) -> Any:
        stored = append_in(self, connection, new_events)
        if stored and stored[-1].seq >= target:
            os.kill(os.getpid(), signal.SIGKILL)
        return stored

    Store.append_in = killing_append_in  # type: ignore[method-assign]
    from tradeleague.cli import app

    sys.argv = ["tradeleague", *sys.argv[2:]]
    app()


if __name__ == "__main__":
    main()
