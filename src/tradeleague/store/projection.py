"""Projectors: pure folds from events to derived state, and their registry.

A projector turns the event log into read models (portfolios, boards,
charts) without I/O (DESIGN principles 1 and 4). Its state is a canonical JSON
value (`tradeleague.events.canonical_json`), kept per key in the
``projections`` table so that ``verify`` can rebuild it from events alone and
compare. The built-in projectors register the same way as third-party ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from tradeleague.errors import ConfigError, StoreError
from tradeleague.events import Event

__all__ = [
    "ProjectionError",
    "Projector",
    "get_projector",
    "register_projector",
    "registered_projectors",
    "unregister_projector",
]

_MAX_NAME = 100


class ProjectionError(StoreError):
    """A projector could not apply an event (the log holds an event it cannot fold)."""


@runtime_checkable
class Projector(Protocol):
    """A pure fold from events to per-key state (SPEC C-4: state derives from events).

    Every method must be a function of its arguments only: no clock, no
    database, no global state, so that rebuilding from the log always gives the
    stored state again.
    """

    def key(self, event: Event) -> str | None:
        """Return the key of the state ``event`` changes, or ``None`` to ignore it."""
        ...

    def initial(self) -> object:
        """Return the state of a key no event has touched yet (canonical JSON value)."""
        ...

    def apply(self, state: object, event: Event) -> object:
        """Return the state after ``event``; raise ``ValueError`` if it cannot apply."""
        ...


_REGISTRY: dict[str, Projector] = {}


def register_projector(name: str, projector: Projector, *, replace: bool = False) -> None:
    """Register ``projector`` under ``name`` so that the store keeps and verifies it.

    Raises
    ------
    ConfigError
        If ``name`` is malformed or already taken (and ``replace`` is false), or
        ``projector`` lacks ``key``, ``initial`` or ``apply``.
    """
    if not name or len(name) > _MAX_NAME or not name.isprintable():
        raise ConfigError(f"projector name {name!r}: 1 to {_MAX_NAME} printable characters")
    if not isinstance(projector, Projector):
        raise ConfigError(f"projector {name!r} needs key(), initial() and apply() methods")
    if name in _REGISTRY and not replace and _REGISTRY[name] is not projector:
        raise ConfigError(f"a projector named {name!r} is already registered")
    _REGISTRY[name] = projector


def unregister_projector(name: str) -> None:
    """Remove the projector named ``name`` (its stored state stays in the database)."""
    _REGISTRY.pop(name, None)


def get_projector(name: str) -> Projector:
    """Return the projector named ``name``.

    Raises
    ------
    ConfigError
        If none is registered under that name; the message lists the valid ones.
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise ConfigError(f"no projector named {name!r}; registered: {known}") from None


def registered_projectors() -> Mapping[str, Projector]:
    """Return a snapshot of the registry, by name."""
    return dict(_REGISTRY)
