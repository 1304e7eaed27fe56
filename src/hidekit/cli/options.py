"""Options shared by several commands, defined once."""

from __future__ import annotations

import typer

DataArg = typer.Argument(
    ..., help="Data file: CSV, Parquet, Stata .dta, SPSS .sav, SAS .sas7bdat, Excel."
)
KeysOpt = typer.Option(
    ..., "--keys", "-k", help="Key variables (quasi-identifiers), comma-separated."
)
CellMinOpt = typer.Option(
    3, "--cell-min", min=1, help="Cells smaller than this put records at risk (RP)."
)
ByOpt = typer.Option(None, "--by", help="Also report per subgroup of this variable.")
EngineOpt = typer.Option("duckdb", "--engine", help="Counting engine: duckdb (default) or spark.")
SepOpt = typer.Option(None, "--sep", help="CSV delimiter (detected among , ; tab | when omitted).")
JsonOpt = typer.Option(False, "--json", help="Print machine-readable JSON on stdout.")
ReportOpt = typer.Option(None, "--report", help="Write a self-contained HTML report here.")
MaxLossOpt = typer.Option(
    0.2, "--max-loss", help="Warn when a variable loses more than this share of its cells."
)
FormulasOpt = typer.Option(
    True,
    "--neutralize-formulas/--keep-formulas",
    help="CSV output: prefix text starting with = + - @ by ' so spreadsheets do not run it "
    "(numbers such as -3 stay as they are).",
)
ProfileOpt = typer.Option(
    None,
    "--profile",
    help="What counts as PHI: hipaa (Safe Harbor; a year alone kept), i2b2 (2014 i2b2 "
    "categories), strict (everything that can point to a person), general (survey answers, "
    "e-mails, chat: also nationalities and titles); default: the model's labels.",
)
AllowOpt = typer.Option(None, "--allow", help="Allow-list file: terms never PHI, one a line.")
DenyOpt = typer.Option(
    None,
    "--deny",
    help="Deny-list file: terms always PHI, one a line (TERM<TAB>LABEL gives the type).",
)
ChunkRowsOpt = typer.Option(
    None,
    "--chunk-rows",
    help="Read and write the data by chunks of this many records, whatever the file's size "
    "(default: chunks of 250,000 records for a file of 64 MB or more).",
)
