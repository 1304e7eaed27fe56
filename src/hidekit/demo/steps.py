"""The steps of ``make demo``, in order. Each takes the output folder and a shared context dict
(the survey frame, its path, the seed) and returns a one-line summary.

Steps over files call jobs (``hidekit.jobs``: scan, release, text anonymize, link), as a user's
commands would; steps over the in-memory survey call the library directly. The demo makes its
own secret key (``demo-output/demo.key``, owner-only, beside the released folders and never
inside): it keys every random choice and encrypts crosswalks and mappings.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hidekit import jobs
from hidekit.demo.survey import KEYS, generate_survey
from hidekit.io import write_table
from hidekit.jobs import SecretOptions
from hidekit.jobs.files import new_key_file, save_report
from hidekit.secrets import load_key, public_path

Step = Callable[[Path, dict], str]

DEMO_PLAN = Path(__file__).resolve().parents[3] / "examples" / "demo-plan.toml"
DEMO_KEYS = ["sex", "age", "race", "marital_status", "education", "state"]
# direct identifiers, and indirect ones this release does not generalize (age_group repeats age)
DEMO_DROP = [
    "record_id",
    "name",
    "ssn",
    "phone",
    "email",
    "street_address",
    "city",
    "zip",
    "latitude",
    "longitude",
    "birth_date",
    "visit_date",
    "age_group",
]


DEMO_KEY = "demo.key"


def demo_key(out) -> bytes:
    """The demo's secret key, ``out/demo.key`` (made on first use, owner-only): a real key, so
    the demo shows the practice it preaches; it sits beside the released folders, never inside."""
    path = Path(out) / DEMO_KEY
    if not path.exists():
        new_key_file(path)
    key = load_key(path)
    assert key is not None  # the file exists: load_key reads it or raises
    return key


def _keyed(out: Path) -> SecretOptions:
    """The demo's secrets: its own key file, made on first use."""
    demo_key(out)
    return SecretOptions(key_file=Path(out) / DEMO_KEY)


def step_generate(out: Path, ctx: dict) -> str:
    frame = generate_survey(ctx.get("records", 5000), ctx.get("seed", 7))
    frame["age_group"] = (frame["age"] // 10 * 10).astype(str) + "s"
    path = write_table(frame, out / "survey.csv")
    ctx["survey"] = path
    ctx["frame"] = frame
    return f"synthetic survey: {len(frame):,} records, {frame.shape[1]} columns -> {path}"


def step_scan(out, ctx: dict) -> str:
    """Scan the demo survey (the ``scan`` job), write ``scan.json``, partition its direct
    identifiers. Adds ``ctx["scan"]`` (the ScanResult) and ``ctx["direct"]``."""
    from hidekit.io import write_text_atomic
    from hidekit.io.jsonout import to_json
    from hidekit.jobs.identifiers import write_partition
    from hidekit.transforms.partition import partition

    out = Path(out)
    result = jobs.scan(ctx["survey"]).detail
    # the file name, not the absolute path; the sampling seed only when rows were sampled
    shown = {**result.to_dict(), "source": public_path(ctx["survey"], out)}
    if not result.sampled:
        shown.pop("sample_seed")
    write_text_atomic(out / "scan.json", to_json(shown))
    direct = result.names("direct")
    ctx["scan"], ctx["direct"] = result, direct
    key = demo_key(out)  # keys the IDs, encrypts original and link
    parts = partition(
        ctx["frame"], [c for c in direct if c not in ("latitude", "longitude")], key=key
    )
    write_partition(
        parts, out / "partitioned", stem="survey", overwrite=True, link_secret={"key_file": key}
    )
    return (
        f"PII scan: {len(result.flagged)} of {len(result.columns)} columns flagged, direct: "
        f"{', '.join(direct)} -> {out / 'scan.json'}; partitioned into "
        f"{out / 'partitioned'} ({len(parts.link):,} observation IDs)"
    )


def step_risk(out: Path, ctx: dict) -> str:
    from hidekit.risk import measure_risk
    from hidekit.risk.report import risk_report

    result = measure_risk(ctx["frame"], KEYS, cell_min=3, by="urban_rural")
    save_report(risk_report(result, "Demo: risk of the raw survey"), out / "risk.html")
    r = result.overall
    return (
        f"risk of {', '.join(KEYS)}: k={r.k}, uniques={r.uniques:,}, RP={r.rp:.3f}, "
        f"CR={r.cr:.3f} -> {out / 'risk.html'}"
    )


def step_select(out: Path, ctx: dict) -> str:
    from hidekit.selection import select_variables
    from hidekit.selection.report import selection_report

    keys = ["race", "marital_status", "education", "urban_rural", "state", "visit_date"]
    res = select_variables(
        ctx["frame"], keys, force=["sex", "age_group"], method="forward", stop=0.05
    )
    assert not isinstance(res, list)  # one result: no group
    title = "Demo: forward selection, RP limit 5%"
    save_report(selection_report([res], 0.05, title), out / "selection.html")
    return (
        f"forward selection (RP ≤ 0.05, forced sex, age_group): {' '.join(res.selected)} "
        f"(RP {res.final['rp']:.3f}) -> {out / 'selection.html'}"
    )


def step_anonymize(out: Path, ctx: dict) -> str:
    """Mondrian k = 5, 2-diverse diagnosis; the release and its utility report (HIDE Figure 3)."""
    from hidekit.anonymize import mondrian
    from hidekit.anonymize.utility import precision_curve, utility, utility_report

    frame = ctx["frame"]
    drop = [c for c in DEMO_DROP if c in frame.columns]
    res = mondrian(frame, DEMO_KEYS, 5, l=2, sensitive="diagnosis", identifiers=drop)
    path = write_table(res.released, Path(out) / "anonymized.csv")
    original = frame.drop(columns=drop)
    u = utility(original, res.released, DEMO_KEYS, k=5, n_queries=2000, seed=7)
    curve = {
        "attribute": "age",
        "rows": precision_curve(
            original,
            DEMO_KEYS,
            "age",
            [2, 5, 10, 25, 50],
            n_queries=2000,
            seed=7,
            l=2,
            sensitive="diagnosis",
        ),
    }
    title = "Demo: utility of the Mondrian release"
    report = save_report(utility_report(u, curve, title), Path(out) / "utility.html")
    s = res.stats
    return (
        f"Mondrian k=5, 2-diverse diagnosis on {', '.join(DEMO_KEYS)}: {s['classes']:,} classes, "
        f"k={s['k']}, NCP {u['ncp']:.3f}, age query precision {u['query_precision']['age']:.3f} "
        f"-> {path}, {report}"
    )


def step_release(out: Path, ctx: dict) -> str:
    """examples/demo-plan.toml on the demo survey (the ``release`` job); the crosswalk goes to
    ``release.private/``, nothing in ``release/`` can undo the masking."""
    job = jobs.release(
        DEMO_PLAN, Path(out) / "release", data=ctx["survey"], overwrite=True, secrets=_keyed(out)
    )
    res, plan = job.detail, job.detail.plan
    sup = next((s for s in res.steps if s.use == "suppress"), None)
    cells = sum(sup.cells_changed.values()) if sup else 0
    return (
        f"release plan ({len(res.steps)} steps): k {res.before.k} -> {res.after.k}, "
        f"RP {res.before.rp:.3f} -> {res.after.rp:.3f}, {cells:,} cells suppressed -> "
        f"{plan.output} ({', '.join(v for k, v in res.files.items() if k != 'crosswalk')}); "
        f"crosswalk -> {plan.private_folder()} (keyed by {Path(out) / DEMO_KEY})"
    )


def step_text_detect(out: Path, ctx: dict) -> str:
    """PHI in seeded synthetic notes found by the shipped en model; brat written; scored."""
    from hidekit.jobs.corpus import write_brat_dir
    from hidekit.text.detection.detector import load_model
    from hidekit.text.span_metrics import evaluate_spans
    from hidekit.text.synthesis import generate_notes

    gold = generate_notes(40, seed=ctx.get("seed", 7))
    found = load_model("en").detect_documents(gold, n_jobs=2)
    folder = write_brat_dir(found, Path(out) / "text-detect")
    r = evaluate_spans(gold, found)
    return (
        f"PHI detection on {len(gold)} synthetic notes: {sum(len(d.spans) for d in found):,} spans, "
        f"strict F1 {r['strict']['micro']['f1']:.3f}, token recall {r['token']['phi']['recall']:.3f} "
        f"-> {folder}"
    )


def step_text_anonymize(out: Path, ctx: dict) -> str:
    """Notes about the first survey respondents, then consistent surrogates (the ``text
    anonymize`` job) from the shipped English model when present, else the notes' own spans."""
    from hidekit.errors import InputError
    from hidekit.jobs.corpus import write_brat_dir
    from hidekit.text.detection.detector import load_model
    from hidekit.text.synthesis import generate_patient_notes

    rows = ctx["frame"].head(25)
    docs = generate_patient_notes(rows, notes_per_patient=2, seed=ctx.get("seed", 7))
    notes_dir = write_brat_dir(docs, Path(out) / "notes")
    model: str | None = "en"
    spans: Path | None = None
    try:
        load_model(model)
    except InputError:
        model, spans = None, notes_dir
    job = jobs.anonymize_text(
        notes_dir,
        Path(out) / "notes-anonymized",
        operator="surrogate",
        patient_pattern=r"^note-(.+)-\d+$",
        overwrite=True,
        secrets=_keyed(out),  # keys the surrogates, encrypts the mapping (private folder)
        model=model,
        spans=spans,
    )
    source = "English model" if model else "gold annotations"
    return (
        f"{len(docs)} synthetic notes about {len(rows)} respondents -> {notes_dir}; "
        f"{job.figures['replaced']:,} PHI spans ({source}) replaced by consistent surrogates "
        f"-> {Path(out) / 'notes-anonymized'}"
    )


def step_text_risk(out: Path, ctx: dict) -> str:
    """Risk left by a simulated tool that misses 2% of the PHI in survey notes."""
    from hidekit.evaluation.text_risk import assess_text_risk
    from hidekit.evaluation.text_risk_corpus import drop_spans
    from hidekit.evaluation.text_risk_demo import survey_notes
    from hidekit.evaluation.text_risk_report import text_risk_report

    gold = survey_notes(ctx["frame"])
    pred = drop_spans(gold, 0.02, seed=ctx.get("seed", 7))
    res = assess_text_risk(gold, pred, key=demo_key(out))  # report: "seeded from secret"
    path = Path(out) / "text-risk.html"
    title = "Demo: text risk of survey notes (simulated tool missing 2% of PHI)"
    save_report(text_risk_report(res, title), path)
    d = res.to_dict()
    di, qi = d["direct"], d["quasi"]
    return (
        f"text risk of {d['n']:,} notes (simulated 2% misses): masking recall DI "
        f"{di['conventional']['masking_recall']:.3f}, P(DI leak) {di['mean']:.3f} "
        f"[{di['ci'][0]:.3f}, {di['ci'][1]:.3f}] {'ok' if di['acceptable'] else 'NOT ok'}; "
        f"P(≥2 QI) {qi['mean']:.3f} [{qi['ci'][0]:.3f}, {qi['ci'][1]:.3f}] "
        f"{'ok' if qi['acceptable'] else 'NOT ok'} -> {path}"
    )


def step_link(out: Path, ctx: dict) -> str:
    """300 survey persons × 3 synthetic notes linked by file name (the ``link`` job), k = 5 on
    (sex, age, zip), 2-diverse diagnosis, written back into the notes; HIDE's Figure 3."""
    from hidekit.jobs.corpus import write_brat_dir
    from hidekit.text.synthesis import generate_patient_notes

    out = Path(out)
    seed = ctx.get("seed", 7)  # of the synthetic notes only
    secrets = _keyed(out)  # pseudonym order, surrogates, private files
    frame = ctx["frame"].head(300)
    inputs = out / "link-input"
    write_table(frame, inputs / "records.csv", private=True)
    docs = generate_patient_notes(frame, 3, seed=seed)
    write_brat_dir(docs, inputs / "notes")
    res = jobs.link(
        inputs / "records.csv",
        inputs / "notes",
        out / "link",
        key="record_id",
        keys=["sex", "age", "zip"],
        k=5,
        l=2,
        sensitive="diagnosis",
        note_pattern=r"^note-(?P<patient>\d+)-\d+\.txt$",
        model="en",
        curve_ks=(2, 5, 10, 20, 50),
        overwrite=True,
        secrets=secrets,
    ).figures
    s = res["stats"]
    return (
        f"link: {res['persons']:,} persons, {res['documents']:,} notes, k={s['k']} "
        f"(asked 5), l={s.get('distinct_l')}, {res['actions'].get('generalized', 0):,} "
        f"mentions generalized -> {res['files']['report']}"
    )


STEPS: list[Step] = [
    step_generate,
    step_scan,
    step_risk,
    step_select,
    step_anonymize,
    step_release,
    step_text_detect,
    step_text_anonymize,
    step_text_risk,
    step_link,
]
