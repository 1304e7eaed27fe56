"""Records and notes de-identified together (HIDE 2.2): linking, the identifier view, write-back,
bad input, reproducibility, HIDE's Figure 3."""

from __future__ import annotations

import json
import stat

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.demo.survey import generate_survey
from hidekit.engines import make_engine
from hidekit.errors import InputError, OptionError
from hidekit.jobs.corpus import write_brat_dir
from hidekit.jobs.link_job import link_corpus
from hidekit.linking import ATTRIBUTES, hide_figure3, link, release
from hidekit.linking.attributes import covers, fallback, normalize, render
from hidekit.text.spans import Document, Span
from hidekit.text.synthesis import generate_patient_notes

runner = CliRunner()
AGE, DATE = ATTRIBUTES["age"], ATTRIBUTES["date"]


@pytest.fixture(scope="module")
def survey():
    return generate_survey(60, seed=11)


@pytest.fixture(scope="module")
def notes(survey):
    return generate_patient_notes(survey, 3, seed=5)  # gold spans, patient = record_id


@pytest.fixture(scope="module")
def linked(survey, notes):
    return link(survey, notes, "record_id")


def _note(doc_id, text, marks, patient=None):
    """A document whose spans are the given (surface, label) pairs, found left to right."""
    spans, pos = [], 0
    for surface, label in marks:
        start = text.index(surface, pos)
        spans.append(Span(start, start + len(surface), label, surface))
        pos = start + len(surface)
    return Document(doc_id, text, spans, patient)


# HIDE's Figure 1, person by person ------------------------------------------------------------
def test_figure1_sentence_gets_its_class_values():
    """Ten women aged 70…79, all with a 2001 date: k = 10 makes one class, age [70-79], year 2001."""
    records = pd.DataFrame({"record_id": range(1, 11), "sex": "F", "age": range(70, 80)})
    docs = [
        _note(
            f"r{i}",
            f"CLINICAL HISTORY: {69 + i} year old female with a history of "
            f"B-cell lymphoma (Marginal zone, SH-02-2222{i % 10}, 6/{i + 10}/01).",
            [(str(69 + i), "AGE"), (f"SH-02-2222{i % 10}", "ID"), (f"6/{i + 10}/01", "DATE")],
            patient=str(i),
        )
        for i in range(1, 11)
    ]
    lk = link(records, docs, "record_id")
    assert list(lk.view["date"]) == [f"2001-06-{10 + i}" for i in range(1, 11)]
    rel = release(lk, ["age", "date"], 10)
    assert set(rel.table["age"]) == {"[70-79]"} and set(rel.table["date"].astype(str)) == {"2001"}
    texts = {d.text for d in rel.documents}
    assert texts == {
        "CLINICAL HISTORY: 70-79 year old female with a history of B-cell lymphoma "
        "(Marginal zone, [ID], 2001)."
    }
    assert rel.actions == {"generalized": 20, "operator": 10}


def test_one_record_three_notes_same_generalized_age_everywhere(survey, notes, linked):
    rel = release(linked, ["sex", "age", "zip"], 4, seed=3, insecure_seed=True)
    by_person = rel.table.set_index("person")["age"].map(render)
    crosswalk = rel.crosswalk.set_index("person")["record_id"]
    record_age = survey.set_index("record_id")["age"]
    originals = {d.id: d for d in notes}
    checked = 0
    for doc in rel.documents:
        src = originals[rel.sources[doc.id]]
        want = by_person[doc.patient]
        age = record_age[crosswalk[doc.patient]]
        assert int(src.patient) == crosswalk[doc.patient]
        # every mention of the person's own age became the person's class value, in every note
        own = [s for s in src.spans if s.label == "AGE" and int(s.text) == age]
        got = [s for s in doc.spans if s.label == "AGE"]
        assert sum(s.text == want for s in got) >= len(own)
        checked += len(own)
    assert checked > 60
    notes_per_person = pd.Series([d.patient for d in rel.documents]).value_counts()
    assert (notes_per_person == 3).all() and len(notes_per_person) == len(survey)


def test_release_is_k_anonymous_engine_and_pycanon(linked):
    pycanon = pytest.importorskip("pycanon.anonymity")
    keys = ["sex", "age", "zip"]
    rel = release(linked, keys, 5, l=2, sensitive="diagnosis", seed=1, insecure_seed=True)
    table = rel.table
    assert make_engine(table[keys]).is_k_anonymous(keys, 5)
    assert pycanon.k_anonymity(table, keys) >= 5
    assert pycanon.l_diversity(table, keys, ["diagnosis"]) >= 2
    assert rel.stats["k_anonymous"] and rel.stats["l_diverse"]
    # the identifier view read back from the released notes: ages as the notes now state them
    text_age = {}
    for d in rel.documents:
        for s in d.spans:
            if s.label == "AGE" and s.text == render(
                table.set_index("person").at[d.patient, "age"]
            ):
                text_age[d.patient] = s.text
    view = table.assign(age=table["person"].map(text_age).fillna(table["age"].map(render)))
    assert make_engine(view[keys]).is_k_anonymous(keys, 5)
    assert set(table.columns) == {"person", "sex", "age", "zip", "diagnosis"}


def test_no_extracted_value_survives_unless_the_mode_keeps_it(survey, notes, linked):
    originals = {d.id: d for d in notes}
    stat_rel = release(linked, ["sex", "age"], 5, seed=2, insecure_seed=True)
    labels = stat_rel.table.set_index("person")["age"]
    for doc in stat_rel.documents:
        src = originals[stat_rel.sources[doc.id]]
        for s in src.spans:
            if s.label in ("DATE", "NAME", "MRN", "SSN", "PHONE", "STREET") and len(s.text) >= 6:
                assert s.text not in doc.text, (doc.id, s)
        ages = {s.text for s in doc.spans if s.label == "AGE"}
        single = labels[doc.patient]  # a class of one value may show it: k-anonymity still holds
        assert not {s.text for s in src.spans if s.label == "AGE"} & (ages - {single})
    full = release(linked, ["sex", "age"], 5, mode="full")
    assert "age" not in full.table.columns
    assert all(
        s.text == f"[{s.label}]"
        for d in full.documents
        for s in d.spans
        if s.label in ("AGE", "DATE", "ZIP", "CITY", "HOSPITAL")
    )
    partial = release(linked, ["sex", "age"], 5, mode="partial")
    pa = {s.text for d in partial.documents for s in d.spans if s.label == "AGE"}
    assert pa == {s.text for d in linked.documents for s in d.spans if s.label == "AGE"}
    assert sorted(partial.table["age"]) == sorted(survey["age"])
    assert partial.actions["kept"] > 0 and "generalized" not in partial.actions


# Linking and its problems --------------------------------------------------------------------
def test_problems_are_reported_not_dropped():
    records = pd.DataFrame(
        {"record_id": [1, 2, 2, 3], "age": [30, 40, 41, 50], "sex": list("FMMF")}
    )
    docs = [
        _note("a", "MRN 0000001. 30 yo.", [("0000001", "MRN"), ("30", "AGE")]),
        _note("b", "MRN 0000002. 40 yo.", [("0000002", "MRN"), ("40", "AGE")]),
        _note("c", "MRN 0000009. 60 yo.", [("0000009", "MRN"), ("60", "AGE")]),
        _note("d", "No number here. 70 yo.", [("70", "AGE")]),
        _note("e", "MRN 0000001, old MRN 3.", [("0000001", "MRN"), ("3", "MRN")]),
    ]
    lk = link(records, docs, "record_id", key_from_text=True)
    r = lk.report
    assert r.duplicate_keys == {"2": 2}
    assert r.notes_without_record == {"9": ["c"]}
    assert r.unlinked_notes == ["d"]
    assert r.ambiguous_notes == {"e": ["1", "3"]}
    assert r.linked_notes == 1 and r.withheld_notes == 4 and r.withheld_records == 2
    assert r.records_without_notes == 1  # record 3
    assert len(r.problems()) == 4 and not r.ok
    assert sorted(lk.view["_key"]) == ["1", "3"]
    c = r.counts()
    assert c["keys_only_in_notes"] == 1 and "9" not in json.dumps(c)
    with pytest.raises(InputError, match="no record"):
        link(records, docs, "record_id", key_from_text=True, strict=True)


def test_note_pattern_and_leading_zeros(tmp_path):
    records = pd.DataFrame({"pid": ["007", "8"], "age": [33, 44]})
    docs = [
        _note("7_intake", "33 yo", [("33", "AGE")]),
        _note("0008_x", "44 yo", [("44", "AGE")]),
        _note("readme", "nothing", []),
    ]
    lk = link(records, docs, "pid", note_pattern=r"(?P<patient>\d+)_.*\.txt")
    assert [d.patient for d in lk.documents] == ["7", "8"] and lk.report.unlinked_notes == [
        "readme"
    ]
    assert list(lk.view["age_mentions"]) == [[33], [44]]
    with pytest.raises(OptionError, match="group"):
        link(records, docs, "pid", note_pattern=r"\d+_")
    with pytest.raises(OptionError, match="not both"):
        link(records, docs, "pid", note_pattern=r"(\d+)", key_from_text=True)


def test_extracted_attribute_without_value_is_a_clear_error():
    records = pd.DataFrame({"id": [1, 2], "sex": ["F", "M"]})
    docs = [
        _note("n1", "Seen at Mercy Hospital.", [("Mercy Hospital", "HOSPITAL")], "1"),
        _note("n2", "Nothing.", [], "2"),
    ]
    lk = link(records, docs, "id")
    assert list(lk.view["hospital"]) == ["Mercy Hospital", None]
    with pytest.raises(InputError, match="'hospital' is unknown for 1 person"):
        release(lk, ["sex", "hospital"], 1)
    with pytest.raises(OptionError, match="patient key"):
        release(lk, ["id"], 1)


# Attribute values ----------------------------------------------------------------------------
def test_normalize_render_fallback_by_hand():
    assert normalize(AGE, "77") == 77 and normalize(AGE, "n/a") is None
    assert normalize(DATE, "6/22/01") == "2001-06-22" and normalize(DATE, "June 22") is None
    assert normalize(DATE, "2024-12-30") == "2024-12-30"
    assert normalize(ATTRIBUTES["zip"], 2139) == "02139"
    assert render("[70-79]") == "70-79" and render("{Boston,Cambridge}") == "Boston or Cambridge"
    assert fallback(AGE, 77) == "70-79" and fallback(AGE, 93) == "90+"
    assert fallback(DATE, "2001-06-22") == "2001"
    assert covers(DATE, "[2000-2003]", "2001-06-22") and not covers(DATE, "2004", "2001-06-22")
    assert covers(ATTRIBUTES["city"], "{Boston,Cambridge}", "CAMBRIDGE")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 120), st.integers(0, 30))
def test_band_and_range_cover_the_value(age, width):
    band = fallback(AGE, age)
    lo, _, hi = band.partition("-")
    assert band == "90+" if age > 89 else int(lo) <= age <= int(hi) and int(hi) - int(lo) == 9
    # ages are top-coded at 90 (Safe Harbor): ranges end at 90 at most, and 90 means 90 or older
    hi = min(age + width, 90)
    label = f"[{min(max(age - width, 0), hi)}-{hi}]"
    assert covers(AGE, label, age)
    assert covers(AGE, label, age + width + 1) == (hi == 90)


# End to end ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def inputs(tmp_path_factory, survey, notes):
    root = tmp_path_factory.mktemp("link-in")
    survey.head(30).to_csv(root / "records.csv", index=False)
    write_brat_dir([d for d in notes if int(d.patient) <= 30], root / "notes")
    return root


def test_cli_end_to_end_outputs_private_and_same_key_same_bytes(tmp_path, inputs):
    from hidekit.jobs.files import new_key_file, read_crosswalk

    key = new_key_file(tmp_path / "link.key")
    args = [
        "link",
        str(inputs / "records.csv"),
        str(inputs / "notes"),
        "--key",
        "record_id",
        "--note-pattern",
        r"^note-(?P<patient>\d+)-\d+\.txt$",
        "--keys",
        "sex,age",
        "--k",
        "3",
        "--l",
        "2",
        "--sensitive",
        "diagnosis",
        "--spans",
        str(inputs / "notes"),
        "--operator",
        "surrogate",
        "--figure3",
        "2,5",
        "--key-file",
        str(key),
        "--json",
    ]
    r1 = runner.invoke(app, [*args, "--out", str(tmp_path / "a")])
    assert r1.exit_code == 0, r1.output
    res = json.loads(r1.output)
    assert res["persons"] == 30 and res["documents"] == 90 and res["stats"]["k"] >= 3
    assert res["link"]["withheld_notes"] == 0
    a = tmp_path / "a"
    # private files: beside the release, never inside it; encrypted under the key
    assert not (a / "private").exists() and res["files"]["private"] == str(tmp_path / "a.private")
    for name in ("view", "crosswalk", "link-report", "mapping"):
        path = tmp_path / "a.private" / f"{name}.hkcw"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert len(read_crosswalk(path, key_file=key)) > 0
    assert stat.S_IMODE((tmp_path / "a.private").stat().st_mode) == 0o700
    assert b"record_id" not in (tmp_path / "a.private" / "crosswalk.hkcw").read_bytes()
    html = (a / "report.html").read_text()
    assert "Figure 3" in html and "hk-mark" in html
    table = pd.read_csv(a / "table.csv")
    assert "name" not in table.columns and "record_id" not in table.columns
    assert not any("note-" in p.name and "person" not in p.name for p in (a / "notes").iterdir())
    r2 = runner.invoke(app, [*args, "--out", str(tmp_path / "b")])
    assert r2.exit_code == 0
    b = tmp_path / "b"
    for rel in [
        "table.csv",
        "audit.jsonl",
        *[f"notes/{p.name}" for p in (a / "notes").iterdir()],
    ]:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    cw_a = read_crosswalk(tmp_path / "a.private" / "crosswalk.hkcw", key_file=key)
    cw_b = read_crosswalk(tmp_path / "b.private" / "crosswalk.hkcw", key_file=key)
    pd.testing.assert_frame_equal(cw_a, cw_b)


def test_cli_strict_fails_and_writes_nothing(tmp_path, inputs):
    extra = inputs / "notes-extra"
    write_brat_dir([_note("note-999-01", "Age 50.", [("50", "AGE")])], extra)
    out = tmp_path / "o"
    r = runner.invoke(
        app,
        [
            "link",
            str(inputs / "records.csv"),
            str(extra),
            "--key",
            "record_id",
            "--note-pattern",
            r"note-(\d+)-",
            "--keys",
            "sex",
            "--spans",
            str(extra),
            "--strict",
            "--out",
            str(out),
        ],
    )
    assert r.exit_code == 2 and "no record" in r.output and not out.exists()


def test_hide_figure3_shape(linked):
    curve = hide_figure3(linked, "age", ks=(2, 5, 10, 20, 100), n_queries=2000, seed=1)
    rows = curve["rows"]
    assert [r["k"] for r in rows] == [2, 5, 10, 20]  # k = 100 > 60 persons is left out
    assert all(r["partial"] == 1.0 for r in rows)
    assert all(r["full"] <= r["statistical"] <= 1.0 for r in rows)
    assert rows[0]["statistical"] > rows[-1]["statistical"] > rows[0]["full"]


def test_link_corpus_from_dataframe_refuses_overwriting_input(tmp_path, inputs, survey):
    with pytest.raises(OptionError, match="input"):
        link_corpus(
            survey.head(30),
            inputs / "notes",
            inputs / "notes",
            key="record_id",
            keys=["sex"],
            k=2,
            spans=inputs / "notes",
            note_pattern=r"note-(\d+)-",
            overwrite=True,
        )


def test_strict_flags_notes_concentrated_on_few_persons():
    # issue 18 item 9: 180 notes linked to 9 of 60 persons passed --strict unnoticed
    records = pd.DataFrame({"record_id": [str(i) for i in range(60)], "age": [40] * 60})
    docs = [Document(f"n{i}", "Seen today.", [], str(i % 9)) for i in range(180)]
    r = link(records, docs, "record_id").report
    # by hand: n = 180 >= r = 60, coverage 9 / 60 = 15% < 25%
    assert r.noted_persons == 9 and r.concentrated and not r.ok
    assert "180 notes linked to only 9 of 60 persons (15%)" in r.problems()[0]
    with pytest.raises(InputError, match="implausibly concentrated"):
        link(records, docs, "record_id", strict=True)
    # the same notes spread over 45 persons (75%) are plausible
    spread = [Document(f"n{i}", "Seen.", [], str(i % 45)) for i in range(180)]
    assert link(records, spread, "record_id", strict=True).report.ok
    # fewer notes than persons: sparse coverage is expected, not flagged (n = 40 < r = 60)
    few = [Document(f"n{i}", "Seen.", [], str(i % 9)) for i in range(40)]
    assert not link(records, few, "record_id").report.concentrated
