"""The studio's web application: pages rendered on the server, fragments swapped in by app.js.

Every route reads or writes through ``StudioState`` (one person, one folder); every path comes in
relative to the folder and goes through ``resolve_inside``; every user problem is a
``HidekitError`` shown as one line in the page.
"""

from __future__ import annotations

import logging
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from hidekit.errors import HidekitError
from hidekit.studio import views, views_work
from hidekit.studio.charts import cell_text, class_size_chart, label_color
from hidekit.studio.plan import presets
from hidekit.studio.security import DEFAULT_MAX_BODY, BodyTooLarge, Guard
from hidekit.studio.state import StudioState
from hidekit.studio.tasks import page_message

log = logging.getLogger("hidekit.studio")

templates = Environment(
    loader=PackageLoader("hidekit.studio", "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)
templates.globals["class_size_chart"] = class_size_chart
templates.globals["step_presets"] = presets
templates.filters["cell"] = cell_text
templates.globals["label_color"] = label_color


def _error_response(request: Request, message: str, status: int) -> Response:
    """A readable message: a fragment for the page's scripts, a whole page otherwise."""
    if request.headers.get("x-studio-fragment"):
        return HTMLResponse(templates.get_template("error.html").render(message=message), status)
    page = templates.get_template("page_error.html").render(message=message, state=None)
    return HTMLResponse(page, status)


async def _hidekit_error(request: Request, exc: Exception) -> Response:
    return _error_response(request, page_message(exc), 400)


async def _too_large(request: Request, exc: Exception) -> Response:
    return _error_response(request, "refused: the upload is larger than the studio's limit", 413)


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.error("studio: %s: %s", type(exc).__name__, exc)  # the terminal, never the page
    return _error_response(
        request, f"something went wrong ({type(exc).__name__}); the terminal says more", 500
    )


def create_app(
    folder: Path,
    *,
    token: str,
    hosts: set[str],
    max_body: int = DEFAULT_MAX_BODY,
    open_path: str | None = None,
) -> Guard:
    """The studio over ``folder``, behind its guard (token, host, origin, body size)."""
    state = StudioState(Path(folder), templates=templates, max_upload=max_body)
    routes: list[BaseRoute] = [
        Route(path, endpoint, methods=methods)
        for path, endpoint, methods in views.ROUTES + views_work.ROUTES
    ]
    static = Path(__file__).with_name("static")
    routes.append(Mount("/static", app=StaticFiles(directory=static), name="static"))
    app = Starlette(
        routes=routes,
        exception_handlers={
            HidekitError: _hidekit_error,
            BodyTooLarge: _too_large,
            Exception: _unexpected,
        },
    )
    app.state.studio = state
    app.state.start = open_path
    return Guard(app, token=token, hosts=hosts, max_body=max_body)
