"""hidekit: prepare personal data for safe release, with re-identification risk measured.

The Python API mirrors the command line; everything the docs use is importable from here::

    import hidekit
    hidekit.measure_risk("survey.csv", keys=["sex", "age", "zip"])
    hidekit.select_variables(df, keys=[...], method="forward", stop=0.3, force=["sex"])

Names are loaded on first use (PEP 562), so ``import hidekit`` stays fast and a command that
needs only tables never imports the text models. Type checkers and IDEs read the imports in the
``TYPE_CHECKING`` block below, which ``tests/test_public_api.py`` checks against ``_EXPORTS``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from hidekit._lazy import load_export
from hidekit._version import __version__

# public name -> the module that defines it (one line per name; the test checks the block below)
_EXPORTS: dict[str, str] = {
    # tables in and out
    "Dataset": "hidekit.io",
    "read_table": "hidekit.io",
    "write_table": "hidekit.io",
    "make_engine": "hidekit.engines",
    # measuring risk, choosing keys
    "measure_risk": "hidekit.risk",
    "RiskResult": "hidekit.risk",
    "select_variables": "hidekit.selection",
    "SelectionResult": "hidekit.selection",
    "scan_table": "hidekit.scan",
    "ScanResult": "hidekit.scan",
    # table steps (scikit-learn shape), by their class names
    "Transform": "hidekit.transforms",
    "get_transform": "hidekit.transforms",
    "Bin": "hidekit.transforms.generalize",
    "CoarsenDate": "hidekit.transforms.generalize",
    "Hierarchy": "hidekit.transforms.generalize",
    "MapValues": "hidekit.transforms.generalize",
    "Encode": "hidekit.transforms.identifiers",
    "KeyedHash": "hidekit.transforms.identifiers",
    "Partition": "hidekit.transforms.partition",
    "Redact": "hidekit.transforms.identifiers",
    "Remove": "hidekit.transforms.identifiers",
    "Jitter": "hidekit.transforms.geo",
    "SafeHarbor": "hidekit.transforms.safe_harbor",
    "LocalSuppression": "hidekit.transforms.suppression",
    "TopCode": "hidekit.transforms.topcode",
    "RiskSuppression": "hidekit.risk.suppression",
    "Mondrian": "hidekit.anonymize",
    "OptimalGeneralization": "hidekit.anonymize.optimal.transform",
    "local_suppression": "hidekit.transforms.suppression",
    "partition": "hidekit.transforms.partition",
    "write_partition": "hidekit.jobs.identifiers",
    # anonymizing tables
    "mondrian": "hidekit.anonymize.mondrian",
    "is_l_diverse": "hidekit.anonymize",
    "l_diversity": "hidekit.anonymize",
    "t_closeness": "hidekit.anonymize",
    "utility": "hidekit.anonymize.utility",
    "precision_curve": "hidekit.anonymize.utility",
    "optimal_generalization": "hidekit.anonymize.optimal",
    "evaluate_transformation": "hidekit.anonymize.optimal",
    "OptimalResult": "hidekit.anonymize.optimal",
    # release plans
    "load_plan": "hidekit.release",
    "run_plan": "hidekit.jobs.release_job",
    "Plan": "hidekit.release",
    "ReleaseResult": "hidekit.release",
    # free text: detection, anonymization, synthesis, risk
    "load_model": "hidekit.text.detection.detector",
    "train_model": "hidekit.text.detection.training",
    "cross_validate": "hidekit.text.detection.cross_validation",
    "augment_documents": "hidekit.text.detection.training",
    "learn_clusters": "hidekit.text.detection.training",
    "read_brat_dir": "hidekit.text.corpus",
    "write_brat_dir": "hidekit.jobs.corpus",
    "evaluate_spans": "hidekit.text.span_metrics",
    "get_operator": "hidekit.text.anonymization.operators",
    "anonymize_documents": "hidekit.text.anonymization.operators",
    "anonymize_corpus": "hidekit.jobs.corpus",
    "generate_notes": "hidekit.text.synthesis",
    "generate_patient_notes": "hidekit.text.synthesis",
    "write_synthetic_corpus": "hidekit.jobs.corpus",
    "assess_text_risk": "hidekit.evaluation.text_risk",
    "di_risk": "hidekit.evaluation.text_risk",
    "qi_risk": "hidekit.evaluation.text_risk",
    "text_risk_report": "hidekit.evaluation.text_risk_report",
    # writing what the library returns (the jobs layer writes files)
    "save_report": "hidekit.jobs.files",
    "save_model": "hidekit.jobs.files",
    # records and notes together; keys; the demo data
    "link": "hidekit.linking.link",
    "hide_figure3": "hidekit.linking",
    "load_key": "hidekit.secrets",
    "new_key_file": "hidekit.jobs.files",
    "generate_survey": "hidekit.demo.survey",
}

if TYPE_CHECKING:
    from hidekit.anonymize import Mondrian, is_l_diverse, l_diversity, t_closeness
    from hidekit.anonymize.mondrian import mondrian  # the function, not the module
    from hidekit.anonymize.optimal import (
        OptimalResult,
        evaluate_transformation,
        optimal_generalization,
    )
    from hidekit.anonymize.optimal.transform import OptimalGeneralization
    from hidekit.anonymize.utility import precision_curve, utility
    from hidekit.demo.survey import generate_survey
    from hidekit.engines import make_engine
    from hidekit.evaluation.text_risk import assess_text_risk, di_risk, qi_risk
    from hidekit.evaluation.text_risk_report import text_risk_report
    from hidekit.io import Dataset, read_table, write_table
    from hidekit.jobs.corpus import anonymize_corpus, write_brat_dir, write_synthetic_corpus
    from hidekit.jobs.files import new_key_file, save_model, save_report
    from hidekit.jobs.identifiers import write_partition
    from hidekit.jobs.release_job import run_plan
    from hidekit.linking import hide_figure3
    from hidekit.linking.link import link  # the function, not the module
    from hidekit.release import Plan, ReleaseResult, load_plan
    from hidekit.risk import RiskResult, measure_risk
    from hidekit.risk.suppression import RiskSuppression
    from hidekit.scan import ScanResult, scan_table
    from hidekit.secrets import load_key
    from hidekit.selection import SelectionResult, select_variables
    from hidekit.text.anonymization.operators import anonymize_documents, get_operator
    from hidekit.text.corpus import read_brat_dir
    from hidekit.text.detection.cross_validation import cross_validate
    from hidekit.text.detection.detector import load_model
    from hidekit.text.detection.training import augment_documents, learn_clusters, train_model
    from hidekit.text.span_metrics import evaluate_spans
    from hidekit.text.synthesis import generate_notes, generate_patient_notes
    from hidekit.transforms import Transform, get_transform
    from hidekit.transforms.generalize import Bin, CoarsenDate, Hierarchy, MapValues
    from hidekit.transforms.geo import Jitter
    from hidekit.transforms.identifiers import Encode, KeyedHash, Redact, Remove
    from hidekit.transforms.partition import Partition, partition
    from hidekit.transforms.safe_harbor import SafeHarbor
    from hidekit.transforms.suppression import LocalSuppression, local_suppression
    from hidekit.transforms.topcode import TopCode

# written out (not built from _EXPORTS) so that type checkers and IDEs see what is public
__all__ = [
    "__version__",
    "anonymize_corpus",
    "anonymize_documents",
    "assess_text_risk",
    "augment_documents",
    "Bin",
    "CoarsenDate",
    "cross_validate",
    "Dataset",
    "di_risk",
    "Encode",
    "evaluate_spans",
    "evaluate_transformation",
    "generate_notes",
    "generate_patient_notes",
    "generate_survey",
    "get_operator",
    "get_transform",
    "hide_figure3",
    "Hierarchy",
    "is_l_diverse",
    "Jitter",
    "KeyedHash",
    "l_diversity",
    "learn_clusters",
    "link",
    "load_key",
    "load_model",
    "load_plan",
    "local_suppression",
    "LocalSuppression",
    "make_engine",
    "MapValues",
    "measure_risk",
    "Mondrian",
    "mondrian",
    "new_key_file",
    "optimal_generalization",
    "OptimalGeneralization",
    "OptimalResult",
    "Partition",
    "partition",
    "Plan",
    "precision_curve",
    "qi_risk",
    "read_brat_dir",
    "read_table",
    "Redact",
    "ReleaseResult",
    "Remove",
    "RiskResult",
    "RiskSuppression",
    "run_plan",
    "SafeHarbor",
    "save_model",
    "save_report",
    "scan_table",
    "ScanResult",
    "select_variables",
    "SelectionResult",
    "t_closeness",
    "text_risk_report",
    "TopCode",
    "train_model",
    "Transform",
    "utility",
    "write_brat_dir",
    "write_partition",
    "write_synthetic_corpus",
    "write_table",
]


def __getattr__(name: str) -> Any:
    """Load a public name (or a subpackage such as ``hidekit.text``) on first use."""
    if name in _EXPORTS:
        return load_export(globals(), name, _EXPORTS[name])  # later lookups skip this function
    if not name.startswith("_"):
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
