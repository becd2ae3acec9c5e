"""The tool-using agent: read-only tools first, then an answer, every step recorded (T-AGT-2).

A ``ToolsAgent`` offers the model a ``ToolBox`` of read-only tools (candles,
indicators, its own portfolio: plain Python callables that return JSON-safe
data) through the chat-completions ``tools`` protocol. Each step is its own
``Call`` through the gateway, keyed ``CallKey.turn = turn.key.turn + step``, so
every step is a ``ModelCalled`` event and a replay answers each from the record.

Bounds
    At most ``max_steps`` calls; the last is sent with no tools offered, so the
    model must answer in text. Once the steps have used ``max_total_tokens``
    (prompt plus completion, as reported) the next step is the last. All steps
    share the turn's one deadline: each step's ``timeout_s`` is what is left of
    the window after the earlier steps' recorded whole-millisecond times, so a
    replay asks exactly the requests that were asked live.

What the answer is
    The text of the first reply that calls no tool. A fault ends the turn with
    that step's outcome. A model that still calls tools on the last step
    answers with whatever text came with the calls (often none), which the
    format rejects: the agent never makes an answer up (C-6).

Transcript
    A tool step goes back natively, in the chat-completions tools protocol
    (``tool_transcript``): the model's ``assistant`` message with its
    ``tool_calls`` exactly as received, then one ``tool`` message per call, in
    the calls' order, carrying its ``tool_call_id`` and, as canonical JSON,
    ``{"result": ...}`` or ``{"error": "..."}``. Every call gets its message
    (calls past ``max_tool_calls`` get an error), as the protocol requires.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from tradeleague import untrusted
from tradeleague.agents.base import AgentReply, Turn
from tradeleague.agents.llm import call_one
from tradeleague.calls import Message, Outcome
from tradeleague.errors import ConfigError
from tradeleague.llm.gateway import ApiKey, Call, ModelGateway
from tradeleague.llm.records import CallRecord
from tradeleague.llm.types import ChatRequest

__all__ = [
    "Tool",
    "ToolBox",
    "ToolsAgent",
    "tool_transcript",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Tool:
    """One read-only tool.

    Parameters
    ----------
    name
        The function name the model calls (letters, digits, ``_`` and ``-``).
    description
        What it returns, for the model.
    parameters
        The JSON schema of its arguments (an ``object`` schema).
    run
        The function: the decoded arguments in, JSON-safe data out. It must
        not change anything and must be a pure function of the turn's data,
        so a replay gets the same results.
    """

    name: str
    description: str
    run: Callable[[Mapping[str, Any]], object] = field(repr=False)
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )

    def __post_init__(self) -> None:
        if not self.name or not all(c.isalnum() or c in "_-" for c in self.name):
            raise ConfigError(f"tool name {self.name!r}: use letters, digits, '_' and '-'")

    def definition(self) -> dict[str, Any]:
        """Return the chat-completions tool definition."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": json.loads(json.dumps(self.parameters)),
            },
        }


class ToolBox:
    """The tools an agent may call in one turn.

    Parameters
    ----------
    tools
        The tools, each with a distinct name.
    max_result_chars
        A result whose JSON is longer is replaced by an error saying so.

    Raises
    ------
    ConfigError
        If two tools share a name.
    """

    def __init__(self, tools: Iterable[Tool], *, max_result_chars: int = 16_000) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ConfigError(f"two tools are named {tool.name!r}")
            self._tools[tool.name] = tool
        self._max_chars = max_result_chars

    @property
    def names(self) -> tuple[str, ...]:
        """The tool names, in the order given."""
        return tuple(self._tools)

    def definitions(self) -> tuple[Mapping[str, Any], ...]:
        """Return the tool definitions sent with each step's request."""
        return tuple(t.definition() for t in self._tools.values())

    def run(self, tool_call: Mapping[str, Any]) -> dict[str, Any]:
        """Run one chat-completions tool call; return ``{"id", "name", "result" | "error"}``.

        A bad call (unknown tool, arguments that are not a JSON object, a tool
        that raises, a result that is not JSON or too long) gives an ``error``
        the model reads; it never stops the turn.
        """
        call_id = tool_call.get("id")
        function = tool_call.get("function")
        name = function.get("name") if isinstance(function, Mapping) else None
        out: dict[str, Any] = {"id": call_id if isinstance(call_id, str) else None, "name": name}
        tool = self._tools.get(name) if isinstance(name, str) else None
        if tool is None:
            out["error"] = f"unknown tool {name!r}; tools: {', '.join(self._tools)}"
            return out
        raw_args = function.get("arguments") if isinstance(function, Mapping) else None
        try:  # the model's text: bounded like every JSON from outside (untrusted.loads)
            args = (
                untrusted.clean_value(untrusted.loads(raw_args))
                if isinstance(raw_args, str) and raw_args.strip()
                else {}
            )
        except untrusted.UntrustedJSON as exc:
            # the decoder's own words where it refused (as recorded tool steps hold them)
            cause = exc.__cause__
            detail = cause.msg if isinstance(cause, json.JSONDecodeError) else str(exc)
            out["error"] = f"arguments are not JSON: {detail}"
            return out
        if not isinstance(args, dict):
            out["error"] = "arguments must be a JSON object"
            return out
        try:
            result = tool.run(args)
            text = json.dumps(result, sort_keys=True, allow_nan=False)
        except Exception as exc:  # a tool's fault is data for the model, not a crash
            out["error"] = f"{type(exc).__name__}: {exc}"
            return out
        if len(text) > self._max_chars:
            out["error"] = f"result too large ({len(text)} > {self._max_chars} characters)"
            return out
        out["result"] = json.loads(text)
        return out


def tool_transcript(
    record: CallRecord, results: Iterable[Mapping[str, Any]]
) -> tuple[Message, ...]:
    """Return the messages that write one tool step back into the conversation.

    Parameters
    ----------
    record
        The step's record: its text and tool calls, as the model sent them.
    results
        ``ToolBox.run``'s output for each call, in the calls' order.

    Returns
    -------
    tuple of Message
        The ``assistant`` message with the tool calls, then one ``tool``
        message per result, its content ``{"result": ...}`` or
        ``{"error": ...}`` as canonical JSON, its ``tool_call_id`` the call's
        ``id`` (``""`` for a call that came without one).
    """
    said = Message("assistant", record.text or "", tool_calls=record.tool_calls)
    answers = tuple(
        Message(
            "tool",
            _canonical({"error": r["error"]} if "error" in r else {"result": r.get("result")}),
            tool_call_id=r["id"] if isinstance(r.get("id"), str) else "",
        )
        for r in results
    )
    return (said, *answers)


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(slots=True, kw_only=True)
class ToolsAgent:
    """A multi-step agent that may call read-only tools before it answers (T-AGT-2).

    Parameters
    ----------
    name, model, provider, gateway, api_key
        As for ``LlmAgent``.
    toolbox
        The tools, or a function of the turn that builds them from its data
        (the round's candles and the agent's own portfolio, never more).
    max_steps
        At most this many calls per turn (at least 1; the last offers no tools).
    max_total_tokens
        After the steps have used this many tokens, the next step is the last.
    max_tool_calls
        Tool calls run per step; any beyond get an error result.
    """

    name: str
    model: str
    provider: str
    gateway: ModelGateway = field(repr=False)
    toolbox: ToolBox | Callable[[Turn], ToolBox] = field(repr=False)
    api_key: ApiKey = field(default=None, repr=False)
    max_steps: int = 4
    max_total_tokens: int = 8_000
    max_tool_calls: int = 8
    kind: str = "tools"
    labels: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.max_steps < 1 or self.max_total_tokens < 1 or self.max_tool_calls < 1:
            raise ConfigError("max_steps, max_total_tokens and max_tool_calls must be >= 1")

    async def answer(self, turn: Turn) -> AgentReply:
        """Run the steps of ``turn``; return the final text with every step's record.

        Raises
        ------
        tradeleague.agents.llm.ReplayMissed
            Only under a replay gateway that has no faithful record of a step.
        """
        box = self.toolbox if isinstance(self.toolbox, ToolBox) else self.toolbox(turn)
        budget_ms = round(turn.params.timeout_s * 1000)
        messages = list(turn.messages)
        records: list[CallRecord] = []
        used_ms = tokens = 0
        for step in range(self.max_steps):
            last = step == self.max_steps - 1 or tokens >= self.max_total_tokens
            if used_ms >= budget_ms:
                return AgentReply(outcome=Outcome.TIMEOUT, latency_ms=used_ms, records=(*records,))
            params = turn.params
            if step:
                params = replace(params, timeout_s=(budget_ms - used_ms) / 1000)
            request = ChatRequest(
                model=self.model,
                messages=tuple(messages),
                params=params,
                tools=() if last else box.definitions(),
            )
            key = replace(turn.key, turn=turn.key.turn + step)
            call = Call(request=request, provider=self.provider, key=key, api_key=self.api_key)
            record = await call_one(self.gateway, call)
            records.append(record)
            used_ms += record.elapsed_ms
            tokens += (record.prompt_tokens or 0) + (record.completion_tokens or 0)
            if record.outcome is not Outcome.ANSWERED or not record.tool_calls or last:
                return AgentReply(
                    outcome=record.outcome,
                    text=record.text,
                    latency_ms=used_ms,
                    records=(*records,),
                )
            results = [box.run(c) for c in record.tool_calls[: self.max_tool_calls]]
            results += [
                {
                    "id": c.get("id"),
                    "error": f"more than {self.max_tool_calls} tool calls in a step",
                }
                for c in record.tool_calls[self.max_tool_calls :]
            ]
            messages.extend(tool_transcript(record, results))
        raise AssertionError("unreachable: the last step always returns")  # pragma: no cover
