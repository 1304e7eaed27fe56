"""The command line's secret options, defined once: key and passphrase from a file, an
environment variable or a prompt (never as a value on the command line), and the randomness of
masking steps (a key; a seed only with ``--insecure-seed``). See ``hidekit.secrets``."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from hidekit.cli.common import err
from hidekit.errors import OptionError
from hidekit.secrets import INSECURE_NOTE, Randomness, load_key, randomness, resolve_secret

PASSPHRASE_ENV = "HIDEKIT_PASSPHRASE"

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


def refuse_passphrase_value(value) -> None:
    """``--passphrase VALUE`` is gone: say what to use instead."""
    if value is not None:
        raise OptionError(
            "--passphrase VALUE was removed (a command line is visible to every user): use "
            f"--passphrase-file FILE, --passphrase-env NAME, ${PASSPHRASE_ENV}, or the prompt"
        )


def warn_if_insecure(rand: Randomness | bool) -> None:
    """Say loudly, on stderr, that a seed was used for masking."""
    if rand.insecure_seed if isinstance(rand, Randomness) else rand:
        err.print(f"[bold yellow]warning:[/] {INSECURE_NOTE}", markup=True, highlight=False)


def masking_randomness(
    key_file: Path | None,
    key_env: str | None,
    seed: int | None,
    insecure_seed: bool,
    what: str,
) -> Randomness:
    """A masking step's randomness from the options; warns loudly on an insecure seed."""
    rand = randomness(load_key(key_file, key_env), seed, insecure_seed, what)
    warn_if_insecure(rand)
    return rand


def crosswalk_secret(
    passphrase_file: Path | None = None,
    passphrase_env: str | None = None,
    key_file: Path | None = None,
    key_env: str | None = None,
    *,
    confirm: bool = False,
    required: bool = True,
) -> dict:
    """One secret for an encrypted file: ``{"key_file": bytes}`` or ``{"passphrase": bytes}``
    from the options, else ``$HIDEKIT_PASSPHRASE``, else a hidden prompt; ``{}`` when none is
    given and none is ``required``."""
    given = [o for o in (passphrase_file, passphrase_env, key_file, key_env) if o]
    if len(given) > 1:
        raise OptionError("give one of --passphrase-file, --passphrase-env, --key-file, --key-env")
    key = load_key(key_file, key_env)
    if key is not None:
        return {"key_file": key}
    env = passphrase_env or (PASSPHRASE_ENV if os.environ.get(PASSPHRASE_ENV) else None)
    secret = resolve_secret(
        file=passphrase_file,
        env=env,
        prompt="Passphrase" if required else None,
        confirm=confirm,
        required=False,
    )
    if secret is not None:
        return {"passphrase": secret}
    if required:
        raise OptionError(
            "a secret is needed: --key-file, --key-env, --passphrase-file, --passphrase-env "
            f"or ${PASSPHRASE_ENV}"
        )
    return {}
