"""Formats as plug-ins: the `Format` a format registers, and the registry that finds them.

A format is one object (`Format`) registered under the entry-point group
``tradeleague.formats``, the four built-ins exactly as a format installed from
another package. The shared layers (host, site, sweep, api, web, mcp, cli) loop
over `formats()` and ask each format for the part they need; they never import a
format's package or compare its name.
"""

from tradeleague.plugin.format import Command, Format, PartMissing
from tradeleague.plugin.registry import ENTRY_POINT_GROUP, UnknownFormat, formats, get, keys

__all__ = [
    "ENTRY_POINT_GROUP",
    "Command",
    "Format",
    "PartMissing",
    "UnknownFormat",
    "formats",
    "get",
    "keys",
]
