"""The secrets a job may need, declared once: where a key or a passphrase comes from (a file or an
environment variable, never the value itself), the private folder, and an insecure seed.

Every command that protects with a secret (``link``, ``text anonymize``, ``release``, ``encode``,
``partition``, ``jitter``, ``anonymize``, ``crosswalk``) takes one ``SecretOptions``; everything
it holds is read through :func:`hidekit.secrets.resolve_secret`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from hidekit.errors import OptionError
from hidekit.secrets import INSECURE_NOTE, Randomness, load_key, randomness, resolve_secret

PASSPHRASE_ENV = "HIDEKIT_PASSPHRASE"


@dataclass(frozen=True)
class SecretOptions:
    """Where a job's secrets come from. ``key_file``/``key_env``: a secret key (``hidekit
    new-key``); ``passphrase_file``/``passphrase_env``: a passphrase (else ``$HIDEKIT_PASSPHRASE``,
    else a hidden prompt on a terminal); ``private``: folder for crosswalks and mappings;
    ``seed`` with ``insecure_seed``: reproducible masking anyone can undo (tests, synthetic
    data). ``passphrase_value``: a passphrase already in memory (the studio's form), for callers
    that are not a command line; kept out of ``repr`` and comparisons, never written."""

    key_file: Path | None = None
    key_env: str | None = None
    passphrase_file: Path | None = None
    passphrase_env: str | None = None
    private: Path | None = None
    seed: int | None = None
    insecure_seed: bool = False
    passphrase_value: bytes | None = field(default=None, repr=False, compare=False)

    def key(self) -> bytes | None:
        """The secret key's bytes, or None when no key was named."""
        return load_key(self.key_file, self.key_env)

    def files(self) -> tuple[Path, ...]:
        """Secret files no output may overwrite."""
        return tuple(p for p in (self.key_file, self.passphrase_file) if p is not None)

    def randomness(self, what: str) -> Randomness:
        """A masking step's randomness: keyed, else the insecure seed, else fresh."""
        return randomness(self.key(), self.seed, self.insecure_seed, what)

    def crosswalk(self, *, confirm: bool = False, required: bool = True) -> dict:
        """One secret for an encrypted file: ``{"key_file": bytes}`` or ``{"passphrase": bytes}``
        from a key, else a passphrase file or variable, else ``$HIDEKIT_PASSPHRASE``, else a
        hidden prompt; ``{}`` when none is given and none is ``required``."""
        given = [
            o
            for o in (
                self.passphrase_file,
                self.passphrase_env,
                self.key_file,
                self.key_env,
                self.passphrase_value,
            )
            if o
        ]
        if len(given) > 1:
            raise OptionError(
                "give one of --passphrase-file, --passphrase-env, --key-file, --key-env"
            )
        key = self.key()
        if key is not None:
            return {"key_file": key}
        if self.passphrase_value:
            return {"passphrase": self.passphrase_value}
        env = self.passphrase_env or (PASSPHRASE_ENV if os.environ.get(PASSPHRASE_ENV) else None)
        secret = resolve_secret(
            file=self.passphrase_file,
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

    def insecure_warnings(self, used: bool = True) -> list[str]:
        """The loud warning of a run masked by a seed (when the seed was ``used``)."""
        return [INSECURE_NOTE] if used and self.seed is not None else []

    def passphrase(self) -> bytes | None:
        """The passphrase in memory, else the one named by ``passphrase_file`` or
        ``passphrase_env``, else None."""
        if self.passphrase_value:
            if self.passphrase_file is not None or self.passphrase_env:
                raise OptionError("give the passphrase once: in memory, a file or a variable")
            return self.passphrase_value
        return resolve_secret(file=self.passphrase_file, env=self.passphrase_env, required=False)
