"""The studio's routes: each reads the form, calls the library, renders a page or a fragment."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from hidekit.errors import InputError, OptionError
from hidekit.studio import plan as studio_plan
from hidekit.studio.notes import cut_at_spans
from hidekit.studio.state import StudioState
from hidekit.studio.tasks import Task
from hidekit.studio.views_work import start_task
from hidekit.studio.workbench import ROLES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# A report opened from the studio runs nothing and reaches nothing: styles and inline images only.
REPORT_POLICY = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _state(request: Request) -> StudioState:
    return request.app.state.studio


def _html(text: str, **headers: str) -> HTMLResponse:
    return HTMLResponse(text, headers=headers or None)


async def index(request: Request) -> Response:
    state = _state(request)
    start = request.app.state.start
    if start:  # --demo / a file given: open it once, then the table page
        request.app.state.start = None
        state.open_table(start)
        return RedirectResponse("/table", 303)
    return _html(state.render("files.html", entries=state.entries()))


async def table_page(request: Request) -> Response:
    state = _state(request)
    path = request.query_params.get("path")
    if path:
        state.open_table(path)
        return RedirectResponse("/table", 303)
    bench = state.require_table()
    return _html(
        state.render(
            "table.html",
            bench=bench,
            live=bench.risk(),
            step_choices=studio_plan.STEP_CHOICES,
            roles=ROLES,
            sample=bench.sample(),
            records=bench.engine.n_records,
        )
    )


def _int(form: Any, name: str, default: int) -> int:
    raw = form.get(name)
    if raw in (None, ""):
        return default
    try:
        return int(str(raw))
    except ValueError:
        raise OptionError(f"{name} must be a whole number, got {raw!r}") from None


async def risk_fragment(request: Request) -> Response:
    """Roles and targets from the form, then the risk panel for the keys ticked."""
    state = _state(request)
    form = await request.form()
    bench = state.require_table()
    roles = {k[5:]: str(v) for k, v in form.multi_items() if k.startswith("role:")}
    bench.set_roles(roles)
    bench.set_targets(_int(form, "k", bench.k_target), _int(form, "cell_min", bench.cell_min))
    return _html(state.render("risk.html", bench=bench, live=bench.risk()))


def parse_params(text: str) -> dict:
    """A step's parameters as TOML lines (``columns = ["age"]``), one-line error otherwise."""
    try:
        return tomllib.loads(text or "")
    except tomllib.TOMLDecodeError as exc:
        raise OptionError(f"the step's parameters are not valid TOML: {exc}") from None


async def add_step(request: Request) -> Response:
    state = _state(request)
    bench = state.require_table()
    form = await request.form()
    use = str(form.get("use") or "").strip()
    if not use:
        raise OptionError("choose a step")
    bench.apply(use, parse_params(str(form.get("params") or "")))
    return _plan_fragment(state)


async def undo_step(request: Request) -> Response:
    state = _state(request)
    state.require_table().undo()
    return _plan_fragment(state)


def _plan_fragment(state: StudioState) -> Response:
    bench = state.require_table()
    return _html(
        state.render("plan.html", bench=bench, loss=bench.utility_lost()),
        **{"X-Studio-Refresh": "risk"},
    )


async def plan_toml(request: Request) -> Response:
    state = _state(request)
    text = studio_plan.export_toml(state.require_table())
    name = studio_plan.plan_name(state.require_table())
    return Response(
        text,
        media_type="application/toml",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


async def save_plan(request: Request) -> Response:
    state = _state(request)
    path = studio_plan.save_plan(state, state.require_table())
    return _html(state.render("saved.html", name=state.name(path)))


async def run_release(request: Request) -> Response:
    """Save the plan, run it; the passphrase lives in this request only."""
    state = _state(request)
    form = await request.form()
    bench = state.require_table()
    overwrite = bool(form.get("overwrite"))
    secret = [str(form.get("passphrase") or "") or None]  # handed to the run, then dropped

    def work(task: Task) -> tuple:
        passphrase, secret[0] = secret[0], None
        return studio_plan.release(
            state, bench, passphrase=passphrase, overwrite=overwrite, progress=task
        )

    def view(done: tuple) -> str:
        result, plan_path = done
        return state.render(
            "released.html",
            result=result,
            plan_name=state.name(plan_path),
            out_name=state.name(result.plan.output),
        )

    return await start_task(state, "release", work, view)


async def view_file(request: Request) -> Response:
    """An HTML report from the folder, sandboxed (no script, no request out)."""
    state = _state(request)
    path = state.path(request.query_params.get("path", ""))
    if not path.is_file() or path.suffix.lower() != ".html":
        raise InputError(f"{state.name(path)}: only HTML reports can be viewed")
    return FileResponse(
        path, media_type="text/html", headers={"Content-Security-Policy": REPORT_POLICY}
    )


async def upload(request: Request) -> Response:
    """A table uploaded into the folder (never over an existing file), atomically, owner-only."""
    state = _state(request)
    form = await request.form(max_files=1, max_fields=10, max_part_size=state.max_upload)
    item = form.get("file")
    if item is None or isinstance(item, str) or not item.filename:
        raise InputError("choose a file to upload")
    data = await item.read()
    path = studio_plan.store_upload(state, item.filename, data)
    return _html(state.render("saved.html", name=state.name(path)))


async def notes_page(request: Request) -> Response:
    state = _state(request)
    path = request.query_params.get("path")
    if path:
        state.open_notes(path)
        return RedirectResponse("/notes", 303)
    bench = state.require_notes()
    note = bench.note(request.query_params.get("doc"))
    return _html(state.render("notes.html", bench=bench, note=note, labels=bench.labels()))


async def note_span(request: Request) -> Response:
    """One correction (accept, reject, relabel, add); the note is redrawn."""
    state = _state(request)
    form = dict((await request.form()).items())
    bench = state.require_notes()
    note = bench.note(str(form.get("doc") or ""))
    bench.act(note, str(form.get("action") or ""), form)
    return _html(
        state.render("note.html", note=note, labels=bench.labels(), selected=form.get("id"))
    )


async def preview_note(request: Request) -> Response:
    """The note anonymized with the operator chosen, beside the original."""
    state = _state(request)
    form = await request.form()
    bench = state.require_notes()
    note = bench.note(str(form.get("doc") or ""))
    operator = str(form.get("operator") or "tag")
    out = bench.preview(note, operator)
    return _html(
        state.render(
            "preview.html", doc=out, operator=operator, pieces=cut_at_spans(out.text, out.spans)
        )
    )


async def save_notes(request: Request) -> Response:
    state = _state(request)
    bench = state.require_notes()
    out = state.path(bench.source + "-reviewed")
    folder, spans = bench.save(out)
    return _html(state.render("saved.html", name=f"{state.name(folder)}/ ({spans} spans)"))


Endpoint = Callable[[Request], Any]
ROUTES: list[tuple[str, Endpoint, list[str]]] = [
    ("/", index, ["GET"]),
    ("/table", table_page, ["GET"]),
    ("/api/risk", risk_fragment, ["POST"]),
    ("/api/step", add_step, ["POST"]),
    ("/api/undo", undo_step, ["POST"]),
    ("/api/plan.toml", plan_toml, ["GET"]),
    ("/api/plan/save", save_plan, ["POST"]),
    ("/api/release", run_release, ["POST"]),
    ("/notes", notes_page, ["GET"]),
    ("/api/notes/span", note_span, ["POST"]),
    ("/api/notes/save", save_notes, ["POST"]),
    ("/api/notes/preview", preview_note, ["POST"]),
    ("/view", view_file, ["GET"]),
    ("/api/upload", upload, ["POST"]),
]
