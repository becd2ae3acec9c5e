"""The scenario benchmark's preset: every number of the seed, as a default (SPEC S-*).

A league operator may run the service with other quotas, another idle limit,
idempotency window, checkout page, order queue or slippage tiers; the
defaults reproduce the published design exactly:

- S-SVC-1: an ``idempotency_key`` is remembered for 24 hours;
- S-SVC-3: a run with no activity for 5 days is abandoned;
- S-SVC-5: free accounts get 25 runs per UTC month (then 402 with a
  ``checkout_url``), pro accounts 200 (then 429 with ``resets_at``);
- S-FIL-2: 3 bps of slippage for SPY/QQQ/IWM/DIA, 20 bps for high-variance
  names, 8 bps otherwise.

Slippage tiers are resolved into each scenario version at provisioning
(S-SCN-2), so changing the preset never reaches a version already stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Final

from tradeleague.sim import scenario_price_slippage

__all__ = ["HIGH_VARIANCE", "MIN_IDLE_LIMIT", "ServicePreset", "SlippageTiers"]

HIGH_VARIANCE: Final = frozenset(
    {"AMD", "COIN", "CRCL", "HOOD", "MSTR", "NVDA", "PLTR", "SMCI", "TSLA"}
)
"""The catalogue's high-variance names, slipped 20 bps by default (S-FIL-2).

The seed does not list them; these are the catalogue's names whose hourly
returns are the most volatile. A scenario can override any symbol.
"""

MIN_IDLE_LIMIT: Final = timedelta(hours=1)
"""The shortest idle limit a preset accepts.

Market reads record activity at most once a minute, so a shorter limit would
let a run that is being read be abandoned.
"""

_BPS: Final = 10_000


@dataclass(frozen=True, slots=True, kw_only=True)
class SlippageTiers:
    """Default basis points of price slippage by kind of symbol (S-FIL-2).

    Attributes
    ----------
    index_bps
        SPY, QQQ, IWM and DIA (seed: 3).
    high_variance_bps
        The names in ``high_variance`` (seed: 20).
    default_bps
        Every other symbol (seed: 8).
    high_variance
        Which symbols count as high-variance (`HIGH_VARIANCE`).
    """

    index_bps: int = 3
    high_variance_bps: int = 20
    default_bps: int = 8
    high_variance: frozenset[str] = HIGH_VARIANCE

    def __post_init__(self) -> None:
        object.__setattr__(self, "high_variance", frozenset(self.high_variance))
        for bps in (self.index_bps, self.high_variance_bps, self.default_bps):
            if not 0 <= bps < _BPS:
                raise ValueError(f"slippage of {bps} bps: use 0 to {_BPS - 1} bps")

    def table(
        self, symbols: Iterable[str], overrides: Mapping[str, int] | None = None
    ) -> dict[str, int]:
        """Return basis points for every one of ``symbols``; ``overrides`` win (S-FIL-2).

        Raises
        ------
        ValueError
            If an override names a symbol outside ``symbols``.
        """
        names = tuple(symbols)
        extra = set(overrides or {}) - set(names)
        if extra:
            raise ValueError(f"slippage given for symbols outside the universe: {sorted(extra)}")
        slip = scenario_price_slippage(
            self.high_variance,
            index_bps=self.index_bps,
            high_variance_bps=self.high_variance_bps,
            default_bps=self.default_bps,
            overrides=overrides,
        )
        return {s: slip.bps_for(s) for s in sorted(names)}


@dataclass(frozen=True, slots=True, kw_only=True)
class ServicePreset:
    """The scenario service's rules; the defaults are the seed's.

    Keyword-only and frozen: an unknown field is a ``TypeError``, not a
    silently ignored setting.

    Attributes
    ----------
    free_quota
        Runs a free account may create per UTC month (S-SVC-5: 25).
    pro_quota
        Runs a pro account may create per UTC month (S-SVC-5: 200).
    checkout_url
        Where a free account over quota is sent to upgrade, returned with the
        402 (S-SVC-5).
    idle_limit
        A run with no activity for this long is abandoned (S-SVC-3: 5 days);
        at least `MIN_IDLE_LIMIT`.
    idempotency_ttl
        How long an ``idempotency_key`` replays its first response
        (S-SVC-1: 24 hours).
    max_queued
        The most orders that may wait for one step (S-API-2; not in the seed:
        200, a guard against unbounded queues).
    slippage
        The default slippage tiers of new scenario versions (S-FIL-2).
    """

    free_quota: int = 25
    pro_quota: int = 200
    checkout_url: str = "https://tradeleague.invalid/account/upgrade"
    idle_limit: timedelta = timedelta(days=5)
    idempotency_ttl: timedelta = timedelta(hours=24)
    max_queued: int = 200
    slippage: SlippageTiers = field(default_factory=SlippageTiers)

    def __post_init__(self) -> None:
        if self.free_quota < 0 or self.pro_quota < 0:
            raise ValueError("monthly run quotas cannot be negative")
        if not self.checkout_url.startswith(("https://", "http://")):
            raise ValueError(f"checkout_url {self.checkout_url!r}: use an http(s) URL")
        if self.idle_limit < MIN_IDLE_LIMIT:
            raise ValueError(f"idle_limit must be at least {MIN_IDLE_LIMIT}")
        if self.idempotency_ttl <= timedelta(0):
            raise ValueError("idempotency_ttl must be positive")
        if self.max_queued < 1:
            raise ValueError("max_queued must be 1 or more")

    def monthly_runs(self, tier: str) -> int:
        """Return the runs an account of ``tier`` (``free`` or ``pro``) may create a month.

        Raises
        ------
        ValueError
            For any other tier.
        """
        if tier == "free":
            return self.free_quota
        if tier == "pro":
            return self.pro_quota
        raise ValueError(f"tier {tier!r}: free or pro")
