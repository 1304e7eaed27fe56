"""PII scan: J-PAL's fixtures in every format, word lists, value patterns, sampling."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from hidekit.errors import InputError, OptionError
from hidekit.io import Dataset
from hidekit.scan import TYPES, scan_column, scan_table
from hidekit.scan import patterns as P
from hidekit.scan import scanner as scanner_mod
from hidekit.scan.keywords import match_keywords

PII_FILES = ["pii.csv", "pii_Stata12.dta", "pii_Stata14.dta", "pii_spss.sav", "pii.sas7bdat"]
NOPII_FILES = [
    "nopii.csv",
    "nopii_Stata12.dta",
    "nopii_Stata14.dta",
    "nopii_spss.sav",
    "nopii.sas7bdat",
]
# The PII columns of J-PAL's fake survey and their Table 3 category.
EXPECTED = {
    "name": "direct",
    "address": "direct",
    "birthdate": "strong indirect",
    "gender": "indirect",
}


@pytest.mark.parametrize("name", PII_FILES)
def test_every_pii_column_is_flagged_in_every_format(fixtures, name):
    result = scan_table(fixtures / "pii-scan" / name)
    got = {c.name.lower(): c.category for c in result.columns if c.pii}
    assert got == EXPECTED
    assert result.rows_total == result.rows_scanned == 10 and not result.sampled


@pytest.mark.parametrize("name", NOPII_FILES)
def test_no_column_of_nopii_is_flagged(fixtures, name):
    result = scan_table(fixtures / "pii-scan" / name)
    assert result.flagged == []
    assert len(result.columns) == 4


def test_methods_follow_table3(fixtures):
    r = scan_table(fixtures / "pii-scan" / "pii.csv")
    assert r["name"].methods == ("partition",)
    assert r["birthdate"].methods == ("aggregate",)
    assert r["address"].identifier == "street_address"
    assert r["birthdate"].evidence["dates"]["first"] == "1986-12-28"


def test_demo_survey_direct_identifiers_match_its_declaration():
    from hidekit.demo.survey import DIRECT, generate_survey

    r = scan_table(generate_survey(400, 3))
    assert sorted(r.names("direct")) == sorted(DIRECT)
    for col in ("record_id", "urban_rural", "diagnosis", "income", "bmi"):
        assert not r[col].pii, col
    assert r["visit_date"].identifier == "event_date"
    assert r["birth_date"].identifier == "date_of_birth"
    assert r["zip"].category == "indirect" and r["city"].methods == ("encode",)


def test_values_alone_flag_direct_identifiers_under_meaningless_names():
    from hidekit.demo.survey import generate_survey

    frame = generate_survey(300, 5)[["name", "ssn", "phone", "email", "street_address", "bmi"]]
    frame.columns = ["v1", "v2", "v3", "v4", "v5", "v6"]
    r = scan_table(frame)
    assert [r[c].identifier for c in ["v1", "v2", "v3", "v4", "v5"]] == [
        "full_name",
        "personal_id",
        "phone",
        "email",
        "street_address",
    ]
    assert not r["v6"].pii


@pytest.mark.parametrize(
    "name,expected",
    [
        ("fecha_de_nacimiento", "date_of_birth"),
        ("apellido_paterno", "full_name"),
        ("Prénom", "full_name"),
        ("telefono_celular", "phone"),
        ("courriel", "email"),
        ("code_postal", "postal_code"),
        ("adresse", "street_address"),
        ("numeroDNI", "personal_id"),
        ("estado_civil", "marital_status"),
        ("lieu_de_naissance", "nationality"),
        ("respondentName", "full_name"),
        ("email_address", "email"),
        ("hh_gps_lat", "gps"),
        ("nom_village", "small_area"),
        ("SSN", "personal_id"),
        ("sexo", "gender"),
        ("num_plaque_immatriculation", "vehicle_registration"),
        ("iban", "bank_account"),
    ],
)
def test_names_in_three_languages(name, expected):
    m = match_keywords(name)
    assert m is not None and m.type_key == expected


@pytest.mark.parametrize(
    "name",
    [
        "village_size",
        "percentage",
        "electricity",
        "birth_weight",
        "nombre_de_personnes",
        "id",
        "record_id",
        "hemoglobinlevelgdl",
        "favoritecolour",
        "nutallergy",
        "file_name",
        "wage",
    ],
)
def test_look_alike_names_are_not_pii(name):
    m = match_keywords(name)
    assert m is None or (name == "village_size" and m.type_key == "small_area")


def test_variable_label_flags_a_coded_name():
    ds = Dataset(
        pd.DataFrame({"q12": ["x"] * 3}),
        "stata",
        variable_labels={"q12": "Numéro de téléphone du répondant"},
    )
    assert scan_table(ds)["q12"].identifier == "phone"


def test_value_labels_are_read():
    ds = Dataset(
        pd.DataFrame({"q3": [1.0, 2.0, 1.0]}),
        "spss",
        value_labels={"q3": {1.0: "Hombre", 2.0: "Mujer"}},
    )
    f = scan_table(ds)["q3"]
    assert f.identifier == "gender" and f.evidence["value_labels"]["gender_words"] == 1.0


def _mask(fn, values):
    return fn(pd.Series(values, dtype=object)).tolist()


def test_checksums_separate_ids_from_random_numbers():
    # DNI 12345678 % 23 = 14 -> 'Z'; IBAN and card numbers are the published test numbers.
    assert _mask(
        P.national_id,
        ["12345678Z", "12345678A", "123-45-6789", "000-12-3456", "666-12-3456", "AB123456C"],
    ) == [True, False, True, False, False, True]
    assert _mask(
        P.bank_number,
        [
            "4111 1111 1111 1111",
            "4111 1111 1111 1112",
            "GB82 WEST 1234 5698 7654 32",
            "GB82 WEST 1234 5698 7654 33",
        ],
    ) == [True, False, True, False]
    # NIR key: 97 - (1850578006084 mod 97)
    body = 1850578006084
    nir = f"{body}{97 - body % 97:02d}"
    assert _mask(P.fr_nir, [nir, nir[:-2] + "00"]) == [True, False]


def test_value_patterns():
    assert _mask(P.EMAIL, ["a.b@x.org", "not an email", "a@b"]) == [True, False, False]
    assert _mask(P.ip_address, ["192.168.0.1", "999.1.1.1", "2001:db8::1"]) == [True, False, True]
    assert _mask(
        P.phone_formatted, ["(555) 123-4567", "+33 6 12 34 56 78", "2023-01-05", "123-45-6789"]
    ) == [True, True, False, False]
    assert _mask(
        P.street_address,
        ["Calle Mayor 5", "12 rue de la Paix", "4 Bayport Rd.", "Colour blind", "Type 2 diabetes"],
    ) == [True, True, True, False, False]
    assert _mask(
        P.full_name, ["William Salvin", "Never married", "Colour blind", "MARIA GARCIA LOPEZ"]
    ) == [True, False, False, True]
    assert _mask(P.gps_pair, ["42.3601, -71.0589", "95.1234, 10.1234"]) == [True, False]


def test_free_text_with_embedded_contacts_is_flagged_for_redaction():
    frame = pd.DataFrame(
        {
            "comments": [
                "call me at (555) 123-4567 tomorrow",
                "all fine here",
                "write to jane.roe@example.org please",
                "nothing to add",
            ]
        }
    )
    f = scan_table(frame)["comments"]
    assert f.pii and f.methods == ("redact",) and f.evidence["contained"]["email"] == 0.25


def test_sampling_reports_how_much_was_read_and_is_seeded():
    frame = pd.DataFrame(
        {"email": [f"user{i}@example.org" for i in range(5000)], "x": np.arange(5000)}
    )
    a = scan_table(frame, sample=1000, seed=4)
    b = scan_table(frame, sample=1000, seed=4)
    assert (a.rows_total, a.rows_scanned, a.sampled) == (5000, 1000, True)
    assert a.to_dict() == b.to_dict()
    assert a.to_dict()["sample_seed"] == 4 and a["email"].category == "direct"


def test_streamed_csv_sample_counts_every_row(tmp_path, monkeypatch):
    path = tmp_path / "big.csv"
    pd.DataFrame({"id": range(3000), "mail": [f"p{i}@x.org" for i in range(3000)]}).to_csv(
        path, index=False
    )
    monkeypatch.setattr(scanner_mod, "STREAM_BYTES", 100)
    a = scan_table(path, sample=500, seed=1)
    b = scan_table(path, sample=500, seed=1)
    assert (a.rows_total, a.rows_scanned) == (3000, 500)
    assert a.to_dict() == b.to_dict() and a["mail"].identifier == "email"
    from hidekit.io.files import sample_csv_rows

    frame, total = sample_csv_rows(path, 500, 1, None)
    assert total == 3000 and frame.index.is_monotonic_increasing and frame["id"].nunique() == 500


def test_age_over_89_is_counted():
    f = scan_column("age", pd.Series([20, 91, 95, 40]))
    assert f.identifier == "age" and f.evidence["over_89"] == 2
    assert TYPES["age"].hipaa == "if over 89"


def test_bad_input(fixtures, tmp_path):
    with pytest.raises(OptionError):
        scan_table(fixtures / "pii-scan" / "pii.csv", sample=0)
    with pytest.raises(OptionError):
        scan_table(fixtures / "pii-scan" / "pii.csv", min_share=1.5)
    with pytest.raises(InputError):
        scan_table(tmp_path / "absent.csv")


def test_cli_json_lists_columns(fixtures):
    from hidekit.cli.main import app

    res = CliRunner().invoke(app, ["scan", str(fixtures / "pii-scan" / "pii_spss.sav"), "--json"])
    assert res.exit_code == 0, res.output
    cols = json.loads(res.stdout)["columns"]
    assert {c["name"] for c in cols if c["pii"]} == set(EXPECTED)
    assert all({"name", "pii", "category"} <= set(c) for c in cols)
    res = CliRunner().invoke(app, ["scan", str(fixtures / "pii-scan" / "nopii.csv")])
    assert res.exit_code == 0 and "0 of 4 columns flagged" in res.stdout
    res = CliRunner().invoke(app, ["scan", "missing.csv"])
    assert res.exit_code == 2


def test_demo_step(tmp_path):
    from hidekit.demo.steps import step_generate, step_scan

    ctx = {"records": 300, "seed": 7}
    step_generate(tmp_path, ctx)
    line = step_scan(tmp_path, ctx)
    assert "direct: name, ssn, phone, email, street_address, latitude, longitude" in line
    saved = json.loads((tmp_path / "scan.json").read_text())
    assert saved["rows_total"] == 300 and "name" in saved["flagged"]
    written = {p.name for p in (tmp_path / "partitioned").iterdir()}
    assert len(written - {".hidekit-output"}) == 3 and ".hidekit-output" in written
