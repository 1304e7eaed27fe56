"""Read and write annotated corpora: brat standoff folders and JSONL files.

brat: ``name.txt`` + ``name.ann`` with lines ``T1<TAB>LABEL start end<TAB>surface``; discontinuous
spans (``start end;start end``) become one span per fragment. JSONL: one object per line,
``{"id": …, "text": …, "spans": [{"start", "end", "label"}], "patient": …}``.
Offsets are checked against the text: a mismatch is an error naming the file and line.
"""

from __future__ import annotations

import json
from pathlib import Path

from hidekit.errors import InputError
from hidekit.io.atomic import write_text_atomic
from hidekit.text.spans import Document, Span


def read_text_file(path: Path, keep_bom: bool = True) -> str:
    """UTF-8 text; anything else is an error naming the file.

    A byte-order mark is kept as U+FEFF by default: brat counts it as a character, so dropping
    it would shift every offset by one (MEDDOCAN has such files).
    """
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8" if keep_bom else "utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (invalid byte at offset {exc.start})") from exc
    return text


def parse_ann(ann_text: str, text: str, where: str = "", check: bool = True) -> list[Span]:
    spans: list[Span] = []
    for lineno, line in enumerate(ann_text.splitlines(), 1):
        if not line.startswith("T"):
            continue  # relations, notes, attributes: not spans
        parts = line.split("\t")
        if len(parts) < 2:
            raise InputError(f"{where}:{lineno}: malformed brat line {line!r}")
        head = parts[1].split(" ", 1)
        if len(head) != 2:
            raise InputError(f"{where}:{lineno}: malformed brat line {line!r}")
        label, ranges = head
        surface = parts[2] if len(parts) > 2 else None
        frags = []
        for rng in ranges.split(";"):
            try:
                s, e = (int(x) for x in rng.split())
            except ValueError as exc:
                raise InputError(f"{where}:{lineno}: bad offsets {rng!r}") from exc
            if s < 0 or e < s or e > len(text):
                raise InputError(
                    f"{where}:{lineno}: span {s}-{e} lies outside the text ({len(text)} characters)")
            frags.append((s, e))
        if check and surface is not None and len(frags) == 1:
            s, e = frags[0]
            if text[s:e] != surface and text[s:e].replace("\n", " ") != surface:
                raise InputError(
                    f"{where}:{lineno}: offsets {s}-{e} give {text[s:e]!r}, the .ann says {surface!r}")
        for s, e in frags:
            spans.append(Span(s, e, label, text[s:e], "gold"))
    return sorted(spans)


def read_brat_dir(folder, check: bool = True, require_ann: bool = True) -> list[Document]:
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder")
    txts = sorted(folder.glob("*.txt"))
    if not txts:
        raise InputError(f"{folder}: no .txt files")
    docs = []
    for txt in txts:
        text = read_text_file(txt)
        ann = txt.with_suffix(".ann")
        if ann.exists():
            spans = parse_ann(read_text_file(ann, keep_bom=False), text, str(ann), check)
        elif require_ann:
            raise InputError(f"{ann}: missing (every .txt needs its .ann)")
        else:
            spans = []
        docs.append(Document(txt.stem, text, spans))
    return docs


def write_ann(doc: Document) -> str:
    lines = []
    for i, s in enumerate(sorted(doc.spans), 1):
        surface = doc.text[s.start:s.end].replace("\n", " ")
        lines.append(f"T{i}\t{s.label} {s.start} {s.end}\t{surface}")
    return "\n".join(lines) + ("\n" if lines else "")


def write_brat_dir(docs, folder, write_text: bool = True) -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for d in docs:
        if write_text:
            write_text_atomic(folder / f"{d.id}.txt", d.text)
        write_text_atomic(folder / f"{d.id}.ann", write_ann(d))
    return folder


def read_jsonl(path, check: bool = True) -> list[Document]:
    path = Path(path)
    docs = []
    for lineno, line in enumerate(read_text_file(path, keep_bom=False).splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{lineno}: not JSON: {exc.msg}") from exc
        if "text" not in obj:
            raise InputError(f"{path}:{lineno}: no 'text' field")
        text = obj["text"]
        spans = []
        for sp in obj.get("spans", []) or []:
            s, e, label = int(sp["start"]), int(sp["end"]), str(sp.get("label", sp.get("type", "PHI")))
            if s < 0 or e < s or e > len(text):
                raise InputError(f"{path}:{lineno}: span {s}-{e} lies outside the text")
            if check and "text" in sp and text[s:e] != sp["text"]:
                raise InputError(f"{path}:{lineno}: offsets {s}-{e} give {text[s:e]!r}, not {sp['text']!r}")
            spans.append(Span(s, e, label, text[s:e], "gold"))
        docs.append(Document(str(obj.get("id", lineno)), text, sorted(spans), obj.get("patient")))
    if not docs:
        raise InputError(f"{path}: no documents")
    return docs


def write_jsonl(docs, path) -> Path:
    lines = [json.dumps({"id": d.id, "text": d.text, "patient": d.patient,
                         "spans": [s.to_dict() for s in sorted(d.spans)]}, ensure_ascii=False)
             for d in docs]
    return write_text_atomic(path, "\n".join(lines) + "\n")


def read_corpus(source, fmt: str | None = None, check: bool = True) -> list[Document]:
    """A brat folder or a JSONL file, chosen by ``fmt`` or by what ``source`` is."""
    source = Path(source)
    if not source.exists():
        raise InputError(f"{source}: no such file or folder")
    fmt = fmt or ("brat" if source.is_dir() else "jsonl")
    if fmt == "brat":
        return read_brat_dir(source, check)
    if fmt == "jsonl":
        return read_jsonl(source, check)
    raise InputError(f"unknown corpus format {fmt!r} (brat or jsonl)")
