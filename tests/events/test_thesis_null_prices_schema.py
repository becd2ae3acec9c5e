"""The thesis ``NullPricesRead`` payload: declared once, typed, versioned and closed (C-4, ST-2).

Each thesis cycle records the prices the board's no-skill null reads there
(the coin's held symbol at every monitor check since the cycle before and at
the cycle, as micro-dollar integer strings, and whether the cycle's pick may
be opened). The registry describes the payload and ``check_payload`` finds
what is wrong with one.
"""

from __future__ import annotations

from tradeleague.events import check_payload, describe
from tradeleague.events import thesis as tev

HELD: dict[str, object] = {
    "round": "2025-03-04T16:00:00.000000Z",
    "index": 1,
    "held": "ETH",
    "checks": {"2025-03-03T16:15:00.000000Z": "2301250000", "2025-03-04T16:00:00.000000Z": None},
    "price": "2298000000",
    "pick": "SOL",
    "eligible": True,
}
NOTHING: dict[str, object] = {
    "round": "2025-03-03T16:00:00.000000Z",
    "index": 0,
    "held": None,
    "checks": {},
    "price": None,
    "pick": None,
    "eligible": False,
}


def test_null_prices_schema_is_described_c_4() -> None:
    """C-4: one thesis schema, version 1, every field typed and required."""
    (schema,) = describe(tev.NULL_PRICES_READ)
    assert (schema["kind"], schema["format"], schema["version"]) == ("NullPricesRead", "thesis", 1)
    fields = {f["name"]: f for f in schema["fields"]}  # type: ignore[attr-defined]
    assert set(fields) == {"round", "index", "held", "checks", "price", "pick", "eligible"}
    assert all(f["required"] for f in fields.values())
    assert fields["checks"]["types"] == ["object"]
    assert fields["price"]["types"] == ["string", "null"]
    assert fields["eligible"]["types"] == ["boolean"]


def test_null_prices_payloads_validate_st_2() -> None:
    """ST-2: a cycle holding a symbol and one holding nothing are both valid payloads."""
    assert check_payload(tev.NULL_PRICES_READ, HELD, tev.FORMAT) == []
    assert check_payload(tev.NULL_PRICES_READ, NOTHING, tev.FORMAT) == []


def test_null_prices_payload_is_a_closed_typed_record_c_4() -> None:
    """C-4: a missing, mistyped or undeclared field is a problem (a float price is no micro)."""
    missing = {k: v for k, v in HELD.items() if k != "eligible"}
    assert check_payload(tev.NULL_PRICES_READ, missing, tev.FORMAT) == [
        "NullPricesRead: missing field 'eligible'"
    ]
    assert check_payload(tev.NULL_PRICES_READ, HELD | {"price": 2298}, tev.FORMAT) == [
        "NullPricesRead.price: integer, expected string or null"
    ]
    assert check_payload(tev.NULL_PRICES_READ, HELD | {"checks": []}, tev.FORMAT) == [
        "NullPricesRead.checks: array, expected object"
    ]
    assert check_payload(tev.NULL_PRICES_READ, HELD | {"spy": "1"}, tev.FORMAT) == [
        "NullPricesRead: undeclared field 'spy'"
    ]
