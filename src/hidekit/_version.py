"""The version of hidekit, written once (pyproject reads it from here); a module of its own so
that low layers (``io.atomic``, ``report.html``) can name it without importing the package."""

__version__ = "0.1.0"
