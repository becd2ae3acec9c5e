"""The host's logs: stderr only, one JSON object a line when stderr is not a terminal."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

__all__ = ["setup_logs"]

_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


class _JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        body: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                body[key] = value if isinstance(value, int | float | bool | None) else str(value)
        if record.exc_info:
            body["error"] = self.formatException(record.exc_info).splitlines()[-1]
        return json.dumps(body, sort_keys=True)


class _Plain(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        extra = " ".join(
            f"{k}={v}"
            for k, v in record.__dict__.items()
            if k not in _STANDARD and not k.startswith("_")
        )
        return f"{record.levelname.lower()}: {record.getMessage()}" + (
            f" ({extra})" if extra else ""
        )


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time of each record."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def setup_logs(level: int = logging.INFO) -> None:
    """Send the ``tradeleague`` loggers to stderr, JSON lines unless stderr is a terminal."""
    handler = _Stderr(sys.stderr)
    handler.setFormatter(_Plain() if sys.stderr.isatty() else _JsonLines())
    root = logging.getLogger("tradeleague")
    root.handlers[:] = [handler]
    root.setLevel(level)
