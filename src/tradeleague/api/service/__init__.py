"""The scenario service: the one implementation behind REST, MCP and the CLI."""

from tradeleague.api.service.core import (
    CHECKOUT_URL,
    IDLE_LIMIT,
    ScenarioService,
    month_bounds,
    run_stream,
)
from tradeleague.api.service.errors import ServiceError
from tradeleague.api.service.idempotency import KEY_TTL, fingerprint, idempotent
from tradeleague.api.service.keys import Account, Tier, hash_key
from tradeleague.api.service.provision import provision_from_market
from tradeleague.api.service.scenarios import Scenario

__all__ = [
    "CHECKOUT_URL",
    "IDLE_LIMIT",
    "KEY_TTL",
    "Account",
    "Scenario",
    "ScenarioService",
    "ServiceError",
    "Tier",
    "fingerprint",
    "hash_key",
    "idempotent",
    "month_bounds",
    "provision_from_market",
    "run_stream",
]
