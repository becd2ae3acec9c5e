"""Grammars that hold the house model to an answer's JSON shape.

A small instruct model asked for JSON rarely writes valid JSON of the right shape;
asked through a grammar, it can write nothing else. This module turns the JSON
Schema a ``ChatRequest`` carries into a llama.cpp grammar (GBNF), and builds the
answer schemas of the two formats that use the house model:

* the weights league (W-ASK-2, W-VAL-1..6): ``{"targets": {SYMBOL: percent, ...},
  "reason": "..."}``, symbols taken from the round's universe;
* the direction arena (D-ASK-3): ``{"direction": "up" | "down", "rationale": "..."}``.

The grammar only narrows what the model *can say*, and it is the same for every
house-model agent (C-2). The engine still validates every answer in its fixed
order and never repairs one (C-6): a grammar is no licence to skip a check, and
some rules (weights summing to at most 100%, W-VAL-5) are not expressible in it.

The converter handles the subset of JSON Schema these answers need, and unlike
llama.cpp's own converter it honours numeric bounds of the form used here
(``minimum: 0``, ``maximum: 10**k``, ``multipleOf: 10**-d``): a percent is written
as a plain decimal from 0 to 100 with at most two places. Anything outside the
subset raises :class:`UnsupportedSchema`. Grammars are built as a small tree of
nodes rendered two ways: to GBNF for llama.cpp and to a Python regular expression
(our grammars are never recursive), so tests can check the exact language a
grammar admits without loading a model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Final

__all__ = [
    "DIRECTION_RATIONALE_MAX_CHARS",
    "WEIGHTS_REASON_MAX_CHARS",
    "UnsupportedSchema",
    "direction_answer_schema",
    "schema_to_gbnf",
    "schema_to_regex",
    "weights_answer_schema",
]

WEIGHTS_REASON_MAX_CHARS = 240
"""Characters a weights-league reason may have before W-VAL-7 cuts it."""

DIRECTION_RATIONALE_MAX_CHARS = 280
"""The longest rationale the direction arena accepts (D-ASK-3)."""

_MAX_INT_DIGITS = 15
_MAX_FRACTION_DIGITS = 15


class UnsupportedSchema(ValueError):
    """A JSON Schema uses a feature this converter does not translate."""


def weights_answer_schema(
    symbols: Sequence[str], *, reason_max_chars: int = WEIGHTS_REASON_MAX_CHARS
) -> dict[str, Any]:
    """Build the weights-league answer schema for one round's universe (W-ASK-2).

    Parameters
    ----------
    symbols
        The league's symbols, in the order the keys may appear in ``targets``.
    reason_max_chars
        The longest reason the grammar lets the model write.

    Returns
    -------
    dict
        A JSON Schema: an object with exactly ``targets`` (each symbol an optional
        property holding a percent from 0 to 100 with at most two decimals) and a
        non-empty ``reason``.

    Raises
    ------
    ValueError
        If ``symbols`` is empty, holds an empty name or repeats one.
    """
    if not symbols:
        raise ValueError("a weights answer needs at least one symbol")
    if any(not s for s in symbols) or len(set(symbols)) != len(symbols):
        raise ValueError(f"symbols must be non-empty and distinct: {list(symbols)!r}")
    percent = {"type": "number", "minimum": 0, "maximum": 100, "multipleOf": 0.01}
    return {
        "type": "object",
        "properties": {
            "targets": {
                "type": "object",
                "properties": {symbol: dict(percent) for symbol in symbols},
                "additionalProperties": False,
            },
            "reason": {"type": "string", "minLength": 1, "maxLength": reason_max_chars},
        },
        "required": ["targets", "reason"],
        "additionalProperties": False,
    }


def direction_answer_schema(
    *, rationale_max_chars: int = DIRECTION_RATIONALE_MAX_CHARS
) -> dict[str, Any]:
    """Build the direction-arena answer schema (D-ASK-3).

    Returns
    -------
    dict
        A JSON Schema: an object with exactly ``direction`` (``"up"`` or
        ``"down"``) and a non-empty ``rationale`` of at most
        ``rationale_max_chars`` characters.
    """
    return {
        "type": "object",
        "properties": {
            "direction": {"type": "string", "enum": ["up", "down"]},
            "rationale": {"type": "string", "minLength": 1, "maxLength": rationale_max_chars},
        },
        "required": ["direction", "rationale"],
        "additionalProperties": False,
    }


def schema_to_gbnf(schema: Mapping[str, Any], *, banned: Sequence[str] = ()) -> str:
    """Translate ``schema`` into a llama.cpp grammar whose root is the answer.

    The root admits the JSON value alone: nothing before or after it (W-VAL-1).

    Parameters
    ----------
    schema
        The answer's JSON schema.
    banned
        Texts no free-text string of the answer may start with, in any letter
        case (a placeholder the prompt shows, which a small model copies).

    Raises
    ------
    UnsupportedSchema
        If the schema uses a feature outside the supported subset.
    """
    defs: _Defs = {}
    return _Gbnf(defs).render(_node(schema, defs, _bans(banned)))


def schema_to_regex(schema: Mapping[str, Any], *, banned: Sequence[str] = ()) -> str:
    """Translate ``schema`` into a Python regular expression for the same language.

    Use it with ``re.fullmatch``; it admits exactly what :func:`schema_to_gbnf`
    admits (with the same ``banned`` texts).

    Raises
    ------
    UnsupportedSchema
        If the schema uses a feature outside the supported subset.
    """
    defs: _Defs = {}
    return _regex(_node(schema, defs, _bans(banned)), defs)


# --- the grammar tree -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Lit:
    text: str


@dataclass(frozen=True, slots=True)
class _Chars:
    gbnf: str
    regex: str


@dataclass(frozen=True, slots=True)
class _Seq:
    items: tuple[_Node, ...]


@dataclass(frozen=True, slots=True)
class _Alt:
    items: tuple[_Node, ...]


@dataclass(frozen=True, slots=True)
class _Rep:
    item: _Node
    low: int
    high: int | None


@dataclass(frozen=True, slots=True)
class _Ref:
    """A reference to a definition in the flat table (keeps long chains shallow)."""

    name: str


@dataclass(frozen=True, slots=True)
class _Rule:
    """A node GBNF names as a rule of its own (for readability and sharing)."""

    hint: str
    body: _Node


_Node = _Lit | _Chars | _Seq | _Alt | _Rep | _Ref | _Rule
_Defs = dict[str, _Node]

_DIGIT = _Chars("[0-9]", "[0-9]")
_NONZERO = _Chars("[1-9]", "[1-9]")
_HEX = _Chars("[0-9a-fA-F]", "[0-9a-fA-F]")
_WS = _Rule("ws", _Rep(_Alt((_Lit(" "), _Seq((_Lit("\n"), _Rep(_Lit(" "), 0, 8))))), 0, 1))
_CHAR = _Rule(
    "char",
    _Alt(
        (
            _Chars(r'[^"\\\x7F\x00-\x1F]', r'[^"\\\x00-\x1f\x7f]'),
            _Seq(
                (
                    _Lit("\\"),
                    _Alt(
                        (
                            _Chars(r'["\\/bfnrt]', r'["\\/bfnrt]'),
                            _Seq((_Lit("u"), _Rep(_HEX, 4, 4))),
                        )
                    ),
                )
            ),
        )
    ),
)


def _opt(node: _Node) -> _Rep:
    return _Rep(node, 0, 1)


# --- schema -> tree -------------------------------------------------------------------

_IGNORED = frozenset({"title", "description", "$schema", "examples", "default"})


def _node(schema: Mapping[str, Any], defs: _Defs, bans: _Trie | None = None) -> _Node:
    if not isinstance(schema, Mapping):
        raise UnsupportedSchema(f"a schema must be an object, not {type(schema).__name__}")
    if "const" in schema:
        return _Alt((_Lit(_json(schema["const"])),))
    if "enum" in schema:
        values = schema["enum"]
        if not isinstance(values, list) or not values:
            raise UnsupportedSchema("enum must be a non-empty list")
        return _Alt(tuple(_Lit(_json(v)) for v in values))
    kind = schema.get("type")
    if kind == "object":
        return _object(schema, defs, bans)
    if kind == "string":
        return _string(schema, defs, bans)
    if kind in ("number", "integer"):
        return _number(schema, integer=kind == "integer")
    if kind == "boolean":
        _check_keys(schema, {"type"})
        return _Alt((_Lit("true"), _Lit("false")))
    if kind == "null":
        _check_keys(schema, {"type"})
        return _Lit("null")
    raise UnsupportedSchema(f"unsupported schema: {_json(dict(schema))[:120]}")


def _check_keys(schema: Mapping[str, Any], allowed: set[str]) -> None:
    extra = set(schema) - allowed - _IGNORED
    if extra:
        raise UnsupportedSchema(f"unsupported schema keywords: {sorted(extra)}")


def _object(schema: Mapping[str, Any], defs: _Defs, bans: _Trie | None) -> _Node:
    _check_keys(schema, {"type", "properties", "required", "additionalProperties"})
    if schema.get("additionalProperties", True) is not False:
        raise UnsupportedSchema("an object needs additionalProperties: false")
    properties: Mapping[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    if not required <= set(properties):
        raise UnsupportedSchema(f"required names unknown properties: {sorted(required)}")
    pairs = [
        (_Seq((_Lit(_json(name)), _Lit(":"), _WS, _node(sub, defs, bans))), name in required)
        for name, sub in properties.items()
    ]
    return _Seq((_Lit("{"), _WS, *_members(pairs, defs), _WS, _Lit("}")))


def _members(pairs: Sequence[tuple[_Node, bool]], defs: _Defs) -> tuple[_Node, ...]:
    """Members in declared order, the optional ones omissible, commas placed right.

    ``after[i]`` is the rest from member ``i`` once something was written (each
    member preceded by a comma); ``first[i]`` is the rest when nothing was yet.
    Both are linear in the number of members, so a universe of 500 symbols gives
    a grammar of 500 small rules, not a quadratic one.
    """
    after: list[tuple[_Node, ...]] = [()] * (len(pairs) + 1)
    first: list[tuple[_Node, ...]] = [()] * (len(pairs) + 1)
    for i in range(len(pairs) - 1, -1, -1):
        pair, is_required = pairs[i]
        comma_pair = _Seq((_Lit(","), _WS, pair))
        after[i] = (comma_pair if is_required else _opt(comma_pair), *after[i + 1])
        if len(after[i]) > 1:
            after[i] = (_define(defs, "rest", _Seq(after[i])),)
        with_pair = _Seq((pair, *after[i + 1]))
        if is_required:
            first[i] = (with_pair,)
        elif first[i + 1]:
            first[i] = (_define(defs, "members", _Alt((with_pair, _Seq(first[i + 1])))),)
        else:
            first[i] = (_opt(with_pair),)
    return first[0]


def _define(defs: _Defs, hint: str, body: _Node) -> _Ref:
    name = f"{hint}-{len(defs) + 1}"
    defs[name] = body
    return _Ref(name)


def _string(schema: Mapping[str, Any], defs: _Defs, bans: _Trie | None) -> _Node:
    _check_keys(schema, {"type", "minLength", "maxLength"})
    low = int(schema.get("minLength", 0))
    high = schema.get("maxLength")
    if high is not None and int(high) < low:
        raise UnsupportedSchema("maxLength is below minLength")
    top = None if high is None else int(high)
    if not bans:
        return _Seq((_Lit('"'), _Rep(_CHAR, low, top), _Lit('"')))
    body = _unbanned(bans, 0, low, top, defs)
    return _Seq((_Lit('"'), *(() if body is None else (body,)), _Lit('"')))


# --- banned prefixes ------------------------------------------------------------------

_BANNED: Final = "banned"
"""A trie leaf: the text up to here is banned, and so is everything that continues it."""

_Trie = dict[str, "_Trie | str"]


def _bans(banned: Sequence[str]) -> _Trie | None:
    """Return the trie of ``banned`` texts, lower-cased; ``None`` when there are none.

    Texts holding a quote, a backslash or a control character cannot be written
    unescaped and are left out.
    """
    root: _Trie = {}
    for text in banned:
        word = text.lower()
        if not word or any(c in '"\\' or ord(c) < 0x20 or ord(c) == 0x7F for c in word):
            continue
        node = root
        for char in word[:-1]:
            step = node.setdefault(char, {})
            if isinstance(step, str):
                break  # a shorter banned text already covers this one
            node = step
        else:
            node[word[-1]] = _BANNED
    return root or None


def _unbanned(trie: _Trie, done: int, low: int, high: int | None, defs: _Defs) -> _Node | None:
    """Return the rest of a string after ``done`` characters that followed ``trie``'s path.

    The rest either ends (once ``low`` characters are written), or takes a
    character the trie does not continue with (then anything, up to ``high``),
    or one it does (any case) and goes on down the trie; a banned text is never
    completed. ``None`` means the empty rest.
    """
    options: list[_Node] = []
    taken: list[str] = []
    if high is None or done < high:
        for char, child in sorted(trie.items()):
            taken.append(char)
            if isinstance(child, str):  # banned: never completed
                continue
            letter = _letter(char)
            rest = _unbanned(child, done + 1, low, high, defs)
            options.append(letter if rest is None else _Seq((letter, rest)))
        after = _Rep(_CHAR, max(0, low - done - 1), None if high is None else high - done - 1)
        options.append(_Seq((_other_than(taken), after)))
    if not options:
        return None
    body: _Node = _Alt(tuple(options))
    if done >= low:
        body = _opt(body)
    return _define(defs, "unbanned", body)


def _letter(char: str) -> _Chars:
    """Return a class of ``char`` in both letter cases."""
    cases = sorted({char, char.upper(), char.lower()})
    return _Chars(
        "[" + "".join(_gbnf_class_char(c) for c in cases) + "]",
        "[" + "".join(re.escape(c) for c in cases) + "]",
    )


def _other_than(chars: Sequence[str]) -> _Node:
    """Return a JSON string character other than ``chars`` in any letter case."""
    cases = sorted({c for char in chars for c in (char, char.upper(), char.lower())})
    plain = _Chars(
        r'[^"\\\x7F\x00-\x1F' + "".join(_gbnf_class_char(c) for c in cases) + "]",
        r'[^"\\\x00-\x1f\x7f' + "".join(re.escape(c) for c in cases) + "]",
    )
    escaped = _Seq(
        (
            _Lit("\\"),
            _Alt((_Chars(r'["\\/bfnrt]', r'["\\/bfnrt]'), _Seq((_Lit("u"), _Rep(_HEX, 4, 4))))),
        )
    )
    return _Alt((plain, escaped))


def _gbnf_class_char(char: str) -> str:
    """Return ``char`` as written inside a GBNF character class."""
    return "\\" + char if char in "[]^-\\" else char


def _number(schema: Mapping[str, Any], *, integer: bool) -> _Node:
    _check_keys(schema, {"type", "minimum", "maximum", "multipleOf"})
    minimum = schema.get("minimum")
    maximum = schema.get("maximum")
    if minimum is not None and minimum != 0:
        raise UnsupportedSchema(f"minimum must be 0 or absent, not {minimum!r}")
    places = 0 if integer else _places(schema.get("multipleOf"))
    fraction: tuple[_Node, ...] = ()
    if places:
        fraction = (_opt(_Seq((_Lit("."), _Rep(_DIGIT, 1, places)))),)
    sign: tuple[_Node, ...] = () if minimum == 0 else (_opt(_Lit("-")),)
    if maximum is None:
        whole = _Alt((_Lit("0"), _Seq((_NONZERO, _Rep(_DIGIT, 0, _MAX_INT_DIGITS - 1)))))
        return _Rule("number", _Seq((*sign, whole, *fraction)))
    if minimum != 0:
        raise UnsupportedSchema("a maximum needs minimum: 0")
    digits = _power_of_ten(maximum)
    below = (
        _Alt((_Lit("0"), _Seq((_NONZERO, _Rep(_DIGIT, 0, digits - 1))))) if digits else _Lit("0")
    )
    top: tuple[_Node, ...] = (_Lit("1" + "0" * digits),)
    if places:
        top = (*top, _opt(_Seq((_Lit("."), _Rep(_Lit("0"), 1, places)))))
    return _Rule("number", _Alt((_Seq(top), _Seq((below, *fraction)))))


def _places(multiple_of: object) -> int:
    """Decimal places allowed by ``multipleOf`` (which must be 1, 0.1, 0.01...)."""
    if multiple_of is None:
        return _MAX_FRACTION_DIGITS
    try:
        step = Decimal(str(multiple_of)).normalize()
    except InvalidOperation:
        raise UnsupportedSchema(f"multipleOf {multiple_of!r} is not a number") from None
    sign, digits, exponent = step.as_tuple()
    if sign or digits != (1,) or not isinstance(exponent, int) or exponent > 0:
        raise UnsupportedSchema(f"multipleOf must be 1, 0.1, 0.01..., not {multiple_of!r}")
    return -exponent


def _power_of_ten(maximum: object) -> int:
    text = str(maximum)
    if isinstance(maximum, bool) or not re.fullmatch(r"10*", text):
        raise UnsupportedSchema(f"maximum must be 1, 10, 100..., not {maximum!r}")
    return len(text) - 1


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


# --- rendering --------------------------------------------------------------------------


def _regex(node: _Node, defs: _Defs) -> str:
    if isinstance(node, _Ref):
        return _group(_regex(defs[node.name], defs))
    if isinstance(node, _Lit):
        return re.escape(node.text)
    if isinstance(node, _Chars):
        return node.regex
    if isinstance(node, _Seq):
        return "".join(
            _group(_regex(item, defs)) if isinstance(item, _Alt) else _regex(item, defs)
            for item in node.items
        )
    if isinstance(node, _Alt):
        return "|".join(_regex(item, defs) for item in node.items)
    if isinstance(node, _Rep):
        return _group(_regex(node.item, defs)) + _quantifier(node.low, node.high)
    return _group(_regex(node.body, defs))


def _group(text: str) -> str:
    return f"(?:{text})"


def _quantifier(low: int, high: int | None) -> str:
    if (low, high) == (0, 1):
        return "?"
    if (low, high) == (0, None):
        return "*"
    if (low, high) == (1, None):
        return "+"
    if low == high:
        return f"{{{low}}}"
    return f"{{{low},{'' if high is None else high}}}"


class _Gbnf:
    """Render a tree as GBNF.

    Each ``_Rule`` is named once (equal bodies share a name), and only the
    definitions the root reaches are written out.
    """

    def __init__(self, defs: _Defs) -> None:
        self._defs = defs
        self._wanted: list[str] = []
        self._rules: dict[str, str] = {}
        self._names: dict[_Node, str] = {}

    def render(self, root: _Node) -> str:
        body = self._expr(root)
        while self._wanted:
            name = self._wanted.pop(0)
            if name not in self._rules:
                self._rules[name] = ""
                self._rules[name] = self._expr(self._defs[name])
        lines = [f"root ::= {body}"]
        lines.extend(f"{name} ::= {text}" for name, text in self._rules.items())
        return "\n".join(lines) + "\n"

    def _expr(self, node: _Node) -> str:
        if isinstance(node, _Ref):
            self._wanted.append(node.name)
            return node.name
        if isinstance(node, _Lit):
            return _gbnf_literal(node.text)
        if isinstance(node, _Chars):
            return node.gbnf
        if isinstance(node, _Seq):
            return " ".join(
                f"({self._expr(i)})" if isinstance(i, _Alt) else self._expr(i) for i in node.items
            )
        if isinstance(node, _Alt):
            return " | ".join(self._expr(item) for item in node.items)
        if isinstance(node, _Rep):
            return f"({self._expr(node.item)}){_quantifier(node.low, node.high)}"
        return self._rule(node)

    def _rule(self, node: _Rule) -> str:
        name = self._names.get(node.body)
        if name is None:
            name = f"{node.hint}-{len(self._names) + 1}"
            self._names[node.body] = name
            self._rules[name] = ""
            self._rules[name] = self._expr(node.body)
        return name


def _gbnf_literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
