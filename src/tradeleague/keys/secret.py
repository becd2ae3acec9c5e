"""A plaintext secret that will not print itself (C-9).

An owner's model key is "never logged, never returned by any endpoint, and never
shown in full again after it is entered" (C-9). Holding it as a :class:`Secret`
instead of a bare ``str`` makes the safe thing the default: ``repr``, ``str``,
f-strings, logging arguments and tracebacks with locals all show the mask, and
the plaintext comes out only through an explicit :meth:`Secret.reveal`.
"""

from __future__ import annotations

import hmac
from typing import NoReturn, final

__all__ = ["MASK", "MIN_CHARS_TO_SHOW_LAST4", "Secret", "last4_of", "mask"]

MASK = "****"
"""What stands in for the hidden part of a key."""

MIN_CHARS_TO_SHOW_LAST4 = 12
"""A key shorter than this shows no characters at all, so a mask never reveals a third or more."""


def last4_of(plaintext: str) -> str:
    """Return the last four characters that C-9 lets us show, or ``""`` for a short key."""
    return plaintext[-4:] if len(plaintext) >= MIN_CHARS_TO_SHOW_LAST4 else ""


def mask(last4: str) -> str:
    """Return the display form of a key whose last four characters are ``last4``."""
    return f"{MASK}{last4}"


@final
class Secret:
    """A plaintext key whose every printed form is masked (C-9).

    Parameters
    ----------
    value
        The plaintext.

    Notes
    -----
    Equality is constant-time; a ``Secret`` is unhashable and refuses to be
    pickled, so it cannot slip into a cache key or a serialised payload.
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"a Secret holds a str, not {type(value).__name__}")
        self._value = value

    def reveal(self) -> str:
        """Return the plaintext; call it only where the key is used (a provider call)."""
        return self._value

    @property
    def last4(self) -> str:
        """The characters the mask shows (empty for a short key)."""
        return last4_of(self._value)

    def masked(self) -> str:
        """Return the key as it may be shown: ``****`` and at most the last 4 characters."""
        return mask(self.last4)

    def __repr__(self) -> str:
        return f"Secret({self.masked()!r})"

    def __str__(self) -> str:
        return self.masked()

    def __format__(self, format_spec: str) -> str:
        return format(self.masked(), format_spec)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        return hmac.compare_digest(self._value.encode(), other._value.encode())

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> NoReturn:
        raise TypeError("a Secret is not pickled: seal it with a KeyVault instead")
