"""What a signed-in owner may do in the weights league: one agent, its prompt and key.

`Owners` is the weights league's side of an owner's account, keyed by the
wallet that signed in. Its actions go through the league's operator functions
(`tradeleague.league.weights.ops`), so an owner is held to the same rules as
the CLI: one agent per wallet in a season (W-REC-1), three prompt changes a
UTC day (W-REC-2), resume only when paused (W-VAL-9). Owners' model keys are
sealed into the vault (`tradeleague.keys.stored.OwnerKeys`) and never come
back out through here. Sign-in, sessions and the wallet's scenario API keys
are the account's own (``tradeleague.api.account``); `accounts` serves these
actions there.
"""

from __future__ import annotations

import importlib.util
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

import sqlalchemy as sa

from tradeleague.accounts import AccountHost, iso
from tradeleague.agents.cutoff import resolve_cutoffs
from tradeleague.agents.spec import parse_agent_spec
from tradeleague.api.account.settings import Summarize
from tradeleague.errors import ConfigError, ServiceError
from tradeleague.events import EventKind
from tradeleague.events import weights as ev
from tradeleague.formats.weights import Division, WeightsPreset, division_cap
from tradeleague.keys import Secret, mask
from tradeleague.keys.stored import OwnerKeys
from tradeleague.keys.vault import KeyUnreadable
from tradeleague.league.weights import ops
from tradeleague.league.weights.state import AgentState, SeasonState
from tradeleague.league.weights.summary import latest_summaries, summarize_strategy
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.presets import PRESETS
from tradeleague.store.schema import events
from tradeleague.untrusted import clean_text, is_blank

__all__ = [
    "HOUSE_SPEC",
    "MAX_KEY_CHARS",
    "MAX_NAME_CHARS",
    "MAX_PROMPT_CHARS",
    "OwnerConfig",
    "Owners",
    "Summarize",
    "house_summarizer",
    "summarizer",
]

_log = logging.getLogger(__name__)

HOUSE_SPEC: Final = "local:house"
"""The Open division's model: the house model (W-DIV-1)."""

MAX_NAME_CHARS: Final = 40
MAX_PROMPT_CHARS: Final = 4_000
MAX_KEY_CHARS: Final = 400


@dataclass(frozen=True, slots=True)
class OwnerConfig:
    """What the operator decides for owners.

    Attributes
    ----------
    season
        The weights season owners join; ``None`` for the one running now.
    preset
        The weights rules.
    endpoints
        Base URLs a Pro owner's model may be served from, beside the presets'
        (the server calls them with the owner's key, so an owner cannot point
        it at an internal address).
    """

    season: str | None = None
    preset: WeightsPreset = field(default_factory=WeightsPreset)
    endpoints: tuple[str, ...] = ()


KEY_PATTERN: Final = r"^[ \t\r\n]*[!-~](?:[ -~]*[!-~])?[ \t\r\n]*$"
"""A model key as read: printable ASCII, spaces, tabs and line ends around it dropped."""


def _text(value: str, what: str, limit: int) -> str:
    # the limit is the text's as sent (the document's maxLength), white space and all
    if len(value) > limit:
        raise ServiceError(422, "invalid_request", f"The {what} is longer than {limit} characters.")
    text = clean_text(value).strip()
    if is_blank(text):
        raise ServiceError(422, "invalid_request", f"The {what} is empty.")
    return text


def _key(value: str) -> Secret:
    text = value.strip(" \t\r\n")
    if len(value) > MAX_KEY_CHARS or not re.fullmatch(KEY_PATTERN, value):
        raise ServiceError(
            422, "invalid_key", f"A model key is 1-{MAX_KEY_CHARS} printable ASCII characters."
        )
    return Secret(text)


class Owners:
    """Owners' actions on the weights league.

    Parameters
    ----------
    service
        The service the site runs on (store, clock, transactions).
    keys
        Where owners' model keys are sealed.
    config
        The season, rules and allowed model endpoints.
    summarize
        Writes a strategy summary (W-REC-3); ``None`` writes none.
    """

    def __init__(
        self,
        service: AccountHost,
        keys: OwnerKeys,
        config: OwnerConfig | None = None,
        summarize: Summarize | None = None,
    ) -> None:
        self.service = service
        self.keys = keys
        self.config = config or OwnerConfig()
        self.summarize = summarize
        # Only the hosted providers that take a key: the local servers' presets (Ollama,
        # vLLM, llama.cpp) point at this machine, which an owner must not reach.
        hosted = [p.base_url for p in PRESETS.values() if p.key_env is not None]
        allowed = hosted + list(self.config.endpoints)
        self._endpoints = {u.rstrip("/") for u in allowed}

    # -- the season ------------------------------------------------------------------------

    def _season_id(self) -> str | None:
        if self.config.season is not None:
            return self.config.season
        now = self.service.clock.now()
        query = (
            sa.select(events.c.stream)
            .where(
                events.c.kind == EventKind.SEASON_STARTED,
                events.c.stream.startswith(ev.STREAM_PREFIX),
            )
            .order_by(events.c.seq)
        )
        with self.service.ledger.read("find the running season in") as conn:
            streams = [str(s) for s in conn.execute(query).scalars()]
        found: str | None = None
        for stream in streams:
            state = self._state(stream.removeprefix(ev.STREAM_PREFIX))
            if state.window is not None and state.window.running(now):
                found = state.season_id
        return found

    def _state(self, season: str) -> SeasonState:
        try:
            return ops.load_season(self.service.store, season, self.config.preset)
        except ConfigError:
            raise ServiceError(404, "no_season", "No weights season is open to join.") from None

    def _season(self) -> SeasonState:
        season = self._season_id()
        if season is None:
            raise ServiceError(404, "no_season", "No weights season is open to join.")
        return self._state(season)

    @staticmethod
    def _mine(state: SeasonState, wallet: str) -> AgentState | None:
        return next((a for a in state.agents.values() if a.owner == wallet), None)

    def _agent(self, wallet: str) -> tuple[SeasonState, AgentState]:
        state = self._season()
        agent = self._mine(state, wallet)
        if agent is None:
            raise ServiceError(404, "no_agent", "This wallet has no agent in the season.")
        return state, agent

    # -- reads -----------------------------------------------------------------------------

    def view(self, wallet: str) -> dict[str, Any]:
        """Return the account's weights facts: the season owners join, and the wallet's agent."""
        season = self._season_id()
        agent: dict[str, Any] | None = None
        if season is not None:
            state = self._state(season)
            mine = self._mine(state, wallet)
            if mine is not None:
                agent = self._agent_view(state, mine)
        return {"season": season, "agent": agent}

    def _agent_view(self, state: SeasonState, agent: AgentState) -> dict[str, Any]:
        now = self.service.clock.now()
        changes = [t for t, _ in agent.prompts[1:] if t.date() == now.date()]
        summaries = latest_summaries(s.event for s in self.service.store.events(state.stream))
        summary = summaries.get(agent.agent)
        return {
            "id": agent.agent,
            "season": state.season_id,
            "name": agent.name,
            "division": agent.division.value,
            "model": agent.spec.split(",")[0],  # the model, without its recorded options
            "prompt": agent.prompts[-1][1] if agent.prompts else "",
            "prompt_changes_left_today": max(
                0, self.config.preset.prompt_changes_per_day - len(changes)
            ),
            "paused": agent.paused,
            "key": mask(agent.key_last4) if agent.key_last4 is not None else None,
            "summary": summary.shown if summary is not None else None,
            "created_at": iso(agent.created_at),
        }

    # -- the agent -------------------------------------------------------------------------

    def _pro_spec(self, model: str | None) -> str:
        if model is None or not model.strip() or len(model) > 300:
            raise ServiceError(422, "invalid_model", "A Pro agent needs a model, openai:MODEL@URL.")
        try:
            spec = parse_agent_spec(model.strip())
        except ConfigError:
            raise ServiceError(
                422, "invalid_model", "The model is not a spec like openai:MODEL@URL."
            ) from None
        if spec.kind != "openai" or spec.base_url is None or spec.options:
            raise ServiceError(
                422, "invalid_model", "A Pro model is openai:MODEL@URL, with no options."
            )
        if spec.base_url.rstrip("/") not in self._endpoints:
            raise ServiceError(
                422, "endpoint_not_allowed", "This server does not call that model endpoint."
            )
        return f"openai:{spec.target}@{spec.base_url}"

    def create_agent(
        self,
        wallet: str,
        *,
        name: str,
        division: Division,
        prompt: str,
        model: str | None = None,
        key: str | None = None,
    ) -> dict[str, Any]:
        """Create the wallet's one agent in the season (W-REC-1), Open or Pro.

        Raises
        ------
        ServiceError
            404 ``no_season``; 409 ``agent_exists`` or ``division_full``; 422
            for a bad name, prompt, model or key; 503 ``vault_unavailable``
            when a Pro key cannot be stored.
        """
        state = self._season()
        name = _text(name, "name", MAX_NAME_CHARS)
        prompt = _text(prompt, "prompt", MAX_PROMPT_CHARS)
        if self._mine(state, wallet) is not None:  # W-REC-1
            raise ServiceError(409, "agent_exists", "This wallet already has an agent this season.")
        size = sum(a.division is division for a in state.agents.values())
        if size >= division_cap(division, state.preset):
            raise ServiceError(409, "division_full", f"The {division.value} division is full.")
        secret: Secret | None = None
        if division is Division.PRO:
            spec = self._pro_spec(model)
            if key is None:
                raise ServiceError(422, "invalid_key", "A Pro agent needs the owner's model key.")
            secret = _key(key)
            if not self.keys.enabled:
                raise ServiceError(
                    503, "vault_unavailable", "This server stores no model keys; ask the operator."
                )
        else:
            spec = resolve_cutoffs([HOUSE_SPEC])[0]  # the house model's cutoff, with its source
        try:
            agent = ops.add_agent(
                self.service.store,
                self.service.clock,
                state,
                name=name,
                owner=wallet,
                division=division,
                spec=spec,
                prompt=prompt,
                key_last4=secret.last4 if secret is not None else None,
            )
        except ConfigError:
            raise ServiceError(409, "cannot_join", "The season takes no new agents now.") from None
        if secret is not None:
            self.keys.put(state.season_id, agent, wallet, secret, self.service.clock.now())
        return self._agent_view(self._state(state.season_id), self._state_agent(state, agent))

    def _state_agent(self, state: SeasonState, agent: str) -> AgentState:
        return self._state(state.season_id).agents[agent]

    def change_prompt(self, wallet: str, prompt: str) -> dict[str, Any]:
        """Change the agent's prompt from the next round (W-REC-2).

        Raises
        ------
        ServiceError
            429 ``prompt_changes_exhausted`` with ``retry_at`` (the next UTC
            midnight) after the day's third change.
        """
        prompt = _text(prompt, "prompt", MAX_PROMPT_CHARS)
        state, agent = self._agent(wallet)
        now = self.service.clock.now()
        today = [t for t, _ in agent.prompts[1:] if t.date() == now.date()]
        midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), now.tzinfo)
        exhausted = ServiceError(
            429,
            "prompt_changes_exhausted",
            f"The prompt can change {state.preset.prompt_changes_per_day} times a UTC day; "
            "try again after midnight UTC.",
            {"retry_at": iso(midnight)},
        )
        if len(today) >= state.preset.prompt_changes_per_day:  # W-REC-2
            raise exhausted
        try:  # counted again in the log, under the append's lock (another server may change it)
            ops.change_prompt(self.service.store, self.service.clock, state, agent.agent, prompt)
        except ConfigError:
            raise exhausted from None
        return self._agent_view(self._state(state.season_id), self._state_agent(state, agent.agent))

    def replace_key(self, wallet: str, key: str) -> dict[str, Any]:
        """Replace a Pro agent's model key (sealed; only its last four are recorded)."""
        secret = _key(key)
        state, agent = self._agent(wallet)
        if agent.division is not Division.PRO:
            raise ServiceError(409, "not_pro", "Only a Pro agent uses its owner's key.")
        try:
            self.keys.put(state.season_id, agent.agent, wallet, secret, self.service.clock.now())
        except KeyUnreadable:
            raise ServiceError(
                503, "vault_unavailable", "This server stores no model keys; ask the operator."
            ) from None
        ops.change_key(self.service.store, self.service.clock, state, agent.agent, secret.last4)
        return self._agent_view(self._state(state.season_id), self._state_agent(state, agent.agent))

    def resume(self, wallet: str) -> dict[str, Any]:
        """Resume the paused agent (W-VAL-9: after the owner fixed the key or model)."""
        state, agent = self._agent(wallet)
        if not agent.paused:
            raise ServiceError(409, "not_paused", "The agent is not paused.")
        ops.resume_agent(self.service.store, self.service.clock, state, agent.agent)
        return self._agent_view(self._state(state.season_id), self._state_agent(state, agent.agent))


def summarizer(
    service: AccountHost,
    gateway: Callable[[], Gateway],
    *,
    provider: str,
    model: str,
    preset: WeightsPreset | None = None,
) -> Summarize:
    """Return a `Summarize` that asks ``model`` through a gateway (W-REC-3, C-5).

    ``gateway`` makes a gateway for one summary, closed when it is written (the
    summary runs on the server's event loop, after the owner's answer). A
    failed summary is logged and leaves the agent as it is: the prompt change
    it follows has already been recorded.
    """

    async def write(season: str, agent: str) -> None:
        made = gateway()
        try:
            state = ops.load_season(service.store, season, preset)
            await summarize_strategy(
                service.store, service.clock, state, agent, made, provider=provider, model=model
            )
        except Exception as exc:  # a summary is best effort; the owner's action stands
            _log.warning("no strategy summary for agent %s: %s", agent, type(exc).__name__)
        finally:
            await made.aclose()

    return write


def house_summarizer(service: AccountHost, preset: WeightsPreset | None = None) -> Summarize | None:
    """Return a `Summarize` on the house model, or ``None`` where it cannot run here."""
    from tradeleague.llm.local import LocalProvider, bundled_model_path

    if importlib.util.find_spec("llama_cpp") is None or bundled_model_path() is None:
        return None

    def gateway() -> Gateway:
        return Gateway([LocalProvider()])

    return summarizer(service, gateway, provider="local", model="house", preset=preset)
