"""The site's one formatting layer: every value a page shows a person passes through here.

Pages read the same exact values as the JSON API (decimal strings of dollars,
percent strings, ISO times) and show them as people write them: dollars and
cents with separators (``$9,759.24``), percentages with two decimals and a
sign (``+2.90%``), times as ``2 Sep 2025 15:00 UTC`` inside a
``<time datetime>`` that keeps the ISO value. The JSON keeps the exact values;
only pages round, half up, to what a reader needs. A value that is not a
number or a time is shown as it came.
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from markupsafe import Markup

__all__ = ["change", "code", "drawdown", "money", "pct", "prose", "qty", "readable", "when"]

_CENT = Decimal("0.01")
_EXACT_USD = re.compile(r"-?\d+\.\d{6}")
"""An exact amount as the JSON writes money: whole micro-dollars, six decimals."""
_LONG = re.compile(r"-?\d+\.\d{5,}")
_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)?")


def _decimal(value: object) -> Decimal | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = Decimal(str(value).strip().replace(",", ""))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def money(value: object) -> str:
    """Return a dollar amount as a reader writes it: ``$9,759.24``, ``-$1,000.00``.

    ``value`` is an exact decimal (a JSON string); rounded half up to the cent, and
    an amount that rounds to no cent but is not zero reads ``under $0.01``.
    """
    number = _decimal(value)
    if number is None:
        return "" if value is None else str(value)
    cents = number.quantize(_CENT, rounding=ROUND_HALF_UP)
    if cents == 0 and number != 0:  # a model call's cost: say it is not nothing
        return "under $0.01" if number > 0 else "-under $0.01"
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents):,.2f}"


def pct(value: object, places: int = 2, *, sign: bool = True, fraction: bool = False) -> str:
    """Return a percent value (``2.9``, ``"-0.47"``) as ``+2.90%``, two decimals by default.

    ``fraction``: the value is a fraction of one (the scenario benchmark's ``0.029``).
    """
    number = _decimal(value)
    if number is None:
        return "" if value is None else str(value)
    if fraction:
        number *= 100
    shown = number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return f"{shown:+.{places}f}%" if sign else f"{shown:.{places}f}%"


def drawdown(value: object, *, fraction: bool = False, unit: bool = True) -> str:
    """Return a max drawdown as a fall, one sign on every page: ``-1.92%`` (W-SCO-2's sign).

    Formats store it either way (the weights league as a negative percent, the
    others as a positive size, the scenario benchmark as a fraction of one;
    the JSON keeps each as documented); a page always shows the fall negative,
    and no fall as ``0.00%``; ``unit=False`` leaves off the ``%`` (a terminal
    table's column says it).
    """
    number = _decimal(value)
    if number is None:
        return "" if value is None else str(value)
    shown = pct(0, sign=False) if number == 0 else pct(-abs(number), fraction=fraction)
    return shown if unit else shown.removesuffix("%")


def change(start: object, end: object) -> str:
    """Return the percent change from ``start`` to ``end`` (``+2.90%``), empty from zero."""
    a, b = _decimal(start), _decimal(end)
    if a is None or b is None or a == 0:
        return ""
    return pct((b - a) / a * 100)


def _moment(value: object) -> datetime | None:
    if isinstance(value, datetime):
        moment = value
    else:
        try:
            moment = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def when(value: object) -> Markup:
    """Return a time as ``<time datetime="ISO">2 Sep 2025 15:00 UTC</time>`` (C-11: in UTC).

    A date alone reads ``2 Sep 2025``; what is not a time is shown as it came.
    """
    text = "" if value is None else str(value)
    moment = _moment(value)
    if moment is None:
        return Markup(html.escape(text))  # noqa: S704 - escaped
    if len(text.strip()) == 10:  # a date, no time of day
        shown = f"{moment.day} {moment:%b %Y}"
    else:
        clock = "%H:%M:%S" if moment.second else "%H:%M"
        shown = f"{moment.day} {moment:%b %Y {clock}} UTC"
    return Markup(  # noqa: S704 - escaped
        f'<time datetime="{html.escape(text, quote=True)}">{shown}</time>'
    )


def qty(value: object) -> Markup:
    """Return a quantity (an exact decimal) with no trailing zeros: ``1.500000`` reads ``1.5``.

    Marked safe (it holds digits only), so `readable` does not read it as money.
    """
    number = _decimal(value)
    if number is None:
        return Markup(html.escape("" if value is None else str(value)))  # noqa: S704 - escaped
    text = format(number.normalize(), "f") if number != 0 else "0"
    return Markup(text)  # noqa: S704 - digits only


def readable(value: object) -> object:
    """Return what a page prints for ``value``: the site's template finalizer.

    An ISO time reads as `when` writes it; an exact money amount (six
    decimals, as the JSON serves dollars) as `money` does; any other long
    decimal or float to four places. Everything else, and what a filter
    already formatted (``Markup``), is left as it is.
    """
    if isinstance(value, Markup | bool | int) or value is None:
        return value
    if isinstance(value, float):
        return value if value.is_integer() else f"{value:.4f}"
    if isinstance(value, Decimal):
        value = str(value)
    if not isinstance(value, str):
        return value
    text = value.strip()
    if _ISO.fullmatch(text):
        return when(text)
    if _EXACT_USD.fullmatch(text):
        return money(text)
    if _LONG.fullmatch(text):
        return str(Decimal(text).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP))
    return value


_PROSE_USD = re.compile(r"(?<![\d.])(-?\d+\.\d{6}) USD\b")
_PROSE_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")


def prose(text: object) -> str:
    """Return the system's own sentences (a changelog's) with amounts and times as people write.

    ``10000.000000 USD`` reads ``$10,000.00``, an ISO time as `when` writes it
    (plain text). Never for model text: only sentences the system wrote.
    """
    out = _PROSE_USD.sub(lambda m: money(m.group(1)), "" if text is None else str(text))
    return _PROSE_ISO.sub(lambda m: str(when(m.group(0)).striptags()), out)


def code(value: object) -> Markup:
    """Return a reason code as words with the code itself in a tooltip.

    ``confidence_gate`` reads ``confidence gate``, titled ``code: confidence_gate``
    (the methodology page lists every code); nothing for no code.
    """
    if value is None or value == "":
        return Markup("")
    text = html.escape(str(value), quote=True)
    words = text.replace("_", " ")
    return Markup(f'<span class="code" title="code: {text}">{words}</span>')  # noqa: S704 - escaped
