"""Long work in the studio (a release, a selection, a retraining) run beside the page.

A task runs one library call in a thread; the call gets the task as its ``progress=`` (the jobs'
protocol: ``progress(n)`` advances, ``total`` / ``completed`` / ``description`` restart a phase).
The page polls the task's fragment: a progress bar while it runs, the result once it is done, or
the one-line message of a ``HidekitError``. Nothing of the call's arguments is kept on the task.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hidekit.errors import HidekitError, InputError

log = logging.getLogger("hidekit.studio")
TASKS_KEPT = 20  # finished tasks remembered (the oldest are forgotten first)


# the library's messages name the CLI's options; the page names its own controls instead
_PAGE_WORDS = {"(use --overwrite)": "(tick \u201creplace a previous release\u201d to replace it)"}


def page_message(exc: Exception) -> str:
    """The one-line message of an error, in the words of the studio's page."""
    message = str(exc)
    for cli_words, page_words in _PAGE_WORDS.items():
        message = message.replace(cli_words, page_words)
    return message


@dataclass
class Task:
    """One piece of work: its progress as the job reports it, then its result or its error."""

    id: str
    title: str
    completed: float = 0.0
    total: float | None = None
    description: str = ""
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    result: Any = None
    error: str | None = None
    view: Callable[[Any], str] | None = field(default=None, repr=False)  # result -> HTML
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __call__(self, n: float = 1, **state: Any) -> None:
        """The jobs' ``progress``: advance by ``n``; ``total``/``completed``/``description``
        (when given) start a new phase."""
        with self._lock:
            if "total" in state:
                self.total = None if state["total"] is None else float(state["total"])
            if "completed" in state:
                self.completed = float(state["completed"])
            if state.get("description"):
                self.description = str(state["description"])
            self.completed += float(n)

    def step(self, label: str) -> None:
        """A progress that names its steps (``select_variables``): one more step done."""
        self(1, description=f"step {label}")

    @property
    def done(self) -> bool:
        return self.finished is not None

    @property
    def share(self) -> float | None:
        """How far along, between 0 and 1 (None while the end is unknown)."""
        with self._lock:
            if not self.total:
                return None
            return max(0.0, min(1.0, self.completed / self.total))

    @property
    def elapsed(self) -> float:
        return (self.finished or time.monotonic()) - self.started

    def run(self, work: Callable[[Task], Any]) -> None:
        try:
            self.result = work(self)
        except HidekitError as exc:
            self.error = page_message(exc)
        except Exception as exc:  # noqa: BLE001 - the page gets one line, the terminal the rest
            log.error("studio task %s: %s: %s", self.title, type(exc).__name__, exc)
            self.error = f"something went wrong ({type(exc).__name__}); the terminal says more"
        finally:
            self.finished = time.monotonic()


@dataclass
class TaskBoard:
    """The tasks of one studio: started by a route, read by the page's polling."""

    tasks: dict[str, Task] = field(default_factory=dict)

    def start(
        self,
        title: str,
        work: Callable[[Task], Any],
        view: Callable[[Any], str],
        *,
        wait: float = 0.0,
    ) -> Task:
        """Run ``work(task)`` in a thread, its result shown by ``view``; wait up to ``wait``
        seconds so quick work is shown at once, without a progress bar."""
        task = Task(secrets.token_urlsafe(12), title, view=view)
        self._forget_old()
        self.tasks[task.id] = task
        thread = threading.Thread(target=task.run, args=(work,), daemon=True, name=title)
        thread.start()
        if wait:
            thread.join(wait)
        return task

    def get(self, task_id: str) -> Task:
        task = self.tasks.get(task_id)
        if task is None:
            raise InputError("that piece of work is no longer known to the studio: start it again")
        return task

    def _forget_old(self) -> None:
        finished = sorted((t for t in self.tasks.values() if t.done), key=lambda t: t.started)
        for t in finished[: max(0, len(finished) - TASKS_KEPT)]:
            del self.tasks[t.id]
