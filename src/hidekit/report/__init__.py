"""Self-contained offline HTML reports with inline SVG plots."""

from hidekit.report.html import Report
from hidekit.report.svg import bar_chart, histogram, line_chart

__all__ = ["Report", "bar_chart", "histogram", "line_chart"]
