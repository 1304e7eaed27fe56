"""Corpora from and to disk: a corpus anonymized (``hidekit text anonymize``) and its files, the
texts, the audit trail and the protected mapping. The library rewrites documents in memory
(``hidekit.text.anonymization``); the files are read and written here."""

from __future__ import annotations

import json
from pathlib import Path

from hidekit.errors import OptionError
from hidekit.io.atomic import atomic_dir, check_output_dir, write_text_atomic
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
from hidekit.text.corpus import brat_names, read_documents, write_brat_dir, write_jsonl
from hidekit.transforms.private import private_dir_for


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
    if passphrase is not None and key_file is not None:
        raise OptionError("give only one of a passphrase or a key file")
    out = Path(out)
    folder = private_dir_for(out, private) if result.mapping else None
    given = {"passphrase": passphrase} if passphrase is not None else {}
    if key_file is not None:
        given = {"key_file": key_file}
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
        if folder is not None:
            with atomic_dir(folder, overwrite=overwrite, private=True, protect=protect) as ptmp:
                secret, new_key = secret_or_new_key(given, ptmp)
                name = write_private_frame(mapping_frame(result.mapping), ptmp, "mapping", secret)
            files["mapping"] = str(folder / name)
            if new_key:
                files["mapping_key"] = str(folder / new_key)
    return files


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
) -> dict:
    """Read texts, find PHI (``model``) or take it (``spans``), rewrite, write; a summary dict.

    ``allow``/``deny``: term lists (``hidekit.text.detection.termlists``) applied to detected or given
    spans; ``safelist``: the clinical safe-list (default) or None; ``profile``: hipaa, i2b2 or
    strict (``hidekit.text.profiles``), what counts as PHI. Surrogates and date shifts
    are keyed by ``key_file`` (a path or the key's bytes) when given, else fresh; ``seed`` needs
    ``insecure_seed``. The mapping goes, encrypted, to the private folder."""
    from hidekit.text.detection.detector import find_phi  # loads the CRF: only when needed

    source, out_dir = Path(source), Path(out_dir)
    if (model is None) == (spans is None):
        raise OptionError("give exactly one of --model (detect PHI) or --spans (use annotations)")
    key_path = key_file if not isinstance(key_file, (bytes, bytearray)) else None
    protect = (source, spans, key_path, model if model and Path(model).exists() else None)
    check_output_dir(out_dir, overwrite=overwrite, protect=protect)
    key = None
    if key_file is not None and seed is None:
        key = as_randomness(key_file if isinstance(key_file, bytes) else load_key(key_file))
    op = get_operator(operator, seed=seed, insecure_seed=insecure_seed, key=key)
    docs, in_fmt = read_documents(source, annotations=True)
    if patient_pattern:
        assign_patients(docs, patient_pattern)
    docs = find_phi(docs, model, spans, n_jobs, progress, allow=allow, deny=deny, profile=profile)
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
    rand = getattr(op, "_random", None)
    keyed = {"randomness": rand.describe()} if rand is not None else {}
    return {
        **result.summary(),
        **keyed,
        "profile": profile,
        "files": files,
        "renamed_ids": renamed,
    }
