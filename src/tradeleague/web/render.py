"""The site's kit for pages: the template environment, the renderer, the 404 guard, the filters.

Every page of every format is rendered here: Jinja2 templates that escape
every value, loaded from ``web/templates`` (the layout, the 404 page, the
cloud figure, the shared pages) and from each format's own template folder.
Text that the read models already made safe (HTML-escaped model and user
text) is unescaped once by `shown` before the template escapes it again, so
it shows exactly as written, escaped once. Charts are inline SVG from
``web.charts``, each with its numbers in a table.

A format's pages import this kit (`Pages`, `shown`, `usd`, `cloud`); the
site hands each format one `Pages` built on its own environment.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi.responses import HTMLResponse
from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PackageLoader,
    select_autoescape,
)
from markupsafe import Markup

from tradeleague import __version__
from tradeleague.agents.cutoff import cutoff_words
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ServiceError
from tradeleague.stats.alpha import alpha_words
from tradeleague.stats.verdicts import verdict_words
from tradeleague.web.cards import label_cells
from tradeleague.web.charts import (
    RaceLine,
    cloud_chart,
    line_chart,
    race_chart,
    scatter_chart,
    sparkline,
)
from tradeleague.web.errors import NotFound
from tradeleague.web.formatting import (
    change,
    code,
    drawdown,
    money,
    pct,
    prose,
    qty,
    readable,
    when,
)

__all__ = ["Pages", "cloud", "environment", "race", "shown", "usd", "versus"]


def shown(text: object) -> str:
    """Return read-model text (already HTML-escaped) as plain text for the template to escape.

    The read models escape model and user text once for JSON; unescaping it
    here means the template's own escaping is the only one the page shows.
    """
    return "" if text is None else html.unescape(str(text))


def usd(text: object) -> str:
    """Return a money amount (decimal text) in dollars and cents: ``$99,987.76`` (`money`).

    The JSON keeps the exact value; a page shows it to the cent, rounded half up.
    """
    return money(text)


def _number(text: object) -> float:
    try:
        return float(str(text))
    except ValueError:
        return 0.0


def cloud(
    cloud: dict[str, Any] | None, board: str, marked: str, expected: object = None
) -> Markup | None:
    """Return a board's baseline cloud as SVG (its numbers are in the page's tables).

    ``cloud`` is the board JSON's ``baseline_cloud``; ``board`` names the board
    (``Pro division``), ``marked`` what each line is (``agent``, ``run``);
    ``expected`` the expected best return of the board's N no-skill agents, in
    percent (the format's luck line), drawn and labelled in the figure.
    """
    if cloud is None:
        return None
    bins = [(float(b["low"]), float(b["high"]), int(b["agents"])) for b in cloud["bins"]]
    marks = [(shown(m["name"]), float(m["season_return"])) for m in cloud["marks"]]
    label = (
        f"{board}: final returns of {cloud['agents']} agents with no skill, "
        f"each {marked}'s return marked"
    )
    line = None
    if expected is not None:
        line = (f"expected best of {len(marks)}: {float(str(expected)):+.2f}%", _number(expected))
    return Markup(  # noqa: S704 - numbers and escaped text
        cloud_chart(bins, marks, label, expected=line)
    )


def race(race: dict[str, Any] | None, board: str) -> Markup:
    """Return a board's ``race`` (its JSON key) as one SVG, one line per agent."""
    if not race:
        return Markup("")
    lines = [
        RaceLine(shown(line["name"]), [_number(v) for v in line["values"]], bool(line["baseline"]))
        for line in race["lines"]
    ]
    leader = None if race.get("leader") is None else shown(race["leader"])
    label = f"{board}: every agent's account value over the season, in dollars"
    return Markup(  # noqa: S704 - numbers and escaped text
        race_chart(lines, _number(race["start"]), label, leader=leader)
    )


def versus(versus: dict[str, Any] | None) -> Markup:
    """Return an agent page's ``versus`` (its JSON key) as one SVG: the agent and its benchmark.

    The agent's line is drawn as a leader's, the benchmark's lighter, each
    named at its line's end, from the shared starting value.
    """
    if not versus or not versus["points"]:
        return Markup("")
    agent, benchmark = shown(versus["agent"]), shown(versus["benchmark"])
    points = versus["points"]
    lines = [
        RaceLine(benchmark, [_number(p["benchmark"]) for p in points], baseline=True),
        RaceLine(agent, [_number(p["agent"]) for p in points]),
    ]
    label = f"{agent}'s account value against {benchmark}, in dollars"
    return Markup(  # noqa: S704 - numbers and escaped text
        race_chart(lines, _number(versus["start"]), label, leader=agent)
    )


def environment(folders: Iterable[Path] = ()) -> Environment:
    """Return the site's template environment: ``web/templates`` first, then ``folders``.

    ``folders`` are the formats' own template folders; a template's name is
    looked up in each in turn, so a format's templates extend ``base.html``
    and import ``cloud.html`` as the shared ones do.
    """
    loaders: list[BaseLoader] = [PackageLoader("tradeleague.web", "templates")]
    loaders.extend(FileSystemLoader(str(folder)) for folder in folders)
    env = Environment(
        loader=ChoiceLoader(loaders),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=readable,  # every value a page prints passes the one formatting layer
    )
    env.filters["shown"] = shown
    env.filters["usd"] = usd
    env.filters["seg"] = lambda text: quote(shown(text), safe="")
    env.filters["money"] = money
    env.filters["pct"] = pct
    env.filters["drawdown"] = drawdown
    env.filters["when"] = when
    env.filters["qty"] = qty
    env.filters["code"] = code
    env.filters["prose"] = prose
    env.globals["change"] = change
    env.globals["race_chart"] = race
    env.globals["versus_chart"] = versus
    env.filters["verdict"] = verdict_words
    env.filters["alpha_words"] = alpha_words
    env.filters["cutoff_words"] = cutoff_words
    env.filters["zip"] = lambda a, b: zip(a, b, strict=True)
    env.globals["line_chart"] = lambda values, label: Markup(  # noqa: S704 - numbers only
        line_chart([_number(v) for v in values], shown(label))
    )
    env.globals["sparkline"] = lambda values, label: Markup(  # noqa: S704 - numbers only
        sparkline([_number(v) for v in values], shown(label))
    )
    env.globals["scatter_chart"] = lambda points, fit, label: Markup(  # noqa: S704 - numbers only
        scatter_chart(
            [(_number(x), _number(y)) for x, y in points],
            None if fit is None else (_number(fit[0]), _number(fit[1])),
            shown(label),
        )
    )
    env.globals["DISCLAIMER"] = DISCLAIMER
    env.globals["version"] = __version__
    return env


class Pages:
    """Render the site's pages: a template with its values, a 404 page, a guarded build.

    Parameters
    ----------
    env
        The site's template environment (`environment`).
    """

    def __init__(self, env: Environment) -> None:
        self.env = env

    def page(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        """Return template ``name`` rendered with ``context`` (``title`` names the page)."""
        body = label_cells(self.env.get_template(name).render(**context))
        return HTMLResponse(body, status_code=status)

    def fragment(self, name: str, **context: Any) -> Markup:
        """Return template ``name`` rendered as a piece of another page (already escaped)."""
        return Markup(self.env.get_template(name).render(**context))  # noqa: S704 - autoescaped

    def missing(self, what: str) -> HTMLResponse:
        """Return the 404 page saying what is missing, as one sentence."""
        # one sentence, whether the reason came as "no season" or "There is no run 'x'."
        what = what.strip().rstrip(".")
        return self.page("404.html", 404, title="Not found", what=f"{what[:1].upper()}{what[1:]}.")

    def guarded(self, build: Callable[[], HTMLResponse]) -> HTMLResponse:
        """Return what ``build`` renders, or the 404 page when a read model raises `NotFound`.

        A read model's refusal (a `ServiceError` under 500, such as a name that
        several agents share) is a page at its status that says it in one sentence.
        """
        try:
            return build()
        except NotFound as exc:
            return self.missing(str(exc))
        except ServiceError as exc:
            if exc.status == 404:
                return self.missing(exc.message)
            if exc.status >= 500:
                raise
            return self.page("refused.html", exc.status, title="Refused", what=exc.message)
