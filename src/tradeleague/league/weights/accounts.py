"""The weights league's side of an owner's account: one agent, its prompt, key and pause.

The weights format's ``account`` part (``api.account.plugin.AccountPart``):
a desk on `Owners` that adds the season and the wallet's agent to the account,
the routes under ``/api/v1/account/agent`` and the ``/account/agent`` forms.
After a new agent or a new prompt, the strategy summary is written in the
background (W-REC-3) when the server was given a summarizer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final

from fastapi import APIRouter, BackgroundTasks, Request, Response
from pydantic import BaseModel, Field

from tradeleague.accounts import AccountHost
from tradeleague.accounts.idempotency import fingerprint
from tradeleague.api.account.models import closed
from tradeleague.api.account.plugin import PageAction
from tradeleague.api.account.routes import Accounts, Writer, answer, desk_router, once, writer
from tradeleague.api.account.settings import AccountSettings
from tradeleague.api.app import IdempotencyHeader, idempotency_key
from tradeleague.errors import ServiceError
from tradeleague.formats.weights import Division
from tradeleague.keys import KeyVault, MasterKeyError
from tradeleague.keys.stored import OwnerKeys
from tradeleague.league.bodies import answer_of
from tradeleague.league.weights.models import OwnedAgentOut
from tradeleague.league.weights.owners import (
    KEY_PATTERN,
    MAX_KEY_CHARS,
    MAX_NAME_CHARS,
    MAX_PROMPT_CHARS,
    OwnerConfig,
    Owners,
)
from tradeleague.untrusted import VISIBLE

__all__ = ["ACCOUNT", "AgentIn", "KeyIn", "PromptIn", "WeightsDesk"]

_MAX_FIELD: Final = 20_000


def _read_as(limit: int, pattern: str) -> dict[str, Any]:
    """Return what the document says of a text field: the bound and pattern `Owners` reads by.

    The owners' own checks refuse the rest with their sentence (``invalid_key``,
    "The prompt is empty."); the model's looser bound only stops a huge body.
    """
    return {"maxLength": limit, "pattern": pattern}


class AgentIn(BaseModel):
    """A new weights agent: Open (the house model) or Pro (the owner's model and key)."""

    model_config = closed(
        {"name": "steady", "division": "open", "prompt": "Hold the index, trim losers."}
    )
    name: Annotated[
        str,
        Field(
            max_length=MAX_NAME_CHARS * 4,
            json_schema_extra=_read_as(MAX_NAME_CHARS, VISIBLE),
            description="Its name on the boards.",
        ),
    ]
    division: Division = Field(description="open (the house model) or pro (your own model).")
    prompt: Annotated[
        str,
        Field(
            max_length=MAX_PROMPT_CHARS * 4,
            json_schema_extra=_read_as(MAX_PROMPT_CHARS, VISIBLE),
            description="What the model is told each round.",
        ),
    ]
    model: Annotated[str | None, Field(max_length=300, description="Pro: openai:MODEL@URL.")] = None
    key: Annotated[
        str | None,
        Field(
            max_length=MAX_KEY_CHARS,
            json_schema_extra=_read_as(MAX_KEY_CHARS, KEY_PATTERN),
            description="Pro: your model key.",
        ),
    ] = None


class PromptIn(BaseModel):
    """The agent's new prompt."""

    model_config = closed({"prompt": "Hold cash on Fridays."})
    prompt: Annotated[
        str,
        Field(
            max_length=MAX_PROMPT_CHARS * 4,
            json_schema_extra=_read_as(MAX_PROMPT_CHARS, VISIBLE),
            description="The new prompt, from the next round.",
        ),
    ]


class KeyIn(BaseModel):
    """A Pro agent's replacement model key."""

    model_config = closed({"key": "sk-…"})
    key: Annotated[
        str,
        Field(
            max_length=MAX_KEY_CHARS,
            json_schema_extra=_read_as(MAX_KEY_CHARS, KEY_PATTERN),
            description="The model key (stored sealed).",
        ),
    ]


def _field(form: Mapping[str, str], name: str) -> str:
    return form.get(name, "")[:_MAX_FIELD]


class WeightsDesk:
    """The weights league's desk on one server (``api.account.plugin.OwnerDesk``).

    Parameters
    ----------
    owners
        The owners' actions, with the server's summarizer.
    """

    facts = "weights_account_facts.html"
    section = "weights_account.html"

    def __init__(self, owners: Owners) -> None:
        self.owners = owners

    def view(self, wallet: str) -> dict[str, Any]:
        """Return the season owners join and the wallet's agent in it."""
        return self.owners.view(wallet)

    def _summary(self, tasks: BackgroundTasks, agent: dict[str, Any]) -> None:
        summarize = self.owners.summarize
        if summarize is not None:
            tasks.add_task(summarize, str(agent["season"]), str(agent["id"]))

    def router(self) -> APIRouter:
        """Return ``/api/v1/account/agent`` and its actions."""
        router = desk_router()
        owners = self.owners

        @router.post(
            "/agent",
            status_code=201,
            summary="Create the wallet's weights agent",
            description=(
                "Enter the wallet's agent in the season owners join: a name, a division, a "
                "prompt (and for Pro a model and its key). One agent per wallet. Needs the "
                "and its CSRF token."
            ),
            responses=answer_of(OwnedAgentOut, 201),
        )
        async def create_agent(
            body: AgentIn,
            request: Request,
            tasks: BackgroundTasks,
            sent: Writer,
            idempotency: IdempotencyHeader = None,
        ) -> Response:
            key = idempotency_key(idempotency, None)
            digest = fingerprint("POST", "/account/agent", body.model_dump(mode="json"))

            def work(a: Accounts) -> Response:
                wallet = writer(a, sent).wallet

                def act() -> tuple[int, dict[str, Any]]:
                    made = owners.create_agent(
                        wallet,
                        name=body.name,
                        division=body.division,
                        prompt=body.prompt,
                        model=body.model,
                        key=body.key,
                    )
                    self._summary(tasks, made)
                    return 201, {"agent": made}

                return once(a, wallet, key, digest, act)[0]

            return await answer(request, work)

        @router.post(
            "/agent/prompt",
            summary="Change the agent's prompt (three times a UTC day)",
            description=(
                "Replace the agent's prompt; it takes effect at the next round. At most three"
                " changes per UTC day. Needs the session and its CSRF token."
            ),
            responses=answer_of(OwnedAgentOut),
        )
        async def change_prompt(
            body: PromptIn,
            request: Request,
            tasks: BackgroundTasks,
            sent: Writer,
            idempotency: IdempotencyHeader = None,
        ) -> Response:
            key = idempotency_key(idempotency, None)
            digest = fingerprint("POST", "/account/agent/prompt", {"prompt": body.prompt})

            def work(a: Accounts) -> Response:
                wallet = writer(a, sent).wallet

                def act() -> tuple[int, dict[str, Any]]:
                    made = owners.change_prompt(wallet, body.prompt)
                    self._summary(tasks, made)
                    return 200, {"agent": made}

                return once(a, wallet, key, digest, act)[0]

            return await answer(request, work)

        @router.put(
            "/agent/key",
            summary="Replace the Pro agent's model key",
            description=(
                "Replace the model key a Pro agent calls its model with (stored sealed; only "
                "its last four are shown). Needs the session and its CSRF token."
            ),
            responses=answer_of(OwnedAgentOut),
        )
        async def replace_key(
            body: KeyIn,
            request: Request,
            sent: Writer,
            idempotency: IdempotencyHeader = None,
        ) -> Response:
            key = idempotency_key(idempotency, None)
            digest = fingerprint("PUT", "/account/agent/key", {"key": body.key})

            def work(a: Accounts) -> Response:
                wallet = writer(a, sent).wallet

                def act() -> tuple[int, dict[str, Any]]:
                    return 200, {"agent": owners.replace_key(wallet, body.key)}

                return once(a, wallet, key, digest, act)[0]

            return await answer(request, work)

        @router.post(
            "/agent/resume",
            summary="Resume the paused agent",
            description=(
                "Resume the paused agent, once its key or model is fixed. Needs the session "
                "and its CSRF token."
            ),
            responses=answer_of(OwnedAgentOut),
        )
        async def resume(
            request: Request,
            sent: Writer,
            idempotency: IdempotencyHeader = None,
        ) -> Response:
            key = idempotency_key(idempotency, None)
            digest = fingerprint("POST", "/account/agent/resume", {})

            def work(a: Accounts) -> Response:
                wallet = writer(a, sent).wallet

                def act() -> tuple[int, dict[str, Any]]:
                    return 200, {"agent": owners.resume(wallet)}

                return once(a, wallet, key, digest, act)[0]

            return await answer(request, work)

        return router

    def actions(self) -> Mapping[str, PageAction]:
        """Return the ``/account/agent`` forms: create, prompt, key, resume."""
        owners = self.owners

        def create_agent(wallet: str, form: Mapping[str, str], tasks: BackgroundTasks) -> str:
            division = _field(form, "division")
            if division not in (d.value for d in Division):
                raise ServiceError(422, "invalid_request", "Choose the Open or the Pro division.")
            pro = division == Division.PRO.value
            made = owners.create_agent(
                wallet,
                name=_field(form, "name"),
                division=Division(division),
                prompt=_field(form, "prompt"),
                model=_field(form, "model") if pro else None,
                key=_field(form, "key") if pro else None,
            )
            self._summary(tasks, made)
            return "Your agent is in the season."

        def prompt(wallet: str, form: Mapping[str, str], tasks: BackgroundTasks) -> str:
            made = owners.change_prompt(wallet, _field(form, "prompt"))
            self._summary(tasks, made)
            return "The new prompt takes effect from the next round."

        def key(wallet: str, form: Mapping[str, str], tasks: BackgroundTasks) -> str:
            owners.replace_key(wallet, _field(form, "key"))
            return "The key is replaced; resume the agent if it was paused."

        def resume(wallet: str, form: Mapping[str, str], tasks: BackgroundTasks) -> str:
            owners.resume(wallet)
            return "The agent plays again from the next round."

        return {
            "/account/agent": create_agent,
            "/account/agent/prompt": prompt,
            "/account/agent/key": key,
            "/account/agent/resume": resume,
        }


class _Account:
    """The weights league's ``account`` part: a `WeightsDesk` on a server."""

    def open(self, service: AccountHost, settings: AccountSettings) -> WeightsDesk:
        """Return the desk with ``settings``' season, rules, endpoints, vault and summarizer.

        Raises
        ------
        TypeError
            ``settings.owners`` is neither ``None`` nor an `OwnerConfig`.
        """
        config = settings.owners if settings.owners is not None else OwnerConfig()
        if not isinstance(config, OwnerConfig):
            raise TypeError(f"the weights league's owners are an OwnerConfig, not {config!r}")
        vault = settings.vault
        if vault is None:
            try:
                vault = KeyVault.from_env()
            except MasterKeyError:
                vault = None
        keys = OwnerKeys(service.store, vault)
        return WeightsDesk(Owners(service, keys, config, settings.summarize))


ACCOUNT: Final = _Account()
"""The weights league's ``account`` part."""
