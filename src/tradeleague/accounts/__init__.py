"""Accounts, API keys, tiers and idempotent requests: what every service's clients share.

Below the interfaces and beside the formats' shells: it uses the store, the
clock and the errors, and knows no format. The scenario benchmark's service
(`tradeleague.league.scenario`) authenticates its agents here; the owners'
sign-in (`tradeleague.api.account`) issues their keys here.

- `keys`: `Account`, `Tier`, key generation and hashing (S-SVC-4);
- `credentials`: a key as a request presented it, and the 401 that says how to fix it;
- `ledger`: the store, clock and transactions a service's parts share;
- `accounts`: `ApiAccounts`, creating keys and authenticating requests;
- `idempotency`: Stripe's idempotency keys (S-SVC-1);
- `times`: the quota's month (S-SVC-5) and times as the services show them;
- `tables`: the accounts' tables; `host`: what an owners' side needs (`AccountHost`).
"""

from tradeleague.accounts.accounts import KEY_CACHE_SECONDS, ApiAccounts
from tradeleague.accounts.credentials import Credential, credential_from_headers
from tradeleague.accounts.host import AccountHost
from tradeleague.accounts.idempotency import IN_FLIGHT_LEASE, fingerprint, idempotent
from tradeleague.accounts.keys import KEY_PREFIX, Account, Tier, hash_key, new_key
from tradeleague.accounts.ledger import CACHE_LIMIT, Ledger
from tradeleague.accounts.times import iso, month_bounds

__all__ = [
    "CACHE_LIMIT",
    "IN_FLIGHT_LEASE",
    "KEY_CACHE_SECONDS",
    "KEY_PREFIX",
    "Account",
    "AccountHost",
    "ApiAccounts",
    "Credential",
    "Ledger",
    "Tier",
    "credential_from_headers",
    "fingerprint",
    "hash_key",
    "idempotent",
    "iso",
    "month_bounds",
    "new_key",
]
