"""Boundary repairs from the English annotation conventions (hidekit.text.detection.boundaries)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hidekit.text.detection.boundaries import (
    drop_languages,
    drop_lowercase_names,
    drop_overruled_fill,
    drop_safe_recall,
    drop_shapeless,
    plausible_recall,
    split_names,
    split_numbers,
    trim_age,
    trim_edges,
    trim_occupation,
)
from hidekit.text.spans import Span


def _span(text: str, label: str, start: int = 0, source: str = "crf") -> Span:
    return Span(start, start + len(text), label, text, source, 0.5)


def _texts(spans):
    return [s.text for s in spans]


def test_age_keeps_the_number_only():
    doc = "Pt 72M, sister 58yo, mother in her 80s."
    spans = [
        _span("72M", "AGE", 3),
        _span("58yo", "AGE", 15),
        _span("80s", "AGE", doc.index("80s")),
    ]
    out = trim_age(spans)
    assert _texts(out) == ["72", "58", "80s"]
    assert all(doc[s.start : s.end] == s.text for s in out)
    # a Spanish corpus label is not touched
    assert _texts(trim_age([_span("72M", "EDAD_SUJETO_ASISTENCIA")])) == ["72M"]


def test_titles_roles_and_credentials_stay_outside_names():
    cases = {
        ("daughter Leticia", "NAME"): "Leticia",
        ("Dr. Smith", "DOCTOR"): "Smith",
        ("MA Jenna", "DOCTOR"): "Jenna",
        ("Peer recovery coach Tasha", "NAME"): "Tasha",
        ("Yesenia Carrillo, LADC", "NAME"): "Yesenia Carrillo",
        ("C. Lindgren, BSN", "DOCTOR"): "C. Lindgren",
        ("Bashir here", "DOCTOR"): "Bashir",
        ("the Lakeshore Neurology Group", "ORGANIZATION"): "Lakeshore Neurology Group",
        ("Riverside Pediatrics tomorrow", "HOSPITAL"): "Riverside Pediatrics",
        # kept as they are
        ("van der Berg", "NAME"): "van der Berg",
        ("R. Patel", "DOCTOR"): "R. Patel",
        ("wanda", "NAME"): "wanda",
        ("Mercy Hospital of Springfield", "HOSPITAL"): "Mercy Hospital of Springfield",
        ("on Tuesday", "DATE"): "on Tuesday",
        ("retired welder", "PROFESSION"): "retired welder",
    }
    for (text, label), want in cases.items():
        (out,) = trim_edges([_span(text, label, 10)])
        assert out.text == want, (text, out.text)
        assert out.start == 10 + text.index(want) and out.end == out.start + len(want)


def test_names_run_together_are_split():
    text = 'Winifred "Winnie" Achterberg'
    out = split_names([_span(text, "NAME", 5)])
    assert _texts(out) == ["Winifred", "Winnie", "Achterberg"]
    assert [s.start for s in out] == [5, 15, 23]
    assert _texts(split_names([_span("Marie-Ève Thibodeau   Chart", "NAME")])) == [
        "Marie-Ève Thibodeau",
        "Chart",
    ]
    assert _texts(split_names([_span("Ruth + Avi", "NAME")])) == ["Ruth", "Avi"]
    # "wife of" between two names: two people, the marker outside both ("Kajal w", "o Pintu" before)
    assert _texts(split_names([_span("Kajal w/o Pintu Kumar", "NAME")])) == ["Kajal", "Pintu Kumar"]
    assert _texts(split_names([_span("Inverbrae Hospital - Day Unit", "HOSPITAL")])) == [
        "Inverbrae Hospital",
        "Day Unit",
    ]
    # a hyphen inside a name is not a separator; other labels are not split
    assert _texts(split_names([_span("Asante-Boateng", "NAME")])) == ["Asante-Boateng"]
    assert _texts(split_names([_span("12/03/2024", "DATE")])) == ["12/03/2024"]


def test_lower_case_names_only_in_lower_case_notes():
    normal = "Seen with Dr. Patel. Will decide on Monday. Daughter Rosa present."
    spans = [_span("will decide", "NAME", 21), _span("Rosa", "NAME", 58)]
    assert _texts(drop_lowercase_names(normal, spans)) == ["Rosa"]
    hurried = "pt seen w/ wanda, dtr aware. will f/u thurs. bp ok, meds given, no new c/o."
    kept = drop_lowercase_names(hurried, [_span("wanda", "NAME", 11)])
    assert _texts(kept) == ["wanda"]


def test_recall_spans_must_look_like_phi():
    assert plausible_recall(_span("Kaczmarek", "NAME", source="crf-recall"))
    assert plausible_recall(_span("2/28", "DATE", source="crf-recall"))
    assert plausible_recall(_span("heavy equipment operator", "PROFESSION"))
    assert plausible_recall(_span("retired fitters", "PROFESSION"))  # plural of an occupation word
    assert plausible_recall(_span("welder", "PROFESSION"))  # one word: as before
    # several words, none an occupation: a phrase of the text, not a job
    assert not plausible_recall(_span("prototype system", "PROFESSION", source="crf-recall"))
    assert not plausible_recall(_span("random assortment", "PROFESSION", source="crf-recall"))
    assert plausible_recall(_span("KY", "STATE"))
    assert not plausible_recall(_span("LBBB", "DOCTOR"))
    assert not plausible_recall(_span("overnite", "NAME"))
    assert not plausible_recall(_span("),", "NAME"))


def test_recall_spans_the_safelist_keeps_are_dropped():
    text = "Ventolin 2 puffs; Brudzinski sign negative; Klebsiella grown; seen by Kaczmarek."
    recall = [
        _span(w, lab, text.index(w), "crf-recall")
        for w, lab in (
            ("Ventolin", "NAME"),
            ("Brudzinski", "DOCTOR"),
            ("Klebsiella", "ORGANIZATION"),
            ("Kaczmarek", "NAME"),
        )
    ]
    assert _texts(drop_safe_recall(text, recall)) == ["Kaczmarek"]
    # an eponym is kept only before its head word: "Mr Brudzinski" alone may be a person
    text = "reviewed by Brudzinski today"
    assert _texts(drop_safe_recall(text, [_span("Brudzinski", "NAME", 12, "crf-recall")])) == [
        "Brudzinski"
    ]


def test_titles_of_other_countries_stay_outside_names():
    spans = [
        _span("Mdm Lee Siew Chin", "NAME"),
        _span("WHAEA ROSE", "NAME"),
        _span("Alhaji Musa Bello", "DOCTOR"),
        _span("psw grace osei", "NAME"),
        _span("khala shireen", "NAME"),
        _span("psw", "NAME"),  # a title alone stays (it is not trimmed to nothing)
        _span("will jones", "NAME"),  # a lower-case word that is no title stays
    ]
    assert _texts(trim_edges(spans)) == [
        "Lee Siew Chin",
        "ROSE",
        "Musa Bello",
        "grace osei",
        "shireen",
        "psw",
        "will jones",
    ]


def test_languages_are_not_phi():
    spans = [
        _span("Swedish", "NAME"),
        _span("Bengali/English", "DOCTOR"),
        _span("Spanish-speaking", "CITY"),
        _span("Tonga", "COUNTRY"),
        _span("Rosa", "NAME"),
        _span("English", "TERRITORIO"),
    ]
    assert _texts(drop_languages(spans)) == ["Tonga", "Rosa", "English"]


_WORDS = st.sampled_from(
    ["Dr.", "daughter", "Rosa", "van", "Achterberg", "LADC", "here", "(", '"', "-", "  ", "the"]
    + ["72M", "T2DM", "12345", "retired", "SW1A", "\t"]
)


@given(
    st.lists(_WORDS, min_size=1, max_size=6),
    st.sampled_from(["NAME", "DOCTOR", "HOSPITAL", "AGE", "ID", "ZIP", "PROFESSION"]),
)
def test_repairs_only_shrink_or_split_a_span(words, label):
    text = " ".join(words)
    doc = "x " + text + " y"
    span = Span(2, 2 + len(text), label, text, "crf", 0.5)
    out = trim_edges(split_numbers(trim_occupation(trim_age(split_names([span])))))
    for s in out:
        assert span.start <= s.start < s.end <= span.end
        assert doc[s.start : s.end] == s.text
    assert all(a.end <= b.start for a, b in zip(out, out[1:], strict=False))


def test_ages_must_read_as_ages():
    spans = [
        _span(t, "AGE")
        for t in ["52Y", "10x", "4AT", "E4V4M6", "3rd", "70s", "80's", "seventies", "sixty-five"]
    ]
    assert _texts(trim_age(spans)) == ["52", "70s", "80's", "seventies", "sixty-five"]


def test_occupations_lose_retired_and_former():
    spans = [
        _span(t, "PROFESSION", 4)
        for t in ["retired machinist", "former schoolteacher", "part-time barista", "retired"]
    ]
    out = trim_occupation(spans)
    assert _texts(out) == ["machinist", "schoolteacher", "barista"]
    assert [s.start for s in out] == [12, 11, 14]


def test_numbers_split_at_table_gaps_and_postcodes_must_look_like_postcodes():
    out = split_numbers(
        [
            _span("CDP448192077  Grp 77120", "ID"),
            _span("6038814 - 30 tabs", "MRN"),
            _span("SRD-0089123   Enc", "ACCOUNT"),
        ]
    )
    assert [(s.text, s.start) for s in out] == [
        ("CDP448192077", 0),
        ("Grp 77120", 14),
        ("6038814", 0),
        ("30 tabs", 10),
        ("SRD-0089123", 0),
    ]
    postcodes = ["90210", "90210-1234", "SW1A 1AA", "M1 1AE", "K1A 0B1", "D6W XY12", "2010", "ST5"]
    assert _texts(split_numbers([_span(t, "ZIP") for t in postcodes])) == postcodes
    odd = split_numbers([_span(t, "ZIP") for t in ["T2DM", "A2 L3 B1", "Rm 412B", "558120"]])
    assert [(s.text, s.label) for s in odd] == [("558120", "ID")]
    # other labels pass untouched
    assert _texts(split_numbers([_span("Kedzie  and 63rd", "STREET")])) == ["Kedzie  and 63rd"]


def test_shapeless_spans_go_or_take_the_label_their_text_allows():
    t = "19/08    13.8   3400   42\nn° 2 85 07 69 123 456 78 ............ 12 Elm St"

    def at(part: str, label: str) -> Span:
        i = t.index(part)
        return Span(i, i + len(part), label, part, "crf")

    row = at("19/08    13.8   3400   42", "STREET")
    number = at("2 85 07 69 123 456 78", "STREET")
    dots, street = at("............", "IP"), at("12 Elm St", "STREET")
    got = [(s.label, s.text) for s in drop_shapeless([row, number, dots, street])]
    assert got == [
        ("DATE", "19/08"),  # a row of a lab table keeps its date only ("13.8" is no date)
        ("ID", "2 85 07 69 123 456 78"),
        ("STREET", "12 Elm St"),
    ]


def test_fill_spans_the_crf_overrules_are_dropped_others_kept():
    fill = [
        _span("Antenatal Clinic", "HOSPITAL", source="hospital_en"),
        _span("Triage", "DOCTOR", 20, source="name_degree"),
        _span("Paediatric Isolation Ward", "HOSPITAL", 30, source="named_ward"),
        _span("Ward 7", "HOSPITAL", 60, source="care_place_context_en"),
        _span("Okafor", "NAME", 70, source="person_cue_any_en"),
    ]
    assert _texts(drop_overruled_fill(fill)) == ["Ward 7", "Okafor"]


def test_honorifics_and_ranks_that_open_a_name_stay_outside_it():
    spans = [
        _span("Mallama Hauwa Sani", "NAME"),
        _span("CONST MAQUBELA", "NAME", 30),
        _span("Khun Somchai", "NAME", 50),
        _span("cpn shona kerr", "DOCTOR", 70),
        _span("Begum Rukhsana", "NAME", 90),  # also a surname: left as found
        _span("Mzee", "NAME", 110),  # alone: nothing else to keep
    ]
    assert _texts(trim_edges(spans)) == [
        "Hauwa Sani",
        "MAQUBELA",
        "Somchai",
        "shona kerr",
        "Begum Rukhsana",
        "Mzee",
    ]
