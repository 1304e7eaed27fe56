"""The private folder: where crosswalks, mappings and keys go, apart from what is shipped.

A release folder is meant to be copied somewhere else; anything that could undo it (a crosswalk, a
surrogate mapping, the key) must not travel with it. By default the private folder sits beside the
output, never inside: ``release/`` → ``release.private/``. Files in it are encrypted
(``hidekit.transforms.crosswalk``) and owner-only; when no secret was given, a fresh key is made
for them and written there (``mapping.key``), to be moved to a safer place. The files are written
by ``hidekit.jobs.private``.
"""

from __future__ import annotations

from pathlib import Path

from hidekit.errors import OptionError

PRIVATE_SUFFIX = ".private"
NEW_KEY_NAME = "mapping.key"


def private_dir_for(out, private=None) -> Path:
    """``private`` if given (never inside ``out``), else ``out`` + ``.private`` beside it."""
    out = Path(out)
    if private is not None:
        folder = Path(private)
    elif out.name in ("", ".", ".."):  # "data/..": name the folder it resolves to
        folder = out.resolve().with_name(out.resolve().name + PRIVATE_SUFFIX)
    else:
        folder = out.with_name(out.name + PRIVATE_SUFFIX)
    o, p = out.resolve(), folder.resolve()
    if p == o or o in p.parents:
        raise OptionError(
            f"the private folder {folder} is inside the output {out}: it would be shipped "
            "with the data (choose a folder beside it)"
        )
    if p in o.parents:
        raise OptionError(f"the output {out} is inside the private folder {folder}")
    return folder
