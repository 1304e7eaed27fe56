"""Read and write annotated corpora: brat standoff folders and JSONL files.

brat: ``name.txt`` + ``name.ann`` with lines ``T1<TAB>LABEL start end<TAB>surface``; discontinuous
spans (``start end;start end``) become one span per fragment. JSONL: one object per line,
``{"id": …, "text": …, "spans": [{"start", "end", "label"}], "patient": …}``.
Offsets are checked against the text: a mismatch is an error naming the file and line.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

from hidekit.errors import InputError
from hidekit.io.files import brat_folder_files, files_matching, read_text_file
from hidekit.text.spans import Document, Span


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
                    f"{where}:{lineno}: span {s}-{e} lies outside the text ({len(text)} characters)"
                )
            frags.append((s, e))
        if check and surface is not None and len(frags) == 1:
            s, e = frags[0]
            if text[s:e] != surface and text[s:e].replace("\n", " ") != surface:
                raise InputError(
                    f"{where}:{lineno}: offsets {s}-{e} give {text[s:e]!r}, the .ann says {surface!r}"
                )
        for s, e in frags:
            spans.append(Span(s, e, label, text[s:e], "gold"))
    return sorted(spans)


def read_brat_dir(folder, check: bool = True, require_ann: bool = True) -> list[Document]:
    """A brat folder's documents (the files read by ``hidekit.io.files.brat_folder_files``)."""
    files = brat_folder_files(folder, "require" if require_ann else "optional")
    return [
        Document(name, text, [] if ann is None else parse_ann(ann, text, where, check))
        for name, text, ann, where in files
    ]


def write_ann(doc: Document) -> str:
    lines = []
    for i, s in enumerate(sorted(doc.spans), 1):
        surface = doc.text[s.start : s.end].replace("\n", " ")
        lines.append(f"T{i}\t{s.label} {s.start} {s.end}\t{surface}")
    return "\n".join(lines) + ("\n" if lines else "")


_UNSAFE_IN_NAME = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]+')
_WINDOWS_RESERVED = {"CON", "PRN", "AUX", "NUL"} | {
    f"{d}{i}" for d in ("COM", "LPT") for i in range(1, 10)
}
_MAX_NAME_BYTES = 120


def safe_file_stem(doc_id) -> str:
    """A document id as a file name that stays inside its folder on every system.

    Path parts are joined by ``_`` (``.`` and ``..`` parts dropped); control and reserved
    characters become ``_``; leading dots and spaces go
    (no hidden files, no ``..``); Windows device names get a ``_`` suffix; long ids are cut to
    120 bytes; an id left empty becomes ``doc``."""
    name = unicodedata.normalize("NFC", str(doc_id))
    parts = [p for p in re.split(r"[/\\]+", name) if p not in ("", ".", "..")]
    name = _UNSAFE_IN_NAME.sub("_", "_".join(parts)).strip(" ").lstrip(".").rstrip(". ")
    encoded = name.encode("utf-8")[:_MAX_NAME_BYTES]
    name = encoded.decode("utf-8", errors="ignore").rstrip(". ")
    if not name:
        return "doc"
    if name.split(".")[0].upper() in _WINDOWS_RESERVED:
        name += "_"
    return name


def brat_names(docs) -> tuple[list[str], list[dict]]:
    """One file stem per document, unique even on case-insensitive systems, and the documents
    whose stem differs from their id (``{"id", "name"}``, in document order).

    Deterministic: the first document keeps a name, later duplicates get ``-2``, ``-3``, …"""
    names: list[str] = []
    taken: set[str] = set()
    renamed: list[dict] = []
    for d in docs:
        base = safe_file_stem(d.id)
        name, n = base, 1
        while name.casefold() in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name.casefold())
        names.append(name)
        if name != str(d.id):
            renamed.append({"id": str(d.id), "name": name})
    return names, renamed


def brat_files(docs, write_text: bool = True) -> list[tuple[str, str]]:
    """The brat files of ``docs`` as (file name, content): ``name.txt`` (unless not
    ``write_text``) and ``name.ann`` per document, names from ``brat_names`` (ids that are not
    safe file names, or repeat, are renamed). ``hidekit.jobs.corpus.write_brat_dir`` writes them."""
    docs = list(docs)
    names, _ = brat_names(docs)
    files = []
    for d, name in zip(docs, names, strict=True):
        if write_text:
            files.append((f"{name}.txt", d.text))
        files.append((f"{name}.ann", write_ann(d)))
    return files


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false"}.get(
        type(value), "null" if value is None else "a number"
    )


def _offset(span: dict, field: str, where: str) -> int:
    """A character offset: a JSON integer (``4.2`` or ``"4"`` would be silently truncated)."""
    if field not in span:
        raise InputError(f"{where}: no '{field}' offset")
    v = span[field]
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputError(f"{where}: '{field}' must be a whole number, got {v!r}")
    return v


def read_jsonl(path, check: bool = True) -> list[Document]:
    """A JSONL file's documents: read by ``hidekit.io``, parsed by ``parse_jsonl``."""
    return parse_jsonl(read_text_file(path, keep_bom=False), str(path), check)


def parse_jsonl(content: str, path: str = "<jsonl>", check: bool = True) -> list[Document]:
    """Documents from JSONL text; errors name ``path`` and the line."""
    docs = []
    for lineno, line in enumerate(content.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{lineno}: not JSON: {exc.msg}") from exc
        if not isinstance(obj, dict):
            raise InputError(f"{path}:{lineno}: a record must be a JSON object, got {_kind(obj)}")
        if "text" not in obj:
            raise InputError(f"{path}:{lineno}: no 'text' field")
        text = obj["text"]
        if not isinstance(text, str):
            raise InputError(f"{path}:{lineno}: 'text' must be a string, got {_kind(text)}")
        raw_spans = obj.get("spans", []) or []
        if not isinstance(raw_spans, list):
            raise InputError(f"{path}:{lineno}: 'spans' must be a list, got {_kind(raw_spans)}")
        spans = []
        for j, sp in enumerate(raw_spans, 1):
            where = f"{path}:{lineno}: span {j}"
            if not isinstance(sp, dict):
                raise InputError(f"{where} must be a JSON object, got {_kind(sp)}")
            s, e = _offset(sp, "start", where), _offset(sp, "end", where)
            label = sp.get("label", sp.get("type", "PHI"))
            if not isinstance(label, str) or not label:
                raise InputError(f"{where}: 'label' must be a non-empty string, got {label!r}")
            if s < 0 or e < s or e > len(text):
                raise InputError(f"{path}:{lineno}: span {s}-{e} lies outside the text")
            if check and "text" in sp and text[s:e] != sp["text"]:
                raise InputError(
                    f"{path}:{lineno}: offsets {s}-{e} give {text[s:e]!r}, not {sp['text']!r}"
                )
            spans.append(Span(s, e, label, text[s:e], "gold"))
        docs.append(Document(str(obj.get("id", lineno)), text, sorted(spans), obj.get("patient")))
    if not docs:
        raise InputError(f"{path}: no documents")
    return docs


def jsonl_text(docs) -> str:
    """``docs`` as JSONL (id, text, patient, spans; one document a line)."""
    lines = [
        json.dumps(
            {
                "id": d.id,
                "text": d.text,
                "patient": d.patient,
                "spans": [s.to_dict() for s in sorted(d.spans)],
            },
            ensure_ascii=False,
        )
        for d in docs
    ]
    return "\n".join(lines) + "\n"


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


def read_documents(
    source, column: str | None = None, sep: str | None = None, annotations: bool = False
) -> tuple[list[Document], str]:
    """Texts to work on, and the format they came in ("brat", "jsonl" or "table").

    A folder of .txt files (with their .ann spans when ``annotations``), one .txt file, a JSONL
    file, or one column of a table (``column``).
    """
    source = Path(source)
    if not source.exists():
        raise InputError(f"{source}: no such file or folder")
    if source.is_dir():
        if column:
            raise InputError("--column applies to a table file, not a folder")
        if annotations:
            return read_brat_dir(source, require_ann=False), "brat"
        files = brat_folder_files(source, "skip")
        return [Document(name, text) for name, text, _, _ in files], "brat"
    if column:
        from hidekit.errors import require_columns
        from hidekit.io import read_table

        frame = read_table(source, sep=sep).frame
        require_columns(frame.columns, [column])
        docs = [
            Document(str(i), "" if v is None or v != v else str(v))
            for i, v in zip(frame.index, frame[column], strict=True)
        ]
        return docs, "table"
    if source.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        return read_jsonl(source, check=annotations), "jsonl"
    if source.suffix.lower() == ".txt":
        return [Document(source.stem, read_text_file(source))], "brat"
    raise InputError(
        f"{source}: give a folder of .txt files, a .jsonl file, or a table with --column"
    )


def attach_spans(docs: list[Document], annotated: list[Document]) -> list[Document]:
    """The spans of an annotated corpus (as read by ``read_corpus``) put on the matching
    documents."""
    from hidekit.text.span_metrics import pair_documents

    pairs = pair_documents(annotated, docs)
    by_id = {g.id: g.spans for g, _ in pairs}
    return [d.with_spans(by_id[d.id]) for d in docs]


def read_predictions(source, gold, fmt: str | None = None) -> list[Document]:
    """A tool's predictions, in whatever form tools write them, matched to ``gold``'s texts.

    Documents as given; a folder of .ann files without their .txt (``hidekit text detect`` writes
    only .ann — the gold texts give the offsets' meaning); a folder holding ``predictions.jsonl``;
    or any brat folder / JSONL file that ``read_corpus`` reads.
    """
    if not isinstance(source, (str, Path)):
        return list(source)
    path = Path(source)
    if path.is_dir() and fmt in (None, "brat") and not files_matching(path, "*.txt"):
        if (path / "predictions.jsonl").exists():
            return read_jsonl(path / "predictions.jsonl")
        anns = files_matching(path, "*.ann")
        if not anns:
            raise InputError(f"{path}: no .ann or .txt files")
        texts = {d.id: d.text for d in gold}
        docs = []
        for ann in anns:
            text = texts.get(ann.stem)
            if text is None:  # let pair_documents name every unmatched document at once
                docs.append(Document(ann.stem, "", []))
                continue
            docs.append(
                Document(
                    ann.stem, text, parse_ann(read_text_file(ann, keep_bom=False), text, str(ann))
                )
            )
        return docs
    return read_corpus(path, fmt)
