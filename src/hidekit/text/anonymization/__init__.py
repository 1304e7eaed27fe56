"""Replacing PHI found in text (Presidio's anonymizer): operators, surrogates, span edges and the
clinical safe-list."""
