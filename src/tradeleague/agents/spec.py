"""Agent specs on the command line: ``--agent NAME=SPEC``, parsed, checked and built.

Grammar::

    [NAME=]KIND:TARGET[,OPTION=VALUE]...

==========================  ==========================================================
``baseline:NAME``           a format's rule-based baseline (``cash``, ``momentum``...)
``scripted:PATH``           answers played from a JSONL file (``tradeleague.agents.scripted``)
``openai:MODEL@URL``        a model behind any OpenAI-compatible endpoint
``openai:MODEL@PRESET``     a preset's own endpoint (``openrouter``, ``openai``, ``ollama``,
                            ``vllm``, ``llamacpp``); ``openai:MODEL`` alone means OpenAI's API
``openai:MODEL@PRESET=URL`` a server of that kind at any address, e.g.
                            ``openai:qwen@llamacpp=http://127.0.0.1:18310/v1``: the preset's
                            dialect, reasoning switch and output, at that URL
``local:NAME``              the offline house model (llama.cpp), answering under a grammar
==========================  ==========================================================

Options: ``provider=P`` and ``tier=T`` label the agent for group boards (D-SCO-5);
``cutoff=YYYY-MM`` (a model agent: ``openai``, ``local``, ``scripted``) states the
model's training cutoff, and ``cutoff_source=spec|models|house`` where it came from
(written by ``tradeleague.agents.cutoff.resolve_cutoffs``; ``spec`` by default);
``key_env=NAME`` (``openai`` only) names the environment variable holding the key;
``output=json_schema|json_object|grammar|text`` says how the provider is asked to
hold the answer to the round's JSON schema (``tradeleague.llm.dialects``):

- ``json_schema``: the schema itself, in the endpoint's dialect (OpenAI's strict
  ``response_format``; llama.cpp's ``json_object`` with ``schema``; vLLM's
  ``guided_json``; Ollama's ``response_format``, passed on as its ``format``);
- ``json_object``: any JSON object (JSON mode);
- ``grammar``: a GBNF grammar built from the schema (llama.cpp and vLLM only;
  the house model always answers under one);
- ``text``: nothing; the prompt alone says the format.

The default is the preset's (``json_schema`` for every built-in preset), ``text``
for any other URL, ``grammar`` for ``local:``. A dialect that cannot send the
output named is an error at start. Whatever is asked, the engine validates every
answer the same way and repairs none.

Which key an ``openai`` agent sends, read at call time (never stored in the spec):
the ``key_env`` variable when given; otherwise the preset's variable
(``OPENROUTER_API_KEY``, ``OPENAI_API_KEY``), and only to the preset's own host;
otherwise none: a preset at another URL, any other base URL and the local
servers (Ollama, vLLM, llama.cpp) get no ``Authorization`` header. A key meant
for one provider is never sent to another. A missing key is
``Outcome.KEY_UNREADABLE`` at the call (W-VAL-8), not an error at start.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tradeleague.agents.base import Agent
from tradeleague.agents.baseline_agent import BaselineAgent
from tradeleague.agents.llm import LlmAgent
from tradeleague.agents.scripted import ScriptedAgent
from tradeleague.errors import ConfigError, TradeleagueError
from tradeleague.llm.dialects import OUTPUTS, SUPPORTED, Output
from tradeleague.llm.gateway import ApiKey, Gateway, ModelGateway
from tradeleague.llm.presets import PRESETS, ProviderPreset, custom_preset, origin
from tradeleague.llm.types import Provider
from tradeleague.stats.cutoff import CUTOFF_SOURCES, cutoff_end

__all__ = [
    "AGENT_OPTION_HELP",
    "KINDS",
    "LOCAL_OUTPUTS",
    "LOCAL_PROVIDER",
    "OPTIONS",
    "REPLAY_ANSWERS_HELP",
    "AgentSpec",
    "BaselineFactory",
    "EnvKey",
    "KeyNotSet",
    "agent_option_help",
    "build_agent",
    "endpoint_for",
    "output_of",
    "parse_agent_spec",
    "providers_for",
]

KINDS = ("baseline", "scripted", "openai", "local")
"""The agent kinds a spec may name."""

OPTIONS: Mapping[str, frozenset[str]] = {
    "baseline": frozenset({"provider", "tier"}),
    "scripted": frozenset({"provider", "tier", "cutoff", "cutoff_source"}),
    "openai": frozenset({"provider", "tier", "key_env", "output", "cutoff", "cutoff_source"}),
    "local": frozenset({"provider", "tier", "output", "cutoff", "cutoff_source"}),
}
"""The options each kind accepts."""

LOCAL_OUTPUTS: tuple[Output, ...] = ("grammar", "text")
"""The outputs the house model takes: its grammar, or none."""

LOCAL_PROVIDER = "local"
HOUSE_MODEL_NAMES = ("house", "smollm2")
"""The names of the bundled house model after ``local:``; any other must be a ``.gguf`` file."""
"""The gateway provider name of the house model (``tradeleague.llm.local.LocalProvider``)."""

_WEIGHTS_BASELINES = ("cash", "buy-and-hold", "equal-weight", "momentum", "coin-flip")
"""The weights league's baselines, as ``AGENT_OPTION_HELP`` lists them."""


def agent_option_help(baselines: Sequence[str]) -> str:
    """Return the help text of ``--agent NAME=SPEC`` for a format with these baselines.

    Every format's commands share the text; only the list of ``baseline:NAME``
    names differs.
    """
    return (
        "An agent, as NAME=SPEC (repeat the option for each agent). SPEC is one of: "
        f"baseline:NAME (a rule-based baseline: {', '.join(baselines)}), "
        'scripted:PATH (answers from a JSONL file, one {"text": ...} per turn), '
        "openai:MODEL@BASE_URL (any OpenAI-compatible endpoint; BASE_URL may be a preset: "
        "openrouter, openai, ollama, vllm, llamacpp, or a preset's kind of server at any "
        "address, e.g. openai:qwen@llamacpp=http://127.0.0.1:18310/v1; a preset's key variable "
        "goes only to the preset's own host, other URLs get no key unless ,key_env=NAME names "
        "the variable), local:NAME (the offline house model). Add "
        ",output=json_schema|json_object|grammar|text to choose how the provider is asked "
        "to keep to the answer's JSON schema (default: json_schema for a preset, text for "
        "other URLs, grammar for local:), e.g. openai:house@http://127.0.0.1:8090/v1,"
        "output=json_schema. Add ,provider=P,tier=T to label the agent "
        "for group boards. Add ,cutoff=YYYY-MM to a model agent to state its training "
        "cutoff (results then say whether the period lies before or after it). "
        "NAME= may be left out: the agent is then named after its target."
    )


AGENT_OPTION_HELP = agent_option_help(_WEIGHTS_BASELINES)
"""The help text of ``--agent NAME=SPEC`` in the weights league's commands."""

REPLAY_ANSWERS_HELP = (
    "Re-run the season with the model answers recorded in this database (a URL such as "
    "sqlite:///league.db or postgresql+psycopg://...) instead of calling any model: the "
    "same texts, outcomes and latencies, so the decisions, fills and ranks come out "
    "identical. A call the record does not hold stops the replay with an error; nothing "
    "is ever sent to a provider."
)
"""The help text of ``--replay-answers FROM_DB``, the same in every format's commands."""

BaselineFactory = Callable[[str], tuple[Callable[[Any], Any], Callable[[Any], str]]]
"""The format's baselines: a baseline name in, its ``(decide, render)`` out.

It raises ``ConfigError`` for a name the format does not have, listing the valid ones.
"""

_NAME_RE = re.compile(r"[^\s=,]{1,100}")
_EXAMPLES = "e.g. gpt=openai:gpt-4o-mini@openrouter,tier=MID or baseline:cash"


class KeyNotSet(TradeleagueError):
    """The environment variable an agent's key is read from is not set."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentSpec:
    """One parsed agent spec.

    Attributes
    ----------
    name
        The agent's name on boards and in call keys.
    kind
        One of ``KINDS``.
    target
        The baseline name, script path, model id or house-model name.
    base_url
        The endpoint of an ``openai`` agent (a preset's URL when a preset name
        was given); ``None`` for other kinds.
    preset
        The preset named before ``=URL`` (``@llamacpp=http://...``), if any.
    key_env
        The variable named by ``key_env=``, if any.
    output
        The output named by ``output=``, if any (see ``output_of`` for the default).
    provider, tier
        Group labels for boards.
    cutoff, cutoff_source
        The model's training cutoff (``YYYY[-MM[-DD]]``) and where it came from
        (``tradeleague.agents.cutoff``).
    options
        Every option as given, in order.
    """

    name: str
    kind: str
    target: str
    base_url: str | None = None
    preset: str | None = None
    key_env: str | None = None
    output: Output | None = None
    provider: str | None = None
    tier: str | None = None
    cutoff: str | None = None
    cutoff_source: str | None = None
    options: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    @property
    def labels(self) -> dict[str, str]:
        """Return the group labels that are set (``provider``, ``tier``)."""
        labels = {"provider": self.provider, "tier": self.tier}
        return {k: v for k, v in labels.items() if v is not None}


def parse_agent_spec(text: str) -> AgentSpec:
    """Parse ``NAME=SPEC`` or ``SPEC`` (see the module docstring).

    Raises
    ------
    ConfigError
        On an unknown kind or option, a missing target, a malformed name,
        option or base URL; the message lists what is valid.
    """
    text = text.strip()
    colon, equals = text.find(":"), text.find("=")
    name: str | None = None
    if equals != -1 and (colon == -1 or equals < colon):
        name, text = text[:equals].strip(), text[equals + 1 :].strip()
        if not _NAME_RE.fullmatch(name):
            raise ConfigError(
                f"agent name {name!r}: 1 to 100 characters without spaces, '=' or ','"
            )
    head, *raw_options = text.split(",")
    kind, sep, target = head.partition(":")
    kind, target = kind.strip(), target.strip()
    if not sep or kind not in KINDS:
        raise ConfigError(
            f"agent spec {text!r}: unknown kind {kind!r}; valid kinds: "
            f"{', '.join(KINDS)} ({_EXAMPLES})"
        )
    if not target:
        raise ConfigError(f"agent spec {text!r}: {kind}: needs a target ({_EXAMPLES})")
    if kind == "local" and target not in HOUSE_MODEL_NAMES and not target.endswith(".gguf"):
        raise ConfigError(
            f"agent spec {text!r}: local: takes the house model ({', '.join(HOUSE_MODEL_NAMES)}) "
            "or a .gguf file, e.g. local:house"
        )
    options = _options(raw_options, kind, text)
    given = dict(options)
    base_url: str | None = None
    preset_name: str | None = None
    if kind == "openai":
        target, base_url, preset_name = _model_and_url(target, text)
    if name is None:
        name = Path(target).stem if kind == "scripted" else target
    spec = AgentSpec(
        name=name,
        kind=kind,
        target=target,
        base_url=base_url,
        preset=preset_name,
        key_env=given.get("key_env"),
        output=_output(given.get("output"), text),
        provider=given.get("provider"),
        tier=given.get("tier"),
        cutoff=_cutoff(given.get("cutoff"), given.get("cutoff_source"), text),
        cutoff_source=given.get("cutoff_source"),
        options=options,
    )
    if spec.output is not None:
        spoken = LOCAL_OUTPUTS if kind == "local" else SUPPORTED[endpoint_for(spec).dialect]
        if spec.output not in spoken:
            where = "the house model"
            if kind != "local":
                where = f"the {endpoint_for(spec).name} endpoint"
            raise ConfigError(
                f"agent spec {text!r}: {where} cannot be sent output={spec.output}; "
                f"valid: {', '.join(spoken)}"
            )
    return spec


def _cutoff(value: str | None, source: str | None, text: str) -> str | None:
    if source is not None and (value is None or source not in CUTOFF_SOURCES):
        raise ConfigError(
            f"agent spec {text!r}: cutoff_source goes with cutoff= and is one of "
            f"{', '.join(CUTOFF_SOURCES)}"
        )
    if value is None:
        return None
    try:
        cutoff_end(value)
    except ConfigError as exc:
        raise ConfigError(f"agent spec {text!r}: {exc}") from None
    return value


def _output(value: str | None, text: str) -> Output | None:
    if value is None:
        return None
    for output in OUTPUTS:
        if value == output:
            return output
    raise ConfigError(
        f"agent spec {text!r}: unknown output {value!r}; valid outputs: {', '.join(OUTPUTS)}"
    )


def _options(raw: Iterable[str], kind: str, text: str) -> tuple[tuple[str, str], ...]:
    valid = OPTIONS[kind]
    options: list[tuple[str, str]] = []
    for item in raw:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not value:
            raise ConfigError(f"agent spec {text!r}: option {item!r} must be KEY=VALUE")
        if key not in valid:
            raise ConfigError(
                f"agent spec {text!r}: unknown option {key!r} for {kind}:; "
                f"valid options: {', '.join(sorted(valid))}"
            )
        if key in dict(options):
            raise ConfigError(f"agent spec {text!r}: option {key!r} given twice")
        options.append((key, value))
    return tuple(options)


_PRESET_WORD = re.compile(r"[A-Za-z0-9_-]+")


def _model_and_url(target: str, text: str) -> tuple[str, str, str | None]:
    """Return the model, the base URL and the preset named with ``PRESET=URL`` (if any)."""
    model, sep, where = target.rpartition("@")
    if not sep:
        return target, PRESETS["openai"].base_url, None
    if not model:
        raise ConfigError(f"agent spec {text!r}: openai: needs MODEL before '@'")
    if where in PRESETS:
        return model, PRESETS[where].base_url, None
    named: str | None = None
    head, equals, url = where.partition("=")
    if equals and _PRESET_WORD.fullmatch(head):
        if head not in PRESETS:
            raise ConfigError(
                f"agent spec {text!r}: unknown preset {head!r} before '='; "
                f"presets: {', '.join(sorted(PRESETS))}"
            )
        named, where = head, url
    if not where.startswith(("http://", "https://")):
        raise ConfigError(
            f"agent spec {text!r}: {where!r} is neither an http(s) base URL nor a preset; "
            f"presets: {', '.join(sorted(PRESETS))}"
        )
    return model, where.rstrip("/"), named


def _same_endpoint(a: str, b: str) -> bool:
    """Return whether two base URLs name one endpoint: origin, path (less a final ``/``), query."""
    pa, pb = urlsplit(a), urlsplit(b)
    return (origin(a), pa.path.rstrip("/"), pa.query) == (
        origin(b),
        pb.path.rstrip("/"),
        pb.query,
    )


def endpoint_for(spec: AgentSpec) -> ProviderPreset:
    """Return the endpoint of an ``openai`` spec: its preset, or a copy at another URL.

    A base URL equal to a preset's (ignoring a trailing ``/``), given alone or
    after that preset's name, is that preset, with its key variable. A preset
    named at another URL (``@llamacpp=http://HOST:PORT/v1``) keeps its dialect,
    default output and reasoning switch, is named ``PRESET@HOST[:PORT]/PATH``
    and has no key variable. Any other URL is a custom endpoint named
    ``custom@HOST[:PORT]/PATH``: OpenAI's dialect, plain text by default, no
    key variable. A key for those comes only from ``key_env=``.

    Raises
    ------
    ConfigError
        If ``spec`` is not an ``openai`` spec.
    """
    if spec.kind != "openai" or spec.base_url is None:
        raise ConfigError(f"agent {spec.name!r} is a {spec.kind} agent, not an openai one")
    url = spec.base_url.rstrip("/")
    where = url.split("://", 1)[1]
    if spec.preset is not None:
        known = PRESETS[spec.preset]
        if _same_endpoint(known.base_url, url):
            return known
        return known.with_base_url(url, name=f"{known.name}@{where}", keep_key=False)
    for known in PRESETS.values():
        if _same_endpoint(known.base_url, url):
            return known
    return custom_preset("custom@" + where, url)


def output_of(spec: AgentSpec) -> Output:
    """Return the output an ``openai`` or ``local`` agent asks for: its own, or the default.

    The default is the endpoint's (``ProviderPreset.default_output``) for
    ``openai``, ``grammar`` for the house model.
    """
    if spec.output is not None:
        return spec.output
    if spec.kind == "local":
        return "grammar"
    return endpoint_for(spec).default_output


def providers_for(
    specs: Iterable[AgentSpec],
    *,
    environ: Mapping[str, str] | None = None,
    max_connections: int = 256,
) -> list[Provider]:
    """Return the providers the specs need: one per ``openai`` endpoint, and the house model.

    ``local:NAME`` agents share one in-process house model
    (``tradeleague.llm.local.LocalProvider``, registered as ``local``): NAME is
    ``house`` (the configured or bundled GGUF file) or the path of a ``.gguf``
    file. Every house-model agent runs on the same model, so two different
    files in one roster are an error.
    """
    endpoints: dict[str, ProviderPreset] = {}
    local_paths: set[str | None] = set()
    for spec in specs:
        if spec.kind == "openai":
            endpoint = endpoint_for(spec)
            endpoints.setdefault(endpoint.name, endpoint)
        elif spec.kind == "local":
            local_paths.add(spec.target if spec.target.endswith(".gguf") else None)
    providers: list[Provider] = []
    if endpoints:
        # Imported here, not at the top: the model client and its HTTP pool load
        # only for a roster that calls a model (the CLI's start stays fast).
        from tradeleague.llm.openai_compat import OpenAICompatProvider

        providers = [
            OpenAICompatProvider(e, max_connections=max_connections, environ=environ)
            for e in endpoints.values()
        ]
    if len(local_paths) > 1:
        raise ConfigError(
            "every local: agent runs on the one house model; the roster names "
            f"{len(local_paths)} different models"
        )
    if local_paths:
        from tradeleague.llm.local import LocalProvider

        providers.append(LocalProvider(next(iter(local_paths))))
    return providers


@dataclass(frozen=True, slots=True)
class EnvKey:
    """A key read from an environment variable when the call is made.

    Parameters
    ----------
    variable
        The variable's name.
    environ
        Where to read it (the process environment by default).
    """

    variable: str
    environ: Mapping[str, str] | None = field(default=None, repr=False, compare=False)

    def __call__(self) -> str:
        """Return the key.

        Raises
        ------
        KeyNotSet
            If the variable is unset or blank (the gateway records ``key_unreadable``).
        """
        value = (os.environ if self.environ is None else self.environ).get(self.variable, "")
        if not value.strip():
            raise KeyNotSet(f"environment variable {self.variable} is not set")
        return value.strip()


def build_agent(
    spec: AgentSpec,
    *,
    gateway: ModelGateway,
    format_name: str,
    baseline_factory: BaselineFactory,
    environ: Mapping[str, str] | None = None,
    api_key: ApiKey = None,
) -> Agent:
    """Build the agent ``spec`` describes for the format ``format_name``.

    Parameters
    ----------
    spec
        The parsed spec.
    gateway
        The gateway model agents call (live or replay); a live ``Gateway`` must
        hold the spec's provider (see ``providers_for``; ``local`` for the house
        model).
    format_name
        The format the agent plays (named in error messages).
    baseline_factory
        The format's baselines, by name.
    environ
        Where ``key_env`` variables are read at call time.
    api_key
        The key an ``openai`` agent sends instead of its environment's: an
        owner's key read from the vault at call time (``keys.OwnerKeys.reader``).

    Raises
    ------
    ConfigError
        If the baseline is unknown to the format, the script cannot be read,
        or a live gateway lacks the provider.
    """
    labels = spec.labels
    if spec.kind == "baseline":
        try:
            decide, render = baseline_factory(spec.target)
        except ConfigError as exc:
            raise ConfigError(f"agent {spec.name!r} in format {format_name!r}: {exc}") from None
        return BaselineAgent(spec.name, decide, render, labels=labels)
    if spec.kind == "scripted":
        agent = ScriptedAgent.from_file(spec.name, Path(spec.target))
        agent.labels = labels
        return agent
    if spec.kind == "local":
        provider, kind = LOCAL_PROVIDER, "local"
    else:
        provider, kind = endpoint_for(spec).name, "llm"
        if api_key is None and spec.key_env is not None:
            api_key = EnvKey(spec.key_env, environ)
    if isinstance(gateway, Gateway):
        gateway.provider(provider)
    output = output_of(spec)
    return LlmAgent(
        name=spec.name,
        model=spec.target,
        provider=provider,
        gateway=gateway,
        api_key=api_key,
        constrain=output != "text",
        output="json_schema" if output == "text" else output,
        kind=kind,
        labels=labels,
    )
