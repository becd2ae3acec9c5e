"""One event vocabulary: every kind named once, every payload typed and versioned (C-4).

Each built-in kind's name string is written exactly once in ``src/``; every
writer and reader uses its constant. The registry describes every kind's
payload, ``check_payload`` finds what is wrong with one, and the upcaster reads
the older ``ModelCalled`` shapes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tradeleague.events import (
    MODEL_CALLED_VERSION,
    EventKind,
    check_payload,
    describe,
    direction,
    model_called_payload,
    registered_kinds,
    scenario,
    upcast_model_called,
    weights,
)
from tradeleague.events.common import model_called_record

SRC = Path(__file__).resolve().parents[2] / "src" / "tradeleague"

RECORD = {"v": 2, "key": {"season": "s1", "round": "r1", "agent": "a1", "turn": 0}, "text": "x"}


def _all_kinds() -> set[str]:
    names = {k.value for k in EventKind} | set(registered_kinds())
    for module in (weights, direction, scenario):
        names |= {
            v
            for n, v in vars(module).items()
            if n.isupper() and isinstance(v, str) and re.fullmatch(r"[A-Z][A-Za-z0-9]+", v)
        }
    return names


def test_each_kind_name_is_written_once_in_src() -> None:
    """C-4: one definition per kind; a quoted kind name anywhere else is a second one."""
    texts = {p: p.read_text(encoding="utf-8") for p in SRC.rglob("*.py")}
    kinds = _all_kinds()
    assert {"ModelCalled", "ScenarioRunAbandoned", "PositionLiquidated", "TradePlaced"} <= kinds
    for kind in sorted(kinds):
        quoted = re.compile(rf"[\"']{kind}[\"']")
        where = [str(p.relative_to(SRC)) for p, t in texts.items() for _ in quoted.finditer(t)]
        assert len(where) == 1, f"{kind} is written in {where}"
        assert where[0].startswith("events/"), f"{kind} is defined outside the events package"


def test_every_written_kind_has_a_schema() -> None:
    """C-4: the registry declares every kind a format writes (TurnAsked is reserved)."""
    missing = _all_kinds() - set(registered_kinds()) - {"TurnAsked"}
    assert not missing


def test_describe_lists_fields_types_and_versions() -> None:
    """The registry is readable: name, format, version, fields with types and requiredness."""
    (model,) = describe(EventKind.MODEL_CALLED)
    assert model["version"] == MODEL_CALLED_VERSION
    assert model["format"] == "common"
    fields = {f["name"]: f for f in model["fields"]}  # type: ignore[attr-defined]
    assert fields["record"]["types"] == ["object"]
    assert fields["round"]["types"] == ["string", "null"]
    assert fields["season"]["required"] is False
    formats = {d["format"] for d in describe(EventKind.DECISION_MADE)}
    assert formats == {"weights", "direction"}
    assert len(describe()) > len(registered_kinds())


def test_check_payload_finds_missing_wrong_and_undeclared_fields() -> None:
    """A payload is a closed, typed record; a third party's own kind is always allowed."""
    ok = {"run": "r1"}
    assert check_payload(scenario.SCENARIO_RUN_PUBLISHED, ok, "scenario") == []
    assert check_payload(scenario.SCENARIO_RUN_PUBLISHED, {}, "scenario") == [
        "ScenarioRunPublished: missing field 'run'"
    ]
    assert check_payload(scenario.SCENARIO_RUN_PUBLISHED, {"run": 3}, "scenario") == [
        "ScenarioRunPublished.run: integer, expected string"
    ]
    assert check_payload(scenario.SCENARIO_RUN_PUBLISHED, {"run": "r", "x": 1}, "scenario") == [
        "ScenarioRunPublished: undeclared field 'x'"
    ]
    assert check_payload(scenario.SCENARIO_RUN_PUBLISHED, ok, "weights") == [
        "ScenarioRunPublished: no payload schema for the weights format"
    ]
    assert check_payload("SomebodyElsesFact", {"anything": [1, {"a": None}]}) == []
    # without a format, any format's schema may accept it
    assert check_payload(EventKind.ROUND_FINISHED, {"round": "h", "ranked": []}) == []
    assert check_payload(EventKind.ROUND_FINISHED, {"round": "h"}) != []


def test_model_called_has_one_shape() -> None:
    """C-5: every writer's payload is {v, agent, round, record}."""
    payload = model_called_payload(agent="a1", round="r1", record=RECORD)
    assert payload == {"v": 2, "agent": "a1", "round": "r1", "record": RECORD}
    assert check_payload(EventKind.MODEL_CALLED, payload, "weights") == []
    assert check_payload(EventKind.MODEL_CALLED, payload | {"season": "S1"}, "direction") == []
    assert upcast_model_called(payload) == payload


@pytest.mark.parametrize(
    ("old", "agent", "round_"),
    [
        ({**RECORD, "agent": "a1"}, "a1", "r1"),  # the weights league's flat record + agent
        (dict(RECORD), "a1", "r1"),  # the gateway recorder's bare record
        ({"season": "S1", "round": "S1-R1", "agent": "m", "record": RECORD}, "m", "S1-R1"),
    ],
)
def test_old_model_called_shapes_upcast(old: dict[str, object], agent: str, round_: str) -> None:
    """The upcaster reads the shapes written before the one shape, so old stores still read."""
    new = upcast_model_called(old)
    assert new["v"] == MODEL_CALLED_VERSION
    assert (new["agent"], new["round"]) == (agent, round_)
    assert model_called_record(old) == RECORD
    assert check_payload(EventKind.MODEL_CALLED, old) == []


def test_a_payload_without_a_record_is_refused() -> None:
    """A ModelCalled payload holding no call record is a problem, never a crash."""
    with pytest.raises(ValueError, match="no call record"):
        upcast_model_called({"agent": "a1"})
    assert check_payload(EventKind.MODEL_CALLED, {"agent": "a1"}) == [
        "ModelCalled: no call record: neither 'record' nor a flat record's 'key'"
    ]
