"""Moved to ``hidekit.text.span_metrics`` (span evaluation sits inside ``text``, so ``text`` and
``evaluation`` no longer import each other); this old name stays an alias of that module."""

import sys

from hidekit.text import span_metrics

sys.modules[__name__] = span_metrics
