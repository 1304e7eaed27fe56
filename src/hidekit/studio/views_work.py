"""The studio's routes for longer work: key selection, the hierarchy editor, and the progress of
any task (polled by the page until the result replaces the bar)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from hidekit.errors import InputError
from hidekit.selection import METHODS
from hidekit.selection.criteria import CRITERIA
from hidekit.studio import hierarchy as editor
from hidekit.studio.notes_model import Retrained, retrain, text_risk
from hidekit.studio.selection import SelectionRequest, run_selection, selection_view
from hidekit.studio.state import StudioState
from hidekit.studio.tasks import Task

QUICK = 0.5  # seconds a route waits for its task before answering with a progress bar


def _state(request: Request) -> StudioState:
    return request.app.state.studio


def task_fragment(state: StudioState, task: Task) -> Response:
    """A running task's progress bar (the page polls it), or its result once done."""
    if not task.done:
        return HTMLResponse(state.render("task.html", task=task))
    if task.error is not None:
        state.tasks.tasks.pop(task.id, None)
        raise InputError(task.error)
    assert task.view is not None
    return HTMLResponse(task.view(task.result))


async def start_task(
    state: StudioState, title: str, work: Callable[[Task], Any], view: Callable[[Any], str]
) -> Response:
    """Start the work; quick work answers with its result, longer work with a progress bar."""
    task = state.tasks.start(title, work, view)
    waited = 0.0
    while not task.done and waited < QUICK:  # the page's other requests are served meanwhile
        await asyncio.sleep(0.05)
        waited += 0.05
    return task_fragment(state, task)


async def task_status(request: Request) -> Response:
    state = _state(request)
    return task_fragment(state, state.tasks.get(request.query_params.get("id", "")))


async def select_page(request: Request) -> Response:
    state = _state(request)
    bench = state.require_table()
    return HTMLResponse(
        state.render("select.html", bench=bench, methods=METHODS, criteria=CRITERIA, page="select")
    )


async def run_select(request: Request) -> Response:
    """Start the selection on the keys ticked; the steps and the plot replace the progress bar."""
    state = _state(request)
    bench = state.require_table()
    form = await request.form()
    ask = SelectionRequest.from_form(bench, form, form.multi_items())

    def view(result: Any) -> str:
        return state.render("select_result.html", **selection_view(result))

    return await start_task(
        state, f"{ask.method} selection", lambda task: run_selection(bench, ask, task), view
    )


async def use_selection(request: Request) -> Response:
    """The keys chosen become the key role; the other candidates become "other"."""
    state = _state(request)
    bench = state.require_table()
    form = await request.form()
    chosen = [str(v) for v in form.getlist("selected")]
    roles = {str(c): "other" for c in form.getlist("candidate")} | dict.fromkeys(chosen, "key")
    bench.set_roles(roles)
    return HTMLResponse(state.render("select_used.html", keys=chosen))


async def hierarchy_page(request: Request) -> Response:
    state = _state(request)
    bench = state.require_table()
    column = request.query_params.get("column") or editor.first_column(bench)
    return HTMLResponse(
        state.render(
            "hierarchy.html", bench=bench, edit=editor.editor_for(bench, column), page="hierarchy"
        )
    )


async def hierarchy_preview(request: Request) -> Response:
    """The column after the bins or groups drawn, its counts, and k and RP after (not added)."""
    state = _state(request)
    bench = state.require_table()
    form = await request.form()
    use, params = editor.step_from_form(bench, form, form.multi_items())
    preview = editor.preview(bench, use, params)
    return HTMLResponse(state.render("hierarchy_preview.html", preview=preview))


async def hierarchy_add(request: Request) -> Response:
    """The bins or groups as a step of the plan (``bin`` with edges, ``map_values``)."""
    state = _state(request)
    bench = state.require_table()
    form = await request.form()
    use, params = editor.step_from_form(bench, form, form.multi_items())
    applied = bench.apply(use, params)
    return HTMLResponse(
        state.render("hierarchy_added.html", applied=applied, number=len(bench.steps))
    )


async def retrain_notes(request: Request) -> Response:
    """Save the corrections as brat, train a model on them, show old and new scores per type."""
    state = _state(request)
    bench = state.require_notes()
    out = state.path(bench.source + "-reviewed")
    model = state.path(bench.source + "-reviewed.model")

    def work(task: Task) -> Retrained:
        bench.save(out, progress=task)
        return retrain(out, model, bench.model, task)

    def view(done: Any) -> str:
        return state.render("retrained.html", r=done, model_name=state.name(done.model))

    return await start_task(state, "retraining", work, view)


async def notes_text_risk(request: Request) -> Response:
    """The text-risk verdict of the shipped model's output, judged against the corrections."""
    state = _state(request)
    bench = state.require_notes()

    def work(task: Task) -> dict:
        return text_risk(bench.documents(task), bench.detect_text, task)

    def view(done: Any) -> str:
        return state.render("text_risk.html", risk=done)

    return await start_task(state, "text risk", work, view)


Endpoint = Callable[[Request], Any]
ROUTES: list[tuple[str, Endpoint, list[str]]] = [
    ("/api/task", task_status, ["GET"]),
    ("/select", select_page, ["GET"]),
    ("/api/select", run_select, ["POST"]),
    ("/api/select/use", use_selection, ["POST"]),
    ("/hierarchy", hierarchy_page, ["GET"]),
    ("/api/hierarchy/preview", hierarchy_preview, ["POST"]),
    ("/api/hierarchy/add", hierarchy_add, ["POST"]),
    ("/api/notes/retrain", retrain_notes, ["POST"]),
    ("/api/notes/text-risk", notes_text_risk, ["POST"]),
]
