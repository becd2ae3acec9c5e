"""The scenario benchmark's share of ``tradeleague serve``: the service the site is built on.

``serve``'s quota and limit options become the service's preset; each left
out is the seed's number (S-SVC-*).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Final

from tradeleague.accounts import AccountHost
from tradeleague.api.serving import Serving
from tradeleague.errors import ConfigError
from tradeleague.formats.scenario import ServicePreset

__all__ = ["SERVE", "ScenarioServe", "serve_preset"]

_SEED: Final = ServicePreset()
_DAY: Final = timedelta(days=1)
_HOUR: Final = timedelta(hours=1)


def serve_preset(
    *,
    free_quota: int = _SEED.free_quota,
    pro_quota: int = _SEED.pro_quota,
    idle_days: float = _SEED.idle_limit / _DAY,
    idempotency_hours: float = _SEED.idempotency_ttl / _HOUR,
    checkout_url: str = _SEED.checkout_url,
    max_queued: int = _SEED.max_queued,
) -> ServicePreset:
    """Return the service preset that ``tradeleague serve``'s options describe.

    Raises
    ------
    ConfigError
        If a number is out of range (e.g. an idle limit under one hour).
    """
    try:
        return ServicePreset(
            free_quota=free_quota,
            pro_quota=pro_quota,
            idle_limit=idle_days * _DAY,
            idempotency_ttl=idempotency_hours * _HOUR,
            checkout_url=checkout_url,
            max_queued=max_queued,
            slippage=_SEED.slippage,
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


_NUMBERS: Final = (
    "free_quota",
    "pro_quota",
    "idle_days",
    "idempotency_hours",
    "checkout_url",
    "max_queued",
)


class ScenarioServe:
    """The scenario benchmark's ``serve`` part (`tradeleague.api.serving.ServePart`)."""

    def service(self, serving: Serving) -> AccountHost:
        """Return the scenario service on the store, by ``serve``'s quota and limit options."""
        from tradeleague.league.scenario import ScenarioService

        given = {n: serving.option(n) for n in _NUMBERS if serving.option(n) is not None}
        preset = serve_preset(**given)  # type: ignore[arg-type]
        return ScenarioService(serving.store, serving.clock, preset=preset)

    def prepare(self, serving: Serving) -> None:
        """Add nothing: the service is the benchmark's whole share."""


SERVE: Final = ScenarioServe()
