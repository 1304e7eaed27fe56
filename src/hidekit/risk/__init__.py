"""Risk of re-identification measured from cell counts."""

from hidekit.risk.metrics import RiskReport, RiskResult, measure_risk, report_from_sizes

__all__ = ["RiskReport", "RiskResult", "measure_risk", "report_from_sizes"]
