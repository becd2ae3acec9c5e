"""The installed formats, found through the ``tradeleague.formats`` entry points.

The built-in formats are registered in this project's ``pyproject.toml`` exactly
as another package registers its own (as ``simonw/llm`` finds model plug-ins):

    [project.entry-points."tradeleague.formats"]
    weights = "tradeleague.league.weights.plugin:FORMAT"

Each entry point names a `Format`. The registry is read once per process; a
broken or duplicated registration is an error that names the entry point.
"""

from __future__ import annotations

import functools
from importlib.metadata import EntryPoint, entry_points

from tradeleague.errors import ConfigError
from tradeleague.plugin.format import Format

__all__ = ["ENTRY_POINT_GROUP", "UnknownFormat", "formats", "get", "keys", "reload"]

ENTRY_POINT_GROUP = "tradeleague.formats"


class UnknownFormat(ConfigError):
    """A format key that no installed format has."""


def _load(point: EntryPoint) -> Format:
    try:
        loaded = point.load()
    except Exception as exc:
        raise ConfigError(
            f"the format plug-in {point.name!r} ({point.value}) cannot be loaded: {exc}"
        ) from exc
    if not isinstance(loaded, Format):
        raise ConfigError(
            f"the format plug-in {point.name!r} ({point.value}) is not a tradeleague Format"
        )
    if loaded.key != point.name:
        raise ConfigError(
            f"the format plug-in {point.name!r} ({point.value}) calls itself {loaded.key!r}"
        )
    return loaded


@functools.cache
def _installed() -> tuple[Format, ...]:
    found: dict[str, Format] = {}
    seen: dict[str, str] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in seen:
            if seen[point.name] == point.value:
                continue  # the same distribution seen twice on sys.path (an editable install)
            raise ConfigError(
                f"two format plug-ins are named {point.name!r}: "
                f"{seen[point.name]} and {point.value}"
            )
        seen[point.name] = point.value
        found[point.name] = _load(point)
    return tuple(sorted(found.values(), key=lambda f: (f.order, f.key)))


def formats() -> tuple[Format, ...]:
    """Return every installed format, in listing order."""
    return _installed()


def keys() -> tuple[str, ...]:
    """Return every installed format's key, in listing order."""
    return tuple(f.key for f in _installed())


def get(key: str) -> Format:
    """Return the installed format ``key``.

    Raises
    ------
    UnknownFormat
        No installed format has that key; the message lists those that do.
    """
    for fmt in _installed():
        if fmt.key == key:
            return fmt
    raise UnknownFormat(f"no format {key!r}; installed: {', '.join(keys()) or 'none'}")


def reload() -> None:
    """Forget the formats read so far (a test that installs a format calls it)."""
    _installed.cache_clear()
