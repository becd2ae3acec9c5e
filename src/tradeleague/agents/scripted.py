r"""The scripted agent: plays answers from a JSONL file, one per turn, in order.

Each non-blank line of the file is one JSON object, the answer to the next turn
the agent is asked::

    {"text": "{\"direction\": \"up\", \"rationale\": \"trend\"}"}
    {"text": "not JSON at all", "latency_ms": 1200}
    {"outcome": "timeout", "latency_ms": 45000}

``text`` is the raw text a model would have sent (C-4); ``latency_ms`` (default
0) is the simulated time the answer took, so a script can play a ``late``
answer; ``outcome`` (default ``answered``) is any ``Outcome`` value, so a script
can simulate a timeout or a rejected key. A line that is not an answer is a
``ConfigError`` naming its line number, raised when the file is loaded, before
any turn is played: so is a line nested deeper than ``untrusted.MAX_DEPTH``.
Text that holds a lone surrogate is played with U+FFFD in its place
(``AgentReply`` makes every answer storable).

When the script runs out, each further turn gets ``Outcome.PROVIDER_ERROR``
with no text, and the agent's ``exhausted`` flag is set (``SCRIPT_EXHAUSTED``
is the reason to show): the format records "No decision", as for a provider
that stopped answering, and never invents an answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tradeleague.agents.base import MAX_LATENCY_MS, AgentReply, Turn
from tradeleague.calls import Outcome
from tradeleague.errors import ConfigError
from tradeleague.untrusted import UntrustedJSON, loads

__all__ = ["SCRIPT_EXHAUSTED", "ScriptLine", "ScriptedAgent", "load_script", "parse_script"]

SCRIPT_EXHAUSTED = "script exhausted"
"""Why a scripted agent gave ``provider_error``: it had no line left."""

_KEYS = frozenset({"text", "latency_ms", "outcome"})


@dataclass(frozen=True, slots=True, kw_only=True)
class ScriptLine:
    """One scripted answer."""

    outcome: Outcome = Outcome.ANSWERED
    text: str | None = None
    latency_ms: int = 0


def _line(data: object, where: str) -> ScriptLine:
    if not isinstance(data, Mapping):
        raise ConfigError(f'{where}: expected a JSON object such as {{"text": "..."}}')
    unknown = set(data) - _KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {sorted(unknown)}; valid: {sorted(_KEYS)}")
    outcome_name = data.get("outcome", Outcome.ANSWERED.value)
    try:
        outcome = Outcome(outcome_name)
    except ValueError:
        valid = ", ".join(o.value for o in Outcome)
        raise ConfigError(f"{where}: unknown outcome {outcome_name!r}; valid: {valid}") from None
    text = data.get("text")
    if text is not None and not isinstance(text, str):
        raise ConfigError(f"{where}: text must be a string")
    if outcome is Outcome.ANSWERED and text is None:
        raise ConfigError(f'{where}: an answered line needs a "text"')
    if outcome is not Outcome.ANSWERED and text is not None:
        raise ConfigError(f"{where}: a {outcome.value!r} line carries no text")
    latency = data.get("latency_ms", 0)
    if (
        not isinstance(latency, int)
        or isinstance(latency, bool)
        or not 0 <= latency <= MAX_LATENCY_MS
    ):
        raise ConfigError(f"{where}: latency_ms must be a whole number from 0 to {MAX_LATENCY_MS}")
    return ScriptLine(outcome=outcome, text=text, latency_ms=latency)


def parse_script(lines: Iterable[str], *, source: str = "script") -> tuple[ScriptLine, ...]:
    """Parse JSONL ``lines`` into answers; blank lines are skipped.

    Raises
    ------
    ConfigError
        On a line that is not JSON or not an answer (the message names
        ``source`` and the line number), or a script with no answer at all.
    """
    parsed: list[ScriptLine] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        where = f"{source} line {number}"
        try:
            data = loads(raw)
        except UntrustedJSON as exc:
            raise ConfigError(f"{where}: {exc}") from None
        parsed.append(_line(data, where))
    if not parsed:
        raise ConfigError(f"{source}: holds no answers (one JSON object per line)")
    return tuple(parsed)


def load_script(path: Path) -> tuple[ScriptLine, ...]:
    """Read and parse a JSONL script file.

    Raises
    ------
    ConfigError
        If the file cannot be read or a line is malformed.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"cannot read script {path}: no such file (a JSONL file, one "
            '{"text": "..."} a turn; a relative path is from the current folder)'
        ) from None
    except UnicodeDecodeError:
        raise ConfigError(f"cannot read script {path}: it is not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(f"cannot read script {path}: {exc.strerror or exc}") from None
    return parse_script(text.splitlines(), source=str(path))


@dataclass(slots=True, kw_only=True)
class ScriptedAgent:
    """An agent that plays scripted answers, one per turn, in order.

    Parameters
    ----------
    name
        The agent's name.
    lines
        The answers (``load_script`` reads them from a file).
    """

    name: str
    lines: tuple[ScriptLine, ...]
    kind: str = "scripted"
    labels: dict[str, str] = field(default_factory=dict)
    _next: int = field(default=0, init=False, repr=False)

    @classmethod
    def from_file(cls, name: str, path: Path) -> ScriptedAgent:
        """Return an agent playing the script at ``path``.

        Raises
        ------
        ConfigError
            If the file cannot be read or a line is malformed.
        """
        return cls(name=name, lines=load_script(path))

    @property
    def played(self) -> int:
        """The number of turns answered so far, exhausted ones included."""
        return self._next

    @property
    def exhausted(self) -> bool:
        """Whether every line has been played."""
        return self._next >= len(self.lines)

    def resume(self, turns: int) -> None:
        """Continue after ``turns`` played turns: the next turn plays line ``turns + 1``."""
        self._next = max(self._next, turns)

    async def answer(self, turn: Turn) -> AgentReply:
        """Play the next line; ``provider_error`` with no text once the script is exhausted."""
        index = self._next
        self._next += 1
        if index >= len(self.lines):
            return AgentReply(outcome=Outcome.PROVIDER_ERROR, error=SCRIPT_EXHAUSTED)
        line = self.lines[index]
        return AgentReply(outcome=line.outcome, text=line.text, latency_ms=line.latency_ms)
