"""Corpora from and to disk: brat folders and JSONL files, a corpus anonymized (``hidekit text
anonymize``: the texts, the audit trail, the protected mapping) and a synthetic corpus (``hidekit
text synth``). The library reads, rewrites and generates documents in memory (``hidekit.text``);
the files are written here."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from hidekit.errors import InputError, OptionError
from hidekit.io.atomic import atomic_dir, check_output_dir, check_output_file, write_text_atomic
from hidekit.jobs.files import secret_or_new_key, write_private_frame
from hidekit.secrets import as_randomness, load_key
from hidekit.text.anonymization.operators import (
    CLINICAL,
    AnonymizedCorpus,
    SafeList,
    anonymize_documents,
    assign_patients,
    get_operator,
    mapping_frame,
    propagate_spans,
)
from hidekit.text.corpus import brat_files, brat_names, jsonl_text, read_corpus, read_documents
from hidekit.transforms.private import private_dir_for


def write_brat_dir(docs, folder, write_text: bool = True) -> Path:
    """Write ``name.txt`` + ``name.ann`` per document into ``folder`` (made if missing), names
    from ``brat_names`` (ids that are not safe file names, or repeat, are renamed: nothing is
    written outside ``folder``); each file atomically."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in brat_files(docs, write_text):
        write_text_atomic(folder / name, content)
    return folder


def write_jsonl(docs, path) -> Path:
    """``docs`` as one JSONL file (id, text, patient, spans), atomically."""
    return write_text_atomic(path, jsonl_text(docs))


def save_anonymized(
    result: AnonymizedCorpus,
    out,
    fmt: str = "brat",
    overwrite: bool = False,
    passphrase: bytes | str | None = None,
    key_file=None,
    protect: tuple = (),
    private=None,
) -> dict:
    """Write ``out/``: the texts (brat ``.txt`` + ``.ann`` at the new offsets, or
    ``documents.jsonl``) and ``replacements.jsonl`` (one line per replaced span: original and new
    offsets, type, replacement, no original text). When the operator keeps a mapping of
    originals to replacements, it goes, encrypted (``mapping.hkcw``, read with ``hidekit
    crosswalk``), into the private folder (``private``, default ``OUT.private`` beside ``out``),
    never into ``out``: under the passphrase or key given, else under a fresh key written there
    as ``mapping.key``. Built in temporary folders and moved into place: on any error nothing is
    left at ``out``."""
    if fmt not in ("brat", "jsonl"):
        raise OptionError(f"unknown output format {fmt!r} (brat or jsonl)")
    given = _mapping_secret(passphrase, key_file)
    out = Path(out)
    files = {
        "texts": str(out if fmt == "brat" else out / "documents.jsonl"),
        "audit": str(out / "replacements.jsonl"),
    }
    with atomic_dir(out, overwrite=overwrite, protect=protect) as tmp:
        if fmt == "brat":
            write_brat_dir(result.documents, tmp)
        else:
            write_jsonl(result.documents, tmp / "documents.jsonl")
        audit = "".join(
            json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in result.replacements
        )
        write_text_atomic(tmp / "replacements.jsonl", audit)
        if result.mapping:
            files.update(save_mapping(result.mapping, out, given, private, overwrite, protect))
    return files


def _mapping_secret(passphrase, key_file) -> dict:
    if passphrase is not None and key_file is not None:
        raise OptionError("give only one of a passphrase or a key file")
    if key_file is not None:
        return {"key_file": key_file}
    return {"passphrase": passphrase} if passphrase is not None else {}


def save_mapping(
    records, out, given: dict, private=None, overwrite: bool = False, protect=()
) -> dict:
    """The surrogate mapping ``records`` (dicts, or a frame of their columns), encrypted (``mapping.hkcw``), into the private folder
    of ``out`` (``private``, default ``OUT.private``), owner-only and built atomically: under
    the passphrase or key ``given``, else under a fresh key written there as ``mapping.key``."""
    folder = private_dir_for(Path(out), private)
    with atomic_dir(folder, overwrite=overwrite, private=True, protect=protect) as ptmp:
        secret, new_key = secret_or_new_key(given, ptmp)
        name = write_private_frame(mapping_frame(records), ptmp, "mapping", secret)
    files = {"mapping": str(folder / name)}
    if new_key:
        files["mapping_key"] = str(folder / new_key)
    return files


def _checked_options(source, out_dir, model, spans, key_file, overwrite, engine, fmt) -> tuple:
    """One-line errors for options that do not go together, the output folder checked; the
    inputs the output must not overwrite."""
    if engine not in ("local", "spark"):
        raise OptionError(f"--engine must be local or spark, got {engine!r}")
    if engine == "spark" and fmt not in (None, "parquet"):
        raise OptionError("--engine spark writes Parquet: leave out --format")
    if (model is None) == (spans is None):
        raise OptionError("give exactly one of --model (detect PHI) or --spans (use annotations)")
    key_path = key_file if not isinstance(key_file, (bytes, bytearray)) else None
    protect = (source, spans, key_path, model if model and Path(model).exists() else None)
    check_output_dir(out_dir, overwrite=overwrite, protect=protect)
    return protect


def _keyed_operator(operator: str, seed, insecure_seed: bool, key_file) -> tuple:
    """The operator, its randomness from the key (or the seed) when given; how it was drawn."""
    key = None
    if key_file is not None and seed is None:
        key = as_randomness(key_file if isinstance(key_file, bytes) else load_key(key_file))
    op = get_operator(operator, seed=seed, insecure_seed=insecure_seed, key=key)
    rand = getattr(op, "_random", None)
    return op, ({"randomness": rand.describe()} if rand is not None else {})


def anonymize_corpus(
    source,
    out_dir,
    operator: str = "tag",
    model: str | None = None,
    spans=None,
    seed: int | None = None,
    fmt: str | None = None,
    patient_pattern: str | None = None,
    propagate: bool = False,
    passphrase: bytes | str | None = None,
    key_file=None,
    overwrite: bool = False,
    n_jobs: int = 2,
    progress=None,
    allow=None,
    deny=None,
    safelist: SafeList | str | None = CLINICAL,
    insecure_seed: bool = False,
    private=None,
    profile: str | None = None,
    engine: str = "local",
) -> dict:
    """Read texts, find PHI (``model``) or take it (``spans``), rewrite, write; a summary dict.

    ``allow``/``deny``: term lists (``hidekit.text.detection.termlists``) applied to detected or given
    spans; ``safelist``: the clinical safe-list (default) or None; ``profile``: hipaa, i2b2 or
    strict (``hidekit.text.profiles``), what counts as PHI. Surrogates and date shifts
    are keyed by ``key_file`` (a path or the key's bytes) when given, else fresh; ``seed`` needs
    ``insecure_seed``. The mapping goes, encrypted, to the private folder.
    ``engine="spark"``: notes from JSONL or Parquet over a Spark DataFrame, the texts and the
    audit to Parquet, the same output as the local path for the same key (``anonymize_spark``)."""
    from hidekit.text.detection.detector import find_phi  # loads the CRF: only when needed

    source, out_dir = Path(source), Path(out_dir)
    protect = _checked_options(source, out_dir, model, spans, key_file, overwrite, engine, fmt)
    op, keyed = _keyed_operator(operator, seed, insecure_seed, key_file)
    if engine == "spark":
        from hidekit.jobs.text_spark import anonymize_spark

        given = _mapping_secret(passphrase, key_file)
        summary = anonymize_spark(
            source,
            out_dir,
            op,
            model=model,
            spans=spans,
            patient_pattern=patient_pattern,
            propagate=propagate,
            allow=allow,
            deny=deny,
            safelist=safelist,
            profile=profile,
            overwrite=overwrite,
            protect=protect,
            save=lambda records: save_mapping(records, out_dir, given, private, overwrite, protect),
        )
        return {**summary, **keyed, "profile": profile, "renamed_ids": []}
    docs, in_fmt = read_documents(source, annotations=True)
    if patient_pattern:
        assign_patients(docs, patient_pattern)
    annotated = None if spans is None else read_corpus(spans)
    docs = find_phi(
        docs, model, annotated, n_jobs, progress, allow=allow, deny=deny, profile=profile
    )
    if propagate:
        docs = propagate_spans(docs)
    result = anonymize_documents(docs, op, safelist=safelist)
    files = save_anonymized(
        result,
        out_dir,
        fmt or in_fmt,
        overwrite=overwrite,
        passphrase=passphrase,
        key_file=key_file,
        protect=protect,
        private=private,
    )
    renamed = brat_names(result.documents)[1] if (fmt or in_fmt) == "brat" else []
    return {**result.summary(), **keyed, "profile": profile, "files": files, "renamed_ids": renamed}


def write_synthetic_corpus(
    n: int,
    seed: int,
    out_path,
    fmt: str = "brat",
    notes_per_patient: int = 1,
    patients=None,
    locale: str = "en_US",
    overwrite: bool = False,
) -> dict:
    """Generate (``hidekit.text.synthesis``) and write a corpus (brat folder, or JSONL); a
    JSON-ready summary.

    ``patients``: a table file (CSV, Parquet, …) whose rows the notes are about."""
    from hidekit.io import read_table
    from hidekit.text.synthesis import generate_notes

    out_path = Path(out_path)
    if fmt not in ("brat", "jsonl"):
        raise OptionError(f"unknown format {fmt!r} (brat or jsonl)")
    protect = (patients,)
    one_file = fmt == "jsonl" and out_path.suffix == ".jsonl"
    if one_file:
        check_output_file(out_path, protect)
    else:
        check_output_dir(out_path, overwrite=overwrite, protect=protect)
    if n < 1:
        raise OptionError(f"--n must be at least 1, got {n}")
    rows = None
    if patients is not None:
        rows = read_table(patients).frame
        if len(rows) == 0:
            raise InputError(f"{patients}: the table has no rows")
    docs = generate_notes(n, seed, locale, patients=rows, notes_per_patient=notes_per_patient)
    if one_file:
        if out_path.exists() and not overwrite:
            raise OptionError(f"{out_path} exists (use --overwrite)")
        target = write_jsonl(docs, out_path)
    else:
        with atomic_dir(out_path, overwrite=overwrite, protect=protect) as tmp:
            if fmt == "brat":
                write_brat_dir(docs, tmp)
            else:
                write_jsonl(docs, tmp / "notes.jsonl")
        target = out_path if fmt == "brat" else out_path / "notes.jsonl"
    labels = Counter(s.label for d in docs for s in d.spans)
    return {
        "documents": len(docs),
        "patients": len({d.patient for d in docs}),
        "characters": sum(len(d.text) for d in docs),
        "spans": sum(labels.values()),
        "by_label": dict(sorted(labels.items())),
        "seed": seed,
        "format": fmt,
        "out": str(target),
    }
