"""``hidekit scan`` and the direct-identifier verbs: encode, redact, remove, hash, partition."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from hidekit import jobs
from hidekit.cli.common import handle_errors, out, progress_bar, show, split_list
from hidekit.cli.options import DataArg, FormulasOpt, JsonOpt, SepOpt
from hidekit.cli.secret_options import secret_options
from hidekit.errors import OptionError
from hidekit.jobs import SecretOptions

ColumnsOpt = typer.Option(..., "--columns", "-c", help="Columns, comma-separated.")
OutOpt = typer.Option(..., "--out", "-o", help="Output file (format from its suffix).")


@handle_errors
def scan(
    data: Path = DataArg,
    sample: int = typer.Option(
        10_000, "--sample", min=1, help="Rows read at random from larger tables (seeded)."
    ),
    full: bool = typer.Option(False, "--all", help="Read every row instead of a sample."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the row sample."),
    min_share: float = typer.Option(
        0.5, "--min-share", help="Share of values a pattern must match to flag a column."
    ),
    sep: str = SepOpt,
    text_model: str = typer.Option(
        "en",
        "--text-model",
        help="Detection model read over free-text columns (en, es, a model file; none: skip).",
    ),
    text_profile: str = typer.Option(
        "general", "--text-profile", help="What counts as PII in free text (see --profile)."
    ),
    text_cells: int = typer.Option(
        200, "--text-cells", min=1, help="Cells read per free-text column (seeded sample)."
    ),
    json: bool = JsonOpt,
):
    """Flag columns holding PII: category (J-PAL Table 3), evidence, recommended method.

    Free-text columns (open answers, comments) are read by a PII detection model: one holding
    names, phones or addresses is reported with the text_columns plan step."""
    with progress_bar("scanning columns", None, enabled=not json) as advance:
        job = jobs.scan(
            data,
            sample=None if full else sample,
            seed=seed,
            min_share=min_share,
            sep=sep,
            progress=advance,
            text_model=None if text_model.lower() == "none" else text_model,
            text_profile=text_profile,
            text_cells=text_cells,
        )
    show(job, json, lambda j: _print_scan(j.detail, data, seed))


def _print_scan(result, data: Path, seed: int) -> None:
    how = (
        f"random sample of {result.rows_scanned:,} of {result.rows_total:,} rows (seed {seed})"
        if result.sampled
        else f"all {result.rows_total:,} rows"
    )
    t = Table(title=f"PII scan of {data.name}: {how}")
    for col in ("column", "PII", "category", "identifier", "method", "evidence"):
        t.add_column(col)
    for c in result.columns:
        t.add_row(
            c.name,
            "yes" if c.pii else "",
            c.category if c.pii else "",
            c.identifier_label,
            c.method,
            c.reason if c.pii else "",
        )
    out.print(t)
    for c in result.columns:
        if long := c.evidence.get("long_cells"):
            out.print(
                f"{escape(c.name)}: {long['cells']:,} cell(s) longer than "
                f"{long['window_chars']:,} characters (longest {long['longest']:,}) read as "
                f"free text in windows of {long['window_chars']:,}, not as one value"
            )
    direct = result.names("direct")
    out.print(
        f"{len(result.flagged)} of {len(result.columns)} columns flagged"
        + (f"; direct identifiers: {', '.join(direct)}" if direct else "")
        + ". A scan is a first pass: check the remaining columns by hand."
    )


@handle_errors
@secret_options("passphrase", "key", "seed")
def encode(
    data: Path = DataArg,
    columns: str = typer.Option(
        None, "--columns", "-c", help="Columns to encode independently, comma-separated."
    ),
    hierarchy: str = typer.Option(
        None, "--hierarchy", help="Nested units, top first: province,district,village."
    ),
    out_path: Path = OutOpt,
    crosswalk: Path = typer.Option(
        ..., "--crosswalk", help="Encrypted crosswalk: reused if it exists, then updated."
    ),
    width: int = typer.Option(None, "--width", min=1, help="Digits per code (per level)."),
    sep: str = SepOpt,
    neutralize: bool = FormulasOpt,
    json: bool = JsonOpt,
    secrets: SecretOptions = SecretOptions(),  # filled by @secret_options
):
    """Replace values by random fixed-width IDs; the crosswalk is kept encrypted.

    New codes are drawn from the key (--key-file: HMAC of the key and the step), else fresh
    from the OS; keep the crosswalk apart from the data you ship."""
    cols, hier = split_list(columns), split_list(hierarchy)
    if not cols and not hier:
        raise OptionError("give --columns or --hierarchy")
    result = jobs.encode(
        data,
        out_path,
        crosswalk=crosswalk,
        columns=cols,
        hierarchy=hier,
        width=width,
        secrets=secrets,
        sep=sep,
        neutralize=neutralize,
    )
    s = result.figures
    show(
        result,
        json,
        f"encoded {', '.join(s['codes'])} in {s['records']:,} records "
        f"({s['new']:,} new codes, {s['reused']:,} reused) -> {out_path}; "
        f"crosswalk -> {crosswalk}",
    )


def _replace(
    data: Path, out_path: Path, step, sep, neutralize: bool, json: bool, done: str, protect=()
):
    """One identifier step on a file; the labels of the replaced columns are dropped."""
    result = jobs.transform(
        data,
        out_path,
        step,
        drop_labels=step.columns,
        sep=sep,
        neutralize=neutralize,
        protect=protect,
    )
    show(result, json, done.format(columns=", ".join(result.figures["columns"]), out=out_path))


@handle_errors
def redact(
    data: Path = DataArg,
    columns: str = ColumnsOpt,
    out_path: Path = OutOpt,
    constant: str = typer.Option("XXXX", "--constant", help="Replacement text."),
    sep: str = SepOpt,
    neutralize: bool = FormulasOpt,
    json: bool = JsonOpt,
):
    """Replace every value of the columns by a constant such as XXXX."""
    from hidekit.transforms.identifiers import Redact

    step = Redact(split_list(columns, required="--columns"), constant)
    _replace(data, out_path, step, sep, neutralize, json, "redacted {columns} -> {out}")


@handle_errors
def remove(
    data: Path = DataArg,
    columns: str = ColumnsOpt,
    out_path: Path = OutOpt,
    sep: str = SepOpt,
    neutralize: bool = FormulasOpt,
    json: bool = JsonOpt,
):
    """Drop the columns from the data."""
    from hidekit.transforms.identifiers import Remove

    step = Remove(split_list(columns, required="--columns"))
    _replace(data, out_path, step, sep, neutralize, json, "removed {columns} -> {out}")


@handle_errors
@secret_options("key")
def hash_(
    data: Path = DataArg,
    columns: str = ColumnsOpt,
    out_path: Path = OutOpt,
    sep: str = SepOpt,
    neutralize: bool = FormulasOpt,
    json: bool = JsonOpt,
    secrets: SecretOptions = SecretOptions(),  # filled by @secret_options
):
    """Replace values by keyed HMAC-SHA256 tokens (same value, same token); the key from
    --key-file or --key-env, never unsalted."""
    from hidekit.transforms.identifiers import KeyedHash

    key = secrets.key()
    if key is None:
        raise OptionError("hash needs a secret key: --key-file or --key-env (hidekit new-key)")
    step = KeyedHash(split_list(columns, required="--columns"), key)
    done = "hashed {columns} with HMAC-SHA256 -> {out}"
    _replace(data, out_path, step, sep, neutralize, json, done, protect=secrets.files())


@handle_errors
@secret_options("seed", "passphrase", "key")
def partition(
    data: Path = DataArg,
    identifiers: str = typer.Option(
        ..., "--identifiers", "-i", help="Columns that identify an observation."
    ),
    out_dir: Path = typer.Option(..., "--out-dir", help="New folder for the three files."),
    id_column: str = typer.Option("hk_id", "--id-column", help="Name of the random ID."),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace an output folder hidekit wrote before."
    ),
    sep: str = SepOpt,
    neutralize: bool = FormulasOpt,
    json: bool = JsonOpt,
    secrets: SecretOptions = SecretOptions(),  # filled by @secret_options
):
    """Split into original, de-identified and link files (J-PAL). The original and the
    link are written encrypted (.hkcw) under the key or passphrase; without one, nothing."""
    result = jobs.partition(
        data,
        out_dir,
        identifiers=split_list(identifiers, required="--identifiers"),
        id_column=id_column,
        secrets=secrets,
        overwrite=overwrite,
        sep=sep,
        neutralize=neutralize,
    )
    s = result.figures
    show(
        result,
        json,
        f"{s['records']:,} records, {s['observations']:,} observations -> "
        + ", ".join(f"{k}: {v}" for k, v in s["files"].items()),
    )


@handle_errors
def new_key(
    path: Path = typer.Argument(..., help="Where to write the key (never overwritten)."),
    json: bool = JsonOpt,
):
    """Create a key file of 32 random bytes (owner-only) for crosswalks and hashing."""
    show(jobs.new_key(path), json, f"key file -> {path} (keep it apart from the data)")


@handle_errors
@secret_options("passphrase", "key")
def show_crosswalk(
    path: Path = typer.Argument(..., help="Encrypted crosswalk (.hkcw)."),
    export: Path = typer.Option(
        None, "--export", help="Write the decrypted table here (owner-only)."
    ),
    json: bool = JsonOpt,
    secrets: SecretOptions = SecretOptions(),  # filled by @secret_options
):
    """Decrypt a crosswalk to look at it or export it."""
    show(jobs.crosswalk(path, export, secrets=secrets), json, _print_crosswalk)


def _print_crosswalk(result: jobs.JobResult) -> None:
    frame = result.detail
    t = Table(title=f"{Path(result.inputs['crosswalk']).name}: {len(frame):,} rows")
    for c in frame.columns:
        t.add_column(str(c))
    for row in frame.head(20).itertuples(index=False):
        t.add_row(*("" if v is None else str(v) for v in row))
    out.print(t)
    if "export" in result.outputs:
        out.print(f"exported -> {result.outputs['export']}")


COMMANDS = {
    "scan": scan,
    "encode": encode,
    "redact": redact,
    "remove": remove,
    "hash": hash_,
    "partition": partition,
    "new-key": new_key,
    "crosswalk": show_crosswalk,
}
