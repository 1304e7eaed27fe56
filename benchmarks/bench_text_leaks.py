"""Notes leaking a direct identifier on en-dev (issue 14): figures on the validation split, and
the leaks of the other en-dev texts listed by label and case, to write rules against.

    .venv/bin/python benchmarks/bench_text_leaks.py [--model en] [--show N] [--label NAME]
        [--by-label] [--missed N]

The validation split is ``in_validation``: the en-dev texts ``held_for_validation`` keeps out of
training and every text from ``EN_DEV_UPTO`` on (never trained on; ``--fresh`` measures those alone,
issue 14 seventh round); texts ``pending_retrain`` (dev1283 on) are read by neither part. Only its aggregate figures are printed (recall, precision, share of texts leaking, per case and per label,
in the hipaa and i2b2 profiles). The leaks listed (with ``--show``, N per label and case, each with
a little context) are those of the en-dev texts not held for validation; held-out folders are
never read here. ``--by-label`` adds, on the validation split, the exact totals (texts leaking,
gold characters missed, predicted characters outside gold) and those characters by label and case
and by source (aggregates only); ``--missed N`` lists N missed gold spans per label and case (any
label, leaking or not) of the training part, with a little context.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_text_profiles import (  # noqa: E402
    case_of,
    char_counts,
    label_table,
    leaking_spans,
    row,
)
from hidekit.text.corpus import read_brat_dir  # noqa: E402
from hidekit.text.detection.detector import load_model  # noqa: E402
from hidekit.text.detection.dev_split import (  # noqa: E402
    EN_DEV_UPTO,
    in_validation,
    pending_retrain,
)
from hidekit.text.profiles import restrict_documents  # noqa: E402

EN_DEV = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "en-dev"


def en_dev_split(fresh: bool = False) -> tuple[list, list]:
    """The validation texts (with ``fresh``, only those from ``EN_DEV_UPTO`` on) and the training
    texts of en-dev; the texts ``pending_retrain`` are in neither."""
    docs = [
        d for d in read_brat_dir(EN_DEV) if d.id.startswith("dev") and not pending_retrain(d.id)
    ]
    valid = [d for d in docs if in_validation(d.id)]
    train = [d for d in docs if not in_validation(d.id)]
    if fresh:
        valid = [d for d in valid if int(d.id.removeprefix("dev")) >= EN_DEV_UPTO]
    return valid, train


def validation_table(gold, pred) -> None:
    counts = [char_counts(g, p) for g, p in zip(gold, pred, strict=True)]
    groups: dict[str, list] = defaultdict(list)
    for g, c in zip(gold, counts, strict=True):
        groups[f"case: {case_of(g.text)}"].append(c)
    print("| setting | texts | char recall | char precision | texts leaking a direct id |")
    print("|---|---:|---:|---:|---:|")
    print(row("all", counts))
    for name in sorted(groups):
        print(row(name, groups[name]))
    label_table(counts, gold_chars=True)
    leaks = Counter()
    for g, p in zip(gold, pred, strict=True):
        for s in leaking_spans(g, p):
            leaks[s.label, case_of(g.text)] += 1
    print("\nleaking spans by label and case:", dict(leaks.most_common()))


def missed_and_false(gold, pred) -> None:
    """Exact totals, then gold characters missed by label and case, predicted characters outside
    gold by label and by source (non-space characters, as ``char_counts``)."""
    missed, false, sources = Counter(), Counter(), Counter()
    leaking = 0
    for g, p in zip(gold, pred, strict=True):
        case = case_of(g.text)
        gl = [False] * len(g.text)
        pl = [False] * len(g.text)
        for s in g.spans:
            gl[s.start : s.end] = [True] * s.length
        for s in p.spans:
            pl[s.start : s.end] = [True] * s.length
        for s in g.spans:
            missed[s.label, case] += sum(
                1 for i in range(s.start, s.end) if not pl[i] and not g.text[i].isspace()
            )
        for s in p.spans:
            n = sum(1 for i in range(s.start, s.end) if not gl[i] and not g.text[i].isspace())
            false[s.label] += n
            sources[s.source or "?"] += n
        leaking += bool(leaking_spans(g, p))
    print(
        f"\nexact: texts leaking {leaking}, gold chars missed {sum(missed.values())}, "
        f"predicted chars outside gold {sum(false.values())}"
    )
    print("missed chars by label and case:", dict((k, v) for k, v in missed.most_common() if v))
    print("false chars by label:", dict((k, v) for k, v in false.most_common() if v))
    print("false chars by source:", dict((k, v) for k, v in sources.most_common() if v))


def missed_spans(gold, pred, show: int, label: str | None) -> None:
    """The training part's gold spans with a non-space character left unpredicted."""
    by: dict[tuple[str, str], list[str]] = defaultdict(list)
    for g, p in zip(gold, pred, strict=True):
        pl = [False] * len(g.text)
        for s in p.spans:
            pl[s.start : s.end] = [True] * s.length
        for s in g.spans:
            if label and s.label != label:
                continue
            if all(pl[i] or g.text[i].isspace() for i in range(s.start, s.end)):
                continue
            a, b = max(0, s.start - 40), min(len(g.text), s.end + 40)
            near = [f"{q.text!r}:{q.label}" for q in p.spans if q.end > a and q.start < b]
            ctx = g.text[a : s.start] + "[[" + s.text + "]]" + g.text[s.end : b]
            by[s.label, case_of(g.text)].append(
                f"{g.id}: {ctx.replace(chr(10), '⏎')}  pred: {near}"
            )
    for key, items in sorted(by.items(), key=lambda kv: -len(kv[1])):
        print(f"### missed {key[0]} / {key[1]}: {len(items)} spans")
        for line in items[:show]:
            print("  ", line)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="en")
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--label", default=None)
    ap.add_argument("--profiles", default="hipaa,i2b2")
    ap.add_argument("--fresh", action="store_true", help=f"only dev{EN_DEV_UPTO} onward")
    ap.add_argument("--by-label", action="store_true", help="missed/false chars by label, source")
    ap.add_argument("--missed", type=int, default=0, help="list N missed spans per label (train)")
    args = ap.parse_args()
    valid, train = en_dev_split(fresh=args.fresh)
    for prof in args.profiles.split(","):
        det = load_model(args.model, profile=prof)
        print(f"## profile {prof}: validation split ({len(valid)} en-dev texts)\n")
        gold = restrict_documents(valid, prof)
        pred = restrict_documents(det.detect_documents(valid, n_jobs=1), prof)
        validation_table(gold, pred)
        if args.by_label:
            missed_and_false(gold, pred)
        if args.missed:
            gold = restrict_documents(train, prof)
            pred = restrict_documents(det.detect_documents(train, n_jobs=1), prof)
            missed_spans(gold, pred, args.missed, args.label)
        if not args.show:
            print()
            continue
        gold = restrict_documents(train, prof)
        pred = restrict_documents(det.detect_documents(train, n_jobs=1), prof)
        by: dict[tuple[str, str], list[str]] = defaultdict(list)
        n_leak = 0
        for g, p in zip(gold, pred, strict=True):
            found = leaking_spans(g, p)
            n_leak += bool(found)
            for s in found:
                a, b = max(0, s.start - 40), min(len(g.text), s.end + 40)
                near = [f"{q.text!r}:{q.label}" for q in p.spans if q.end > a and q.start < b]
                ctx = (g.text[a : s.start] + "[[" + s.text + "]]" + g.text[s.end : b]).replace(
                    "\n", "⏎"
                )
                by[s.label, case_of(g.text)].append(f"{g.id}: {ctx}   pred: {near}")
        print(f"\n## profile {prof}: training part ({len(train)} texts), {n_leak} leak\n")
        for key, items in sorted(by.items(), key=lambda kv: -len(kv[1])):
            if args.label and key[0] != args.label:
                continue
            print(f"### {key[0]} / {key[1]}: {len(items)} spans")
            for line in items[: args.show]:
                print("  ", line)
        print()


if __name__ == "__main__":
    main()
