"""User-facing errors: each carries a one-line message the CLI prints as-is."""


class HidekitError(Exception):
    """Base class for problems the user can fix (bad input, bad options)."""


class InputError(HidekitError):
    """The data could not be read or does not have what was asked for."""


class ColumnNotFound(InputError):
    def __init__(self, missing, available):
        self.missing = list(missing)
        self.available = list(available)
        shown = ", ".join(repr(c) for c in self.available[:12])
        more = "" if len(self.available) <= 12 else f", … ({len(self.available)} columns)"
        hint = ""
        if len(self.available) == 1 and any(ch in self.available[0] for ch in ",;|\t"):
            hint = "; the file was read as a single column: is the delimiter right? (use --sep)"
        super().__init__(
            f"column{'s' if len(self.missing) > 1 else ''} not in the data: "
            f"{', '.join(repr(m) for m in self.missing)} (available: {shown}{more}){hint}"
        )


class OptionError(HidekitError):
    """An option or parameter is outside its allowed range."""


class OutputError(OptionError):
    """An output path is refused (it is, holds or sits in an input; a folder hidekit does not
    own) or cannot be written (read-only, a file where a folder should be)."""


class PolicyError(HidekitError):
    """A release would break the plan's rules (identifier left, risk limit not met)."""


def require_columns(frame_columns, wanted):
    """Raise ColumnNotFound naming every wanted column that is absent."""
    cols = list(frame_columns)
    missing = [w for w in wanted if w not in cols]
    if missing:
        raise ColumnNotFound(missing, cols)


def require_number(name, value, *, positive: bool = False):
    """A finite real number (not a bool, not NaN, not infinity), else an OptionError naming it.

    ``float("inf")`` as a bin width blanks a column and ``nan`` as a threshold codes nothing, both
    silently; plans can also hand over ``true`` or a string where a number belongs.
    """
    import math

    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        and not hasattr(value, "__float__")
    ):
        raise OptionError(f"{name} must be a number, got {value!r}")
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise OptionError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(f):
        raise OptionError(f"{name} must be a finite number, got {value!r}")
    if positive and not f > 0:
        raise OptionError(f"{name} must be positive, got {value!r}")
    return f


def check_separator(sep: str, name: str = "--sep") -> str:
    """A CSV delimiter is one character that is not a quote, a line break or a letter/digit.

    pandas treats longer separators as regular expressions (and warns on stderr).
    """
    if not isinstance(sep, str) or len(sep) != 1 or sep in '"\r\n' or sep.isalnum():
        raise OptionError(
            f"{name} must be one character such as , ; | or a tab (not a quote, letter, digit "
            f"or line break), got {sep!r}"
        )
    return sep


def require_fraction(name, value):
    """Thresholds such as RP limits are shares: refuse anything outside [0, 1]."""
    if value is None:
        return
    if not (0.0 <= float(value) <= 1.0):
        raise OptionError(f"{name} must be between 0 and 1, got {value}")


def require_chunk_rows(value, name: str = "--chunk-rows") -> int | None:
    """Records per chunk of a run by chunks: None (the default: by chunks only for a large file)
    or a whole number of at least 1, else an OptionError naming it."""
    import numbers

    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise OptionError(f"{name} must be a whole number of records, got {value!r}")
    if int(value) < 1:
        raise OptionError(f"{name} must be at least 1 record, got {value!r}")
    return int(value)
