"""What the studio holds while it runs: its folder, the opened table, the opened notes."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment

from hidekit.errors import InputError
from hidekit.studio.security import relative_name, resolve_inside
from hidekit.studio.tasks import TaskBoard
from hidekit.studio.workbench import Workbench

TABLE_SUFFIXES = {
    ".csv": "CSV",
    ".tsv": "CSV",
    ".txt": None,
    ".parquet": "Parquet",
    ".dta": "Stata",
    ".sav": "SPSS",
    ".zsav": "SPSS",
    ".por": "SPSS",
    ".sas7bdat": "SAS",
    ".xpt": "SAS",
    ".xlsx": "Excel",
    ".xls": "Excel",
}
LISTING_LIMIT = 500  # entries shown in the file list


@dataclass
class Entry:
    name: str  # relative to the folder, forward slashes
    kind: str  # "table" (with its format), "notes" (a folder of .txt), "report", "other"
    detail: str = ""


@dataclass
class StudioState:
    folder: Path
    templates: Environment
    max_upload: int
    table: Workbench | None = None
    notes: object | None = None  # hidekit.studio.notes.NotesBench once notes are opened
    messages: list[str] = field(default_factory=list)
    tasks: TaskBoard = field(default_factory=TaskBoard)

    def __post_init__(self) -> None:
        self.folder = Path(self.folder).resolve()
        if not self.folder.is_dir():
            raise InputError(f"{self.folder}: not a folder")

    def path(self, relative: str) -> Path:
        return resolve_inside(self.folder, relative)

    def name(self, path: Path) -> str:
        return relative_name(self.folder, path)

    def render(self, template: str, **context) -> str:
        return self.templates.get_template(template).render(state=self, **context)

    def entries(self) -> list[Entry]:
        """Tables, folders of notes and HTML reports in the folder (two levels deep)."""
        out: list[Entry] = []
        for root, dirs, files in os.walk(self.folder):
            here = Path(root)
            depth = len(here.relative_to(self.folder).parts)
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            if depth >= 2:
                dirs[:] = []
            texts = [f for f in files if f.endswith(".txt")]
            if texts and here != self.folder:
                out.append(Entry(self.name(here), "notes", f"{len(texts)} notes"))
            for f in sorted(files):
                if f.startswith("."):
                    continue
                p = here / f
                fmt = TABLE_SUFFIXES.get(p.suffix.lower())
                if fmt:
                    out.append(Entry(self.name(p), "table", fmt))
                elif p.suffix.lower() == ".html":
                    out.append(Entry(self.name(p), "report", "HTML report"))
                elif p.suffix.lower() == ".toml":
                    out.append(Entry(self.name(p), "plan", "release plan"))
            if len(out) >= LISTING_LIMIT:
                break
        return out[:LISTING_LIMIT]

    def open_table(self, relative: str) -> Workbench:
        path = self.path(relative)
        if not path.is_file():
            raise InputError(f"{relative}: no such file in the studio's folder")
        self.table = Workbench.open(path, self.name(path))
        return self.table

    def open_notes(self, relative: str):
        from hidekit.studio.notes import NotesBench

        path = self.path(relative)
        if not path.is_dir():
            raise InputError(f"{relative}: not a folder of notes in the studio's folder")
        self.notes = NotesBench.open(path, self.name(path))
        return self.notes

    def require_notes(self):
        if self.notes is None:
            raise InputError("open a folder of notes first (Files)")
        return self.notes

    def require_table(self) -> Workbench:
        if self.table is None:
            raise InputError("open a table first (Files)")
        return self.table
