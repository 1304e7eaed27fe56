"""The standing attack suite: an attacker holds the released files and hidekit itself (and any
seed printed anywhere in the release) and tries to undo each masking step. Each test passes only
if the attack fails on what hidekit now releases by default or with a secret key; a control next
to it shows the very same attack succeeding on an ``insecure_seed`` release, so a test cannot
pass merely because the attack is broken.

Issue 16 found these attacks working on the old defaults: re-running jitter and subtracting gave
3,000 household locations back to a median 0.1 m; the demo's encode seed rebuilt 100 % of the
crosswalk; a one-line probe note read a patient's date shift; re-running surrogates confirmed
guessed names.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from hidekit.errors import OptionError
from hidekit.secrets import Randomness
from hidekit.text.anonymization.operators import anonymize_documents, get_operator
from hidekit.text.anonymization.surrogates import SurrogateGenerator
from hidekit.text.dates import parse_date
from hidekit.text.spans import Document, Span
from hidekit.text.synthesis import generate_notes
from hidekit.transforms.geo import Jitter, haversine_km
from hidekit.transforms.identifiers import Encode

# What an attacker tries: the old defaults (0), the demo's old documented seeds (11, 2024, 7)
# and every small number.
CANDIDATE_SEEDS = sorted({*range(60), 7, 11, 2024})
KEY = b"attack-suite-secret-key-0123456789abcdef"


def _households(n=400, seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "latitude": rng.uniform(-10, 10, n),
            "longitude": rng.uniform(20, 40, n),
            "urban": rng.choice(["urban", "rural"], n),
        }
    )


def _jitter_attack(released: pd.DataFrame, truth: pd.DataFrame, seed: int) -> float:
    """Re-run jitter with ``seed`` on the released points and subtract the displacement: the
    median error (km) of the recovered locations."""
    again = Jitter(urban="urban", seed=seed, insecure_seed=True).fit_transform(released)
    lat = 2 * released["latitude"] - again["latitude"]
    lon = 2 * released["longitude"] - again["longitude"]
    return float(np.median(haversine_km(lat, lon, truth["latitude"], truth["longitude"])))


def _best_jitter_attack(released, truth) -> float:
    return min(_jitter_attack(released, truth, s) for s in CANDIDATE_SEEDS)


def test_control_jitter_with_a_known_seed_is_undone():
    truth = _households()
    released = Jitter(urban="urban", seed=0, insecure_seed=True).fit_transform(truth)
    assert _jitter_attack(released, truth, 0) < 0.001  # under a metre: the attack works


@pytest.mark.parametrize("how", ["fresh", "keyed"])
def test_jitter_cannot_be_rerun_and_subtracted(how):
    truth = _households()
    released = Jitter(urban="urban", key=KEY if how == "keyed" else None).fit_transform(truth)
    # a displaced point is 0-2 km (urban) or 0-5 km (rural) away; subtracting a wrong draw adds
    # a second, independent displacement: the attacker ends up further away, not closer
    assert _best_jitter_attack(released, truth) > 1.0
    if how == "keyed":  # the key's holder reproduces the release exactly
        again = Jitter(urban="urban", key=KEY).fit_transform(truth)
        pd.testing.assert_frame_equal(released, again)


def test_jitter_seed_refused_without_insecure_seed():
    with pytest.raises(OptionError, match="insecure_seed"):
        Jitter(seed=0)


# Encode --------------------------------------------------------------------------------------


def _encode_attack(released_codes: pd.Series, truth: pd.Series, seed: int) -> float:
    """Rebuild the crosswalk from the value list and a guessed seed: the share of records whose
    original value the attacker then reads off the released code."""
    values = pd.DataFrame({"record_id": sorted(truth.unique())})
    cw = Encode(["record_id"], seed=seed, insecure_seed=True).fit(values).crosswalk_
    back = dict(zip(cw["code"], cw["value"], strict=True))
    guess = released_codes.map(back)
    return float((guess == truth.astype(str)).mean())


def _demo_release(tmp_path, extra_steps: str = ""):
    """The demo's release plan on a small synthetic survey, with the demo's own secret key."""
    from hidekit.demo.steps import DEMO_PLAN, demo_key
    from hidekit.demo.survey import generate_survey
    from hidekit.jobs.release_job import run_plan
    from hidekit.release import load_plan

    survey = generate_survey(600, seed=7)
    survey.to_csv(tmp_path / "survey.csv", index=False)
    text = DEMO_PLAN.read_text() + extra_steps
    plan_path = tmp_path / "plan.toml"
    plan_path.write_text(text.replace("../demo-output/survey.csv", "survey.csv"))
    plan = load_plan(plan_path, output=tmp_path / "release", key=demo_key(tmp_path))
    plan.overwrite = True
    result = run_plan(plan, scan=False)
    return survey, result


def test_demo_crosswalk_cannot_be_rebuilt_from_the_release(tmp_path):
    survey, result = _demo_release(tmp_path)
    released = pd.read_csv(tmp_path / "release" / result.files["data"], dtype=str)
    audit = (tmp_path / "release" / "audit.jsonl").read_text()
    assert '"seed"' not in audit  # nothing to start from ...
    best = max(
        _encode_attack(released["record_id"], survey["record_id"], s) for s in CANDIDATE_SEEDS
    )
    assert best < 0.05  # ... and guessing gets nowhere (chance is 1 in 600)
    # the crosswalk is not in the shipped folder at all, but beside it
    assert not list((tmp_path / "release").glob("crosswalk*"))
    assert (tmp_path / "release.private" / "crosswalk.hkcw").exists()


def test_control_encode_with_a_printed_seed_is_rebuilt(tmp_path):
    survey = pd.DataFrame({"record_id": np.arange(1, 601)})
    released = Encode(["record_id"], seed=11, insecure_seed=True).fit_transform(survey)
    assert _encode_attack(released["record_id"], survey["record_id"], 11) == 1.0


# Date shifts and names -----------------------------------------------------------------------


def _probe_shift(patient: str, seed: int) -> int:
    """Write a one-line probe note for ``patient``, anonymize it with a guessed seed, and read
    the date shift off the result."""
    text = "Seen on 01/15/2020."
    probe = Document("probe", text, [Span(8, 18, "DATE", "01/15/2020")], patient)
    out = anonymize_documents([probe], "surrogate", seed=seed, insecure_seed=True)
    new = out.documents[0].spans[0].text
    return (parse_date(new).value - parse_date("01/15/2020").value).days


def _patients(n=6):
    return sorted({d.patient for d in generate_notes(n, seed=5)})


def _shift_attack(op, patients) -> float:
    """The best share of patients whose true shift one guessed seed's probe note reveals."""
    truth = {p: op.generator.shift_days(p) for p in patients}
    return max(
        float(np.mean([_probe_shift(p, s) == truth[p] for p in patients])) for s in CANDIDATE_SEEDS
    )


def test_control_probe_note_reads_a_seeded_date_shift():
    op = get_operator("surrogate", seed=0, insecure_seed=True)
    assert _shift_attack(op, _patients()) == 1.0


@pytest.mark.parametrize("how", ["fresh", "keyed"])
def test_probe_note_cannot_read_the_date_shift(how):
    op = get_operator("surrogate", key=KEY if how == "keyed" else None)
    # by chance one seed in 64 matches a patient's shift with probability about 64 / 730
    assert _shift_attack(op, _patients()) <= 0.5


def _confirmations(op, patients, guesses) -> int:
    """How many (patient, seed) pairs confirm a guessed name: re-running the surrogates on the
    guess gives exactly what was released."""
    released = {p: op.generator.replace(guesses[p], "NAME", p) for p in patients}
    return sum(
        SurrogateGenerator(Randomness.insecure(s)).replace(guesses[p], "NAME", p) == released[p]
        for p in patients
        for s in CANDIDATE_SEEDS
    )


GUESSES = {"P00001": "John Smith", "P00002": "Maria Garcia", "P00003": "Wei Chen"}


def test_control_a_seeded_surrogate_confirms_a_guessed_name():
    op = get_operator("surrogate", seed=0, insecure_seed=True)
    assert _confirmations(op, list(GUESSES), GUESSES) >= len(GUESSES)


@pytest.mark.parametrize("how", ["fresh", "keyed"])
def test_rerunning_surrogates_cannot_confirm_a_guessed_name(how):
    op = get_operator("surrogate", key=KEY if how == "keyed" else None)
    assert _confirmations(op, list(GUESSES), GUESSES) == 0


def test_surrogate_seed_refused_without_insecure_seed():
    with pytest.raises(OptionError, match="insecure_seed"):
        get_operator("surrogate", seed=0)


# Link: the pseudonym order ----------------------------------------------------------------------


def test_link_pseudonym_order_not_replayable(tmp_path):
    from hidekit.demo.survey import generate_survey
    from hidekit.linking import link, release
    from hidekit.text.synthesis import generate_patient_notes

    frame = generate_survey(40, seed=11)
    linked = link(frame, generate_patient_notes(frame, 1, seed=5), "record_id")
    # the crosswalk's rows follow the view (record order); the pseudonym each person got is
    # what an attacker who could replay the order would learn
    truth = release(linked, ["sex", "age"], 3, key=KEY).crosswalk

    def replay(seed):
        return release(linked, ["sex", "age"], 3, seed=seed, insecure_seed=True).crosswalk

    best = max(float((replay(s)["person"] == truth["person"]).mean()) for s in range(8))
    assert best < 0.2
    control = release(linked, ["sex", "age"], 3, seed=3, insecure_seed=True).crosswalk
    assert (replay(3)["person"] == control["person"]).all()
    assert "seed" not in json.dumps(release(linked, ["sex", "age"], 3).params)


# No secret, seed or absolute path in anything released ------------------------------------------


def _released_files(out):
    """Every file the demo produces for release (the private folders and the demo's own inputs
    are what stays behind)."""
    shipped = ["release", "link", "notes-anonymized", "anonymized.csv", "partitioned"]
    files = []
    for name in shipped:
        p = out / name
        files += [p] if p.is_file() else [f for f in p.rglob("*") if f.is_file()]
    files += sorted(out.glob("*.html"))
    return [f for f in files if not f.name.endswith(".hkcw")]  # encrypted, owner-only


@pytest.fixture(scope="module")
def demo_out(tmp_path_factory):
    """The whole of ``make demo`` (every step, as ``hidekit demo`` runs them), on 150 records."""
    from hidekit.demo.pipeline import run_demo

    out = tmp_path_factory.mktemp("demo") / "out"
    run_demo(out, records=150, seed=7, echo=lambda line: None)
    return out


def test_no_key_seed_or_absolute_path_in_any_released_file(demo_out):
    from pathlib import Path

    key = (demo_out / "demo.key").read_bytes().strip()
    files = _released_files(demo_out)
    assert len(files) > 100  # the notes of link and text anonymize, reports, audits, tables
    forbidden = {
        "the demo key": key,
        "the demo key, decoded": __import__("base64").b64decode(key),
        "the output folder's absolute path": str(demo_out.resolve()).encode(),
        "the home folder": str(Path.home()).encode(),
        "the repository's absolute path": str(Path(__file__).resolve().parents[1]).encode(),
    }
    seed_marks = [b'"seed"', b"seed=", b"seed =", b"sample_seed"]
    for f in files:
        data = f.read_bytes()
        for what, needle in forbidden.items():
            assert needle not in data, f"{what} in {f.relative_to(demo_out)}"
        for mark in seed_marks:
            assert mark not in data, f"{mark!r} in {f.relative_to(demo_out)}"
    # what the release does say: that it was keyed
    audit = [json.loads(x) for x in (demo_out / "release" / "audit.jsonl").read_text().splitlines()]
    assert audit[0]["keyed"] is True and audit[0]["parameters"]["path"] == "survey.csv"
    steps = {a["use"]: a["parameters"] for a in audit[1:] if "parameters" in a}
    assert steps["encode"]["randomness"] == steps["jitter"]["randomness"] == "keyed"
    summary = json.loads((demo_out / "link" / "summary.json").read_text())
    assert summary["params"]["randomness"] == "keyed"


def test_private_files_sit_beside_the_release_owner_only_and_encrypted(demo_out):
    import stat

    for name in ("release", "link", "notes-anonymized"):
        private = demo_out / f"{name}.private"
        assert private.is_dir() and stat.S_IMODE(private.stat().st_mode) == 0o700
        inside = [f for f in private.iterdir() if not f.name.startswith(".")]  # the marker
        assert inside and all(f.suffix == ".hkcw" for f in inside), inside
        assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in inside)
        assert not (demo_out / name / "private").exists()
    assert not list((demo_out / "release").glob("crosswalk*"))
    assert not list((demo_out / "notes-anonymized").glob("mapping*"))


def test_no_key_seed_or_absolute_path_in_any_file_of_the_demo_folder(demo_out):
    """Every file ``make demo`` writes (reports, JSON, tables, notes, encrypted files, the
    survey itself), not only those meant for release: no absolute path, no key (but in the key
    file, owner-only), no printed seed. The text-risk report says how its draws were seeded."""
    import base64
    import stat
    from pathlib import Path

    key_file = demo_out / "demo.key"
    key = key_file.read_bytes().strip()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    files = sorted(f for f in demo_out.rglob("*") if f.is_file() and f != key_file)
    names = {f.relative_to(demo_out).parts[0] for f in files}
    for expected in ("scan.json", "risk.html", "selection.html", "utility.html", "text-risk.html",
                     "release", "link", "text-detect", "notes-anonymized", "survey.csv"):  # fmt: skip
        assert expected in names, expected
    forbidden = {
        "the demo key": key,
        "the demo key, decoded": base64.b64decode(key),
        "the demo folder's absolute path": str(demo_out.resolve()).encode(),
        "the temporary folder the demo was built in": str(demo_out.parent.resolve()).encode(),
        "the home folder": str(Path.home()).encode(),
        "the repository's absolute path": str(Path(__file__).resolve().parents[1]).encode(),
    }
    seed_marks = [b'"seed"', b"seed=", b"seed =", b"sample_seed", b"seed 7", b"seed: 7"]
    for f in files:
        data = f.read_bytes()
        where = f.relative_to(demo_out)
        for what, needle in forbidden.items():
            assert needle not in data, f"{what} in {where}"
        for mark in seed_marks:
            assert mark not in data, f"{mark!r} in {where}"
    scan = json.loads((demo_out / "scan.json").read_text())
    assert scan["source"] == "survey.csv"
    text_risk = (demo_out / "text-risk.html").read_text(encoding="utf-8")
    assert "Monte Carlo draws, seeded from secret" in text_risk
