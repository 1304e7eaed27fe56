"""``hidekit scan`` and the direct-identifier verbs: encode, redact, remove, hash, partition."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from hidekit.cli.common import handle_errors, out, print_json, progress_bar, split_list
from hidekit.cli.options import DataArg, FormulasOpt, JsonOpt, SepOpt
from hidekit.cli.secret_options import (
    InsecureSeedOpt,
    KeyEnvOpt,
    KeyFileOpt,
    PassEnvOpt,
    PassFileOpt,
    SeedOpt,
    crosswalk_secret,
    warn_if_insecure,
)
from hidekit.errors import OptionError

ColumnsOpt = typer.Option(..., "--columns", "-c", help="Columns, comma-separated.")
OutOpt = typer.Option(..., "--out", "-o", help="Output file (format from its suffix).")


def _done(summary: dict, json: bool, line: str) -> None:
    if json:
        print_json(summary)
    else:
        out.print(line)


def register(app: typer.Typer) -> None:
    @app.command("scan")
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
        json: bool = JsonOpt,
    ):
        """Flag columns holding PII: category (J-PAL Table 3), evidence, recommended method."""
        from hidekit.scan import scan_table

        with progress_bar("scanning columns", None, enabled=not json) as advance:
            result = scan_table(
                data,
                sample=None if full else sample,
                seed=seed,
                min_share=min_share,
                sep=sep,
                progress=advance,
            )
        if json:
            print_json(result.to_dict())
            return
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

    @app.command("encode")
    @handle_errors
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
        passphrase_file: Path = PassFileOpt,
        passphrase_env: str = PassEnvOpt,
        key_file: Path = KeyFileOpt,
        key_env: str = KeyEnvOpt,
        width: int = typer.Option(None, "--width", min=1, help="Digits per code (per level)."),
        seed: int = SeedOpt,
        insecure_seed: bool = InsecureSeedOpt,
        sep: str = SepOpt,
        neutralize: bool = FormulasOpt,
        json: bool = JsonOpt,
    ):
        """Replace values by random fixed-width IDs; the crosswalk is kept encrypted.

        New codes are drawn from the key (--key-file: HMAC of the key and the step), else fresh
        from the OS; keep the crosswalk apart from the data you ship."""
        from hidekit.transforms.identifiers import encode_file

        cols, hier = split_list(columns), split_list(hierarchy)
        if not cols and not hier:
            raise OptionError("give --columns or --hierarchy")
        secret = crosswalk_secret(
            passphrase_file, passphrase_env, key_file, key_env, confirm=not crosswalk.exists()
        )
        s = encode_file(
            data,
            out_path,
            crosswalk=crosswalk,
            columns=cols,
            hierarchy=hier,
            width=width,
            seed=seed,
            insecure_seed=insecure_seed,
            sep=sep,
            neutralize=neutralize,
            protect=(passphrase_file, key_file),
            **secret,
        )
        warn_if_insecure(seed is not None)
        _done(
            s,
            json,
            f"encoded {', '.join(s['codes'])} in {s['records']:,} records "
            f"({s['new']:,} new codes, {s['reused']:,} reused) -> {out_path}; "
            f"crosswalk -> {crosswalk}",
        )

    @app.command("redact")
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
        from hidekit.transforms.identifiers import redact_file

        s = redact_file(
            data,
            out_path,
            columns=split_list(columns, required="--columns"),
            constant=constant,
            sep=sep,
            neutralize=neutralize,
        )
        _done(s, json, f"redacted {', '.join(s['columns'])} -> {out_path}")

    @app.command("remove")
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
        from hidekit.transforms.identifiers import remove_file

        s = remove_file(
            data,
            out_path,
            columns=split_list(columns, required="--columns"),
            sep=sep,
            neutralize=neutralize,
        )
        _done(s, json, f"removed {', '.join(s['columns'])} -> {out_path}")

    @app.command("hash")
    @handle_errors
    def hash_(
        data: Path = DataArg,
        columns: str = ColumnsOpt,
        out_path: Path = OutOpt,
        key_file: Path = typer.Option(
            ..., "--key-file", help="Secret key file (hidekit new-key); never unsalted."
        ),
        sep: str = SepOpt,
        neutralize: bool = FormulasOpt,
        json: bool = JsonOpt,
    ):
        """Replace values by keyed HMAC-SHA256 tokens (same value, same token)."""
        from hidekit.transforms.identifiers import hash_file

        s = hash_file(
            data,
            out_path,
            columns=split_list(columns, required="--columns"),
            key_file=key_file,
            sep=sep,
            neutralize=neutralize,
        )
        _done(s, json, f"hashed {', '.join(s['columns'])} with HMAC-SHA256 -> {out_path}")

    @app.command("partition")
    @handle_errors
    def partition(
        data: Path = DataArg,
        identifiers: str = typer.Option(
            ..., "--identifiers", "-i", help="Columns that identify an observation."
        ),
        out_dir: Path = typer.Option(..., "--out-dir", help="New folder for the three files."),
        id_column: str = typer.Option("hk_id", "--id-column", help="Name of the random ID."),
        seed: int = SeedOpt,
        insecure_seed: bool = InsecureSeedOpt,
        passphrase_file: Path = PassFileOpt,
        passphrase_env: str = PassEnvOpt,
        key_file: Path = KeyFileOpt,
        key_env: str = KeyEnvOpt,
        overwrite: bool = typer.Option(
            False, "--overwrite", help="Replace an output folder hidekit wrote before."
        ),
        sep: str = SepOpt,
        neutralize: bool = FormulasOpt,
        json: bool = JsonOpt,
    ):
        """Split into original, de-identified and link files (J-PAL). With a secret the
        original and the link are written encrypted (.hkcw); without, owner-only tables."""
        from hidekit.transforms.identifiers import partition_file

        secret = crosswalk_secret(
            passphrase_file, passphrase_env, key_file, key_env, confirm=True, required=False
        )
        s = partition_file(
            data,
            out_dir,
            identifiers=split_list(identifiers, required="--identifiers"),
            id_column=id_column,
            seed=seed,
            insecure_seed=insecure_seed,
            overwrite=overwrite,
            sep=sep,
            neutralize=neutralize,
            protect=(passphrase_file, key_file),
            **secret,
        )
        warn_if_insecure(seed is not None)
        _done(
            s,
            json,
            f"{s['records']:,} records, {s['observations']:,} observations -> "
            + ", ".join(f"{k}: {v}" for k, v in s["files"].items()),
        )

    @app.command("new-key")
    @handle_errors
    def new_key(
        path: Path = typer.Argument(..., help="Where to write the key (never overwritten)."),
        json: bool = JsonOpt,
    ):
        """Create a key file of 32 random bytes (owner-only) for crosswalks and hashing."""
        from hidekit.transforms.crosswalk import new_key_file

        new_key_file(path)
        _done({"key_file": str(path)}, json, f"key file -> {path} (keep it apart from the data)")

    @app.command("crosswalk")
    @handle_errors
    def show_crosswalk(
        path: Path = typer.Argument(..., help="Encrypted crosswalk (.hkcw)."),
        passphrase_file: Path = PassFileOpt,
        passphrase_env: str = PassEnvOpt,
        key_file: Path = KeyFileOpt,
        key_env: str = KeyEnvOpt,
        export: Path = typer.Option(
            None, "--export", help="Write the decrypted table here (owner-only)."
        ),
        json: bool = JsonOpt,
    ):
        """Decrypt a crosswalk to look at it or export it."""
        from hidekit.io import write_table
        from hidekit.transforms.crosswalk import read_crosswalk

        frame = read_crosswalk(
            path, **crosswalk_secret(passphrase_file, passphrase_env, key_file, key_env)
        )
        if export:
            write_table(frame, export, private=True, protect=(path, passphrase_file, key_file))
        if json:
            print_json(
                {
                    "crosswalk": str(path),
                    "rows": len(frame),
                    "columns": list(frame.columns),
                    "data": frame.to_dict(orient="records"),
                }
            )
            return
        t = Table(title=f"{path.name}: {len(frame):,} rows")
        for c in frame.columns:
            t.add_column(str(c))
        for row in frame.head(20).itertuples(index=False):
            t.add_row(*("" if v is None else str(v) for v in row))
        out.print(t)
        if export:
            out.print(f"exported -> {export}")
