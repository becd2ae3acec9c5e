"""HTTP reads for the site's tests that wait as long as a loaded CI worker may need.

httpx's default timeout is 5 s; a cold board read on a busy 2-core machine can take
longer, and a read that must succeed should never fail on a short deadline.
"""

from __future__ import annotations

from typing import Any

import httpx

PATIENCE_S = 60.0
"""Seconds a read that must answer may take before the test fails."""


def get(url: str, **kwargs: Any) -> httpx.Response:
    """``httpx.get`` with a 60 s timeout unless the caller names one."""
    kwargs.setdefault("timeout", PATIENCE_S)
    return httpx.get(url, **kwargs)
