"""The error body every route of the REST API documents (what ``/docs`` shows).

Each format's request and response bodies are its own (the scenario
benchmark's: `tradeleague.league.scenario.models`; each league's read API:
``tradeleague.league.<format>.models``), built on `tradeleague.league.bodies`.
Every error response,
whatever its status, has one shape, `ErrorOut`, and its ``code`` is one of
`ERROR_CODES`, listed in the schema itself so a program can branch on it.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ERROR_CODES",
    "ErrorBody",
    "ErrorOut",
    "declare_error_codes",
    "error_responses",
]

ERROR_CODES: Final[dict[str, tuple[int, str]]] = {
    "invalid_request": (422, "The body, path or query failed validation; the message says where."),
    "invalid_body": (400, "The body could not be read (a broken encoding)."),
    "unsupported_media_type": (415, "Send JSON with Content-Type: application/json."),
    "payload_too_large": (413, "The body is over the size limit."),
    "not_found": (404, "No such path."),
    "method_not_allowed": (405, "The path exists; the Allow header lists its methods."),
    "missing_api_key": (401, "No key was sent: send Authorization: Bearer <key> or X-API-Key."),
    "invalid_api_key": (401, "The key is malformed, unknown or revoked (see reason and seen)."),
    "payment_required": (402, "A free account's monthly runs are spent (see checkout_url)."),
    "quota_exceeded": (429, "A pro account's monthly runs are spent (see resets_at)."),
    "rate_limited": (429, "Too many writes without an account from this address (Retry-After)."),
    "scenario_not_found": (404, "No scenario has that id or name."),
    "run_not_found": (404, "No run of yours (or no published run) has that id."),
    "order_not_found": (404, "No queued order has that place."),
    "run_not_complete": (409, "The run is still going: step until done."),
    "run_complete": (409, "The run is over: fetch its results."),
    "run_abandoned": (409, "The run was idle past the limit and was abandoned."),
    "idempotency_in_flight": (409, "A request with this idempotency key is still running."),
    "idempotency_key_reused": (422, "This idempotency key was used with other parameters."),
    "idempotency_key_conflict": (409, "The Idempotency-Key header and the body's key differ."),
    "invalid_idempotency_key": (422, "The idempotency key is empty, too long or malformed."),
    "invalid_account": (422, "An account name must be 1-100 printable characters."),
    "invalid_scenario": (422, "A scenario to provision is malformed (the message says how)."),
    "invalid_order": (422, "An order cannot fill (see order and reason) or the queue is full."),
    "not_signed_in": (401, "An owner's route: sign in at /account first."),
    "cross_site": (403, "A signed-in write from another site was refused."),
    "csrf_failed": (403, "A signed-in write without the page's CSRF token was refused."),
    "key_not_found": (404, "No API key of yours has that id."),
    "key_shown_once": (409, "This Idempotency-Key already issued a key (see key: its id)."),
    "signed_in_once": (409, "This Idempotency-Key already signed in; sign in again."),
    "ambiguous_name": (409, "The name fits more than one; give an id (see candidates)."),
    "store_unavailable": (503, "The database is unavailable; retry later."),
    "internal_error": (500, "Something went wrong on the server."),
    "invalid_address": (422, "Sign-in: that is not an Ethereum address."),
    "invalid_message": (401, "Sign-in: the message is not an EIP-4361 message, or too long."),
    "unknown_nonce": (401, "Sign-in: the nonce is unknown, used or expired; ask a new one."),
    "wrong_domain": (401, "Sign-in: the message names another domain."),
    "wrong_chain": (401, "Sign-in: the message names another chain id."),
    "wrong_uri": (401, "Sign-in: the message's URI is not on the configured domain."),
    "message_expired": (401, "Sign-in: the message has expired; sign a new one."),
    "message_not_yet_valid": (401, "Sign-in: the message is not valid yet."),
    "invalid_signature": (401, "Sign-in: the signature does not match the message's address."),
    "http_error": (400, "Another HTTP error."),
}
"""Every error code the API answers with: its usual HTTP status and meaning.

A format adds the codes only its routes answer with `declare_error_codes`, when
its models are imported; the error schema lists them all when it is generated.
"""


def declare_error_codes(codes: dict[str, tuple[int, str]]) -> None:
    """Add a format's own error codes (code: status, meaning) to `ERROR_CODES`.

    Raises
    ------
    ValueError
        A code already declared with another status or meaning.
    """
    for code, said in codes.items():
        if ERROR_CODES.setdefault(code, said) != said:
            raise ValueError(f"error code {code!r} is already declared as {ERROR_CODES[code]}")


def _codes_text() -> str:
    return "; ".join(f"`{code}` ({status}): {says}" for code, (status, says) in ERROR_CODES.items())


def _codes_schema(schema: dict[str, Any]) -> None:
    """Write every declared code into the error schema, as it is generated."""
    schema["x-error-codes"] = {code: status for code, (status, _) in ERROR_CODES.items()}
    schema["properties"]["code"]["description"] = (
        "A stable, machine-readable code. Every code: " + _codes_text()
    )
    schema["examples"] = [
        {
            "code": "payment_required",
            "message": "Free accounts get 25 runs per UTC month; upgrade to Pro for more.",
            "checkout_url": "https://example.org/pro",
        }
    ]


class ErrorBody(BaseModel):
    """A stable code and one sentence that says how to fix it; some errors add fields."""

    model_config = ConfigDict(extra="allow", json_schema_extra=_codes_schema)

    code: str = Field(description="A stable, machine-readable code; x-error-codes lists them all.")
    message: str = Field(description="One sentence for people: what failed and how to fix it.")
    checkout_url: str | None = Field(
        default=None, description="payment_required: where to upgrade."
    )
    resets_at: str | None = Field(
        default=None, description="quota_exceeded: when the quota resets (ISO 8601, UTC)."
    )
    reason: str | None = Field(
        default=None,
        description="invalid_api_key / missing_api_key: missing, malformed, unknown or revoked; "
        "invalid_order: the reason code the step would have rejected the order with.",
    )
    seen: str | None = Field(
        default=None,
        description="401s: where a key was read (X-API-Key, Authorization: Bearer), or null.",
    )
    order: int | None = Field(default=None, description="invalid_order: the order's place, from 0.")
    candidates: list[dict[str, str]] | None = Field(
        default=None,
        description="ambiguous_name: each thing the name fits, with its id; ask again by id.",
    )


class ErrorOut(BaseModel):
    """Every error response: ``{"error": {"code", "message", ...}, "disclaimer"}``."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "error": {
                        "code": "run_not_found",
                        "message": "There is no run 'X' for this API key.",
                    },
                    "disclaimer": "Paper trading only; not investment advice.",
                }
            ]
        }
    )

    error: ErrorBody
    disclaimer: str = Field(default="", description="The site's standing disclaimer.")


def error_responses(*codes: int) -> dict[int | str, dict[str, object]]:
    """Return a route's ``responses`` documenting ``codes`` with the `ErrorOut` body."""
    return {
        code: {
            "model": ErrorOut,
            "description": ", ".join(c for c, (s, _) in ERROR_CODES.items() if s == code)
            or "An error.",
        }
        for code in codes
    }
