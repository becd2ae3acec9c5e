"""The scenario service: the one implementation behind REST, MCP and the CLI."""

from tradeleague.api.service.core import ScenarioService, month_bounds, run_stream
from tradeleague.api.service.errors import ServiceError
from tradeleague.api.service.idempotency import fingerprint, idempotent
from tradeleague.api.service.keys import Account, Tier, hash_key
from tradeleague.api.service.provision import provision_from_market
from tradeleague.api.service.scenarios import Scenario
from tradeleague.formats.scenario import ServicePreset, SlippageTiers

__all__ = [
    "Account",
    "Scenario",
    "ScenarioService",
    "ServiceError",
    "ServicePreset",
    "SlippageTiers",
    "Tier",
    "fingerprint",
    "hash_key",
    "idempotent",
    "month_bounds",
    "provision_from_market",
    "run_stream",
]
