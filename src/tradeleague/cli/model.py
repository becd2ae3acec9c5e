"""CLI commands: ``tradeleague model ...`` (the offline house model, for other tools)."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register"]

MODEL_HELP = """Run the offline house model for other tools: serve it over OpenAI-compatible HTTP.

Example: tradeleague model serve --port 8090
"""


def serve_command(
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on; 0 picks a free one.")] = 8090,
    model: Annotated[
        Path | None,
        typer.Option(
            "--model",
            metavar="PATH",
            help="A GGUF model file (default: TRADELEAGUE_HOUSE_MODEL, else the bundled "
            "SmolLM2-135M-Instruct of tradeleague[local]).",
        ),
    ] = None,
    threads: Annotated[
        int | None,
        typer.Option(help="CPU threads per answer (default: half the cores, at most 4)."),
    ] = None,
    name: Annotated[str, typer.Option(help="The model's name in /v1/models.")] = "house",
    exact: Annotated[
        bool,
        typer.Option(
            "--exact",
            help="Follow a request's schema exactly, without the house model's habits "
            "(reasons of 1 to 120 characters that do not copy the prompt's placeholder, "
            "numbers of at most two decimals).",
        ),
    ] = False,
) -> None:
    """Serve the house model (or any GGUF file) over OpenAI-compatible HTTP until stopped.

    GET /v1/models lists it; POST /v1/chat/completions answers, honouring
    response_format (json_schema, or json_object with a schema) and a GBNF grammar,
    so any OpenAI client can use it. It loads the model as local:house does (with
    llama.cpp's extra CPU buffer types off), so it runs where python -m
    llama_cpp.server crashes. It prints "listening on URL" once it answers.

    Example: tradeleague model serve --port 8090, then in another shell
    tradeleague replay weights --market ../shared/data/us_equities_daily
    --agent house=openai:house@http://127.0.0.1:8090/v1,output=json_schema
    --agent cash=baseline:cash
    """
    import uvicorn

    from tradeleague.llm.serve import create_app

    app = create_app(model, name=name, n_threads=threads, house_habits=not exact)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", ws="none")
    )
    typer.echo(f"listening on http://{shown}:{bound}/v1 (model {name}); Ctrl-C stops it")
    server.run(sockets=[sock])


def register(app: typer.Typer) -> None:
    """Add the ``model`` group with ``serve`` to ``app``."""
    group = typer.Typer(name="model", help=MODEL_HELP, no_args_is_help=True)
    group.command("serve")(serve_command)
    app.add_typer(group, name="model")
