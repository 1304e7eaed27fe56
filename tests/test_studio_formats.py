"""Opening Stata, SPSS, SAS and Excel files in the studio: the variables, their labels and value
labels on the table page, the records counted, and the risk on a labelled key.

The files are written here by pyreadstat and openpyxl (nothing shipped): Stata and SPSS carry
variable and value labels, SAS transport variable labels (its value labels live in a separate
catalog), Excel none (a sheet has no label metadata), so only its values are checked.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("starlette", reason="the studio's web stack is not installed (make setup)")
pyreadstat = pytest.importorskip("pyreadstat", reason="pyreadstat is not installed")

from studio_helpers import studio_client  # noqa: E402 - after the skips above

PORT = 8768
TOKEN = "f" * 43
ORIGIN = {"Origin": f"http://127.0.0.1:{PORT}"}
VARIABLE_LABELS = {
    "region": "Region of residence",
    "sex": "Sex of respondent",
    "age": "Age in years",
}
VALUE_LABELS = {"region": {1: "North", 2: "South", 3: "East"}, "sex": {1: "Male", 2: "Female"}}


def survey() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    n = 60
    return pd.DataFrame(
        {
            "region": rng.integers(1, 4, n).astype(float),
            "sex": rng.integers(1, 3, n).astype(float),
            "age": rng.integers(18, 90, n).astype(float),
        }
    )


def write(fmt: str, folder) -> str:
    frame = survey()
    labels = list(VARIABLE_LABELS.values())
    if fmt == "stata":
        name = "survey.dta"
        pyreadstat.write_dta(
            frame, folder / name, column_labels=labels, variable_value_labels=VALUE_LABELS
        )
    elif fmt == "spss":
        name = "survey.sav"
        pyreadstat.write_sav(
            frame, folder / name, column_labels=labels, variable_value_labels=VALUE_LABELS
        )
    elif fmt == "sas":
        name = "survey.xpt"
        pyreadstat.write_xport(frame, folder / name, column_labels=labels)
    else:
        pytest.importorskip("openpyxl", reason="openpyxl is not installed")
        name = "survey.xlsx"
        frame.to_excel(folder / name, index=False)
    return name


@pytest.mark.parametrize("fmt", ["stata", "spss", "sas", "excel"])
def test_open_labelled_file_shows_labels_and_counts(tmp_path, fmt):
    name = write(fmt, tmp_path)
    client = studio_client(tmp_path, PORT, TOKEN)
    files = client.get("/").text
    assert f"<code>{name}</code>" in files
    page = client.get(f"/table?path={name}")
    assert page.status_code == 200, page.text
    text = html.unescape(page.text)
    assert "60 records, 3 variables" in text
    if fmt != "excel":
        for label in VARIABLE_LABELS.values():
            assert label in text
    if fmt in ("stata", "spss"):
        assert "3 value labels" in text and "2 value labels" in text
        for code, label in VALUE_LABELS["region"].items():
            assert re.search(rf"<code>{code}(\.0)?</code> = {label}", text), (code, label)
    frame = survey()
    body = text[text.index('data-testid="sample"') :]
    rows = re.findall(r'<tr><td class="hint">(\d+)</td>(.*?)</tr>', body, re.S)
    assert len(rows) == 15  # a random sample of the 60 records
    for number, cells in rows:
        shown = [float(x) for x in re.findall(r"<td>([^<]*)</td>", cells)]
        assert shown == list(frame.iloc[int(number) - 1])
    form = {"role:region": "key", "role:sex": "key", "role:age": "other", "k": "2"}
    r = client.post("/api/risk", data=form, headers=ORIGIN)
    want = frame.groupby(["region", "sex"]).size().min()
    assert re.search(r'data-testid="k">(\d+)<', r.text).group(1) == str(want)
