"""The command line's secret options, declared once: a key or a passphrase from a file, an
environment variable or a prompt (never a value on the command line), the private folder, and
the insecure seed. A command asks for the groups it needs with ``@secret_options(...)`` and
receives one ``hidekit.jobs.SecretOptions`` as ``secrets``; the job reads the secrets through
``hidekit.secrets.resolve_secret``."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from hidekit.errors import OptionError
from hidekit.jobs.secrets import PASSPHRASE_ENV, SecretOptions

KeyFileOpt = typer.Option(
    None, "--key-file", help="Secret key file (hidekit new-key); keep it apart from the data."
)
KeyEnvOpt = typer.Option(
    None, "--key-env", help="Name of an environment variable holding the secret key."
)
PassFileOpt = typer.Option(
    None, "--passphrase-file", help=f"File holding the passphrase (or set ${PASSPHRASE_ENV})."
)
PassEnvOpt = typer.Option(
    None, "--passphrase-env", help="Name of an environment variable holding the passphrase."
)
SeedOpt = typer.Option(
    None,
    "--seed",
    min=0,
    help="For tests and synthetic data only (needs --insecure-seed): anyone who knows the seed "
    "can undo the masking. Use --key-file for reproducible releases.",
)
InsecureSeedOpt = typer.Option(
    False, "--insecure-seed", help="Accept --seed for a masking step (never for a release)."
)
PrivateOpt = typer.Option(
    None,
    "--private",
    help="Folder for crosswalks, mappings and keys (default: OUT.private beside --out, never "
    "inside it).",
)
PassphraseValueOpt = typer.Option(
    None,
    "--passphrase",
    hidden=True,
    help="Removed: a value on the command line is visible to every user (ps).",
)

# group -> (parameter, type, option), in the order they are shown by --help
GROUPS: dict[str, list[tuple[str, Any, Any]]] = {
    "key": [("key_file", Path | None, KeyFileOpt), ("key_env", str | None, KeyEnvOpt)],
    "passphrase": [
        ("passphrase_file", Path | None, PassFileOpt),
        ("passphrase_env", str | None, PassEnvOpt),
    ],
    "private": [("private", Path | None, PrivateOpt)],
    "seed": [("seed", int | None, SeedOpt), ("insecure_seed", bool, InsecureSeedOpt)],
    "refuse_value": [("passphrase", str | None, PassphraseValueOpt)],
}


def refuse_passphrase_value(value) -> None:
    """``--passphrase VALUE`` is gone: say what to use instead."""
    if value is not None:
        raise OptionError(
            "--passphrase VALUE was removed (a command line is visible to every user): use "
            f"--passphrase-file FILE, --passphrase-env NAME, ${PASSPHRASE_ENV}, or the prompt"
        )


def secret_options(*groups: str) -> Callable[[Callable], Callable]:
    """Add the options of ``groups`` (key, passphrase, private, seed, refuse_value) to a command
    and hand it one ``SecretOptions`` as its ``secrets`` argument."""
    chosen = [entry for g in groups for entry in GROUPS[g]]

    def decorate(fn: Callable) -> Callable:
        sig = inspect.signature(fn)
        own = [p for p in sig.parameters.values() if p.name != "secrets"]
        added = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=opt, annotation=kind)
            for name, kind, opt in chosen
        ]

        @functools.wraps(fn)
        def command(*args, **kwargs):
            values = {name: kwargs.pop(name) for name, _, _ in chosen}
            refuse_passphrase_value(values.pop("passphrase", None))
            return fn(*args, secrets=SecretOptions(**values), **kwargs)

        command.__signature__ = sig.replace(parameters=own + added)  # type: ignore[attr-defined]
        command.__annotations__ = {
            **{k: v for k, v in fn.__annotations__.items() if k != "secrets"},
            **{name: kind for name, kind, _ in chosen},
        }
        return command

    return decorate
