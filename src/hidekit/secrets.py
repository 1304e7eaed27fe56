"""Secrets, one way in: where a passphrase or key comes from, and the randomness it drives.

Two promises live here so that no command re-invents them:

* ``resolve_secret`` reads a secret from a file, an environment variable or a hidden prompt. There
  is deliberately no way to pass its value as an argument: a command line is visible to every
  user of the machine (``ps``) and lands in shell histories.
* ``Randomness`` is the source of every random choice that protects a person (jitter
  displacements, encode codes, surrogate choices, date shifts, row shuffles). With a secret key,
  each step's stream is HMAC-SHA256(key, step identity): reproducible by whoever holds the key and
  by nobody else. Without one, a fresh key comes from the operating system and is forgotten, so a
  run cannot be replayed at all. A plain integer seed is accepted only when the caller says
  ``insecure_seed=True``: anyone who learns the seed can undo the masking, so it is for synthetic
  data and tests, and outputs say so.

Outputs record how randomness was made (``describe()``: "keyed", "fresh" or the insecure-seed
warning), never the key, a fingerprint of it, or the seed.
"""

from __future__ import annotations

import getpass
import hashlib
import hmac
import os
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hidekit.errors import InputError, OptionError
from hidekit.io.files import read_file_bytes

KEY_MIN_BYTES = 32
INSECURE_NOTE = "insecure seed: anyone who knows it can undo the masking (not for release)"


def read_secret_file(path, what: str = "passphrase") -> bytes:
    """The secret in a file, trailing newline removed; refuses a missing or empty file."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{what} file {p.name}: no such file")
    data = read_file_bytes(p).rstrip(b"\r\n")
    if not data:
        raise OptionError(f"{what} file {p.name} is empty")
    return data


def check_key(key: bytes, where: str = "key") -> bytes:
    """A key of random bytes must be long enough to resist guessing (``hidekit new-key``)."""
    if len(key) < KEY_MIN_BYTES:
        raise OptionError(
            f"{where} is too short: it needs at least {KEY_MIN_BYTES} bytes of random data "
            "(make one with hidekit new-key)"
        )
    return key


def resolve_secret(
    *,
    file=None,
    env: str | None = None,
    prompt: str | None = None,
    what: str = "passphrase",
    confirm: bool = False,
    required: bool = True,
) -> bytes | None:
    """The secret from ``file``, the environment variable ``env``, or a hidden ``prompt``.

    At most one of ``file`` and ``env``; the prompt is asked only on a terminal. Returns None when
    nothing was given and ``required`` is False. Never takes the secret's value itself.
    """
    if file is not None and env:
        raise OptionError(f"give the {what} as a file or an environment variable, not both")
    if file is not None:
        return read_secret_file(file, what)
    if env:
        value = os.environ.get(env)
        if not value:
            raise OptionError(f"the environment variable {env} (the {what}) is not set or empty")
        return value.encode("utf-8")
    if prompt and sys.stdin is not None and sys.stdin.isatty():
        value = getpass.getpass(f"{prompt}: ")
        if confirm and getpass.getpass(f"{prompt} (again): ") != value:
            raise OptionError(f"the two {what}s differ")
        if not value:
            raise OptionError(f"the {what} is empty")
        return value.encode("utf-8")
    if required:
        raise OptionError(f"a {what} is needed: give it in a file or an environment variable")
    return None


def load_key(key_file=None, key_env: str | None = None) -> bytes | None:
    """A secret key (random bytes, ``hidekit new-key``) from a file or environment variable."""
    key = resolve_secret(file=key_file, env=key_env, what="key", required=False)
    return None if key is None else check_key(key, "the key")


@dataclass(frozen=True)
class Randomness:
    """Where a run's random choices come from; see the module docstring.

    ``kind`` is "keyed" (a secret key), "fresh" (OS randomness, not reproducible) or "insecure"
    (an integer seed). The key never appears in ``repr`` or ``describe``.
    """

    kind: str
    _key: bytes = field(repr=False)

    @classmethod
    def fresh(cls) -> Randomness:
        return cls("fresh", os.urandom(32))

    @classmethod
    def from_key(cls, key: bytes) -> Randomness:
        return cls("keyed", check_key(bytes(key)))

    @classmethod
    def insecure(cls, seed: int) -> Randomness:
        try:
            seed = int(seed)
        except (TypeError, ValueError):
            raise OptionError(f"a seed must be a whole number, got {seed!r}") from None
        return cls("insecure", hashlib.sha256(b"hidekit insecure seed %d" % seed).digest())

    @property
    def insecure_seed(self) -> bool:
        return self.kind == "insecure"

    def describe(self) -> str:
        """What outputs may say: how the randomness was made, nothing that helps undo it."""
        return {"keyed": "keyed", "fresh": "fresh"}.get(self.kind, INSECURE_NOTE)

    def _digest(self, step: str, parts: tuple) -> bytes:
        msg = repr(("hidekit-rng-v1", str(step), *parts)).encode("utf-8")
        return hmac.new(self._key, msg, hashlib.sha256).digest()

    def rng(self, step: str, *parts: object) -> np.random.Generator:
        """A numpy Generator for ``step`` (and ``parts``): independent of every other step."""
        return np.random.default_rng(np.frombuffer(self._digest(step, parts), dtype=np.uint32))

    def random(self, step: str, *parts: object) -> random.Random:
        """A Python ``random.Random`` for ``step`` (and ``parts``)."""
        return random.Random(int.from_bytes(self._digest(step, parts), "big"))

    def subkey(self, step: str, *parts: object) -> bytes:
        """32 bytes for ``step``: a key for keyed hashing derived from this randomness."""
        return self._digest(step, ("subkey", *parts))


def as_randomness(source) -> Randomness:
    """A ``Randomness`` from what callers hold: itself, a key (bytes), None (fresh), or an int.

    An int is an insecure seed; public entry points refuse it unless asked (``randomness``).
    """
    if isinstance(source, Randomness):
        return source
    if source is None:
        return Randomness.fresh()
    if isinstance(source, (bytes, bytearray)):
        return Randomness.from_key(bytes(source))
    if isinstance(source, (int, np.integer)) and not isinstance(source, bool):
        return Randomness.insecure(int(source))
    raise OptionError(f"randomness must come from a key, a seed or nothing, got {type(source)}")


def randomness(
    key=None, seed=None, insecure_seed: bool = False, what: str = "this masking step"
) -> Randomness:
    """The randomness of a masking step: the secret ``key`` (bytes or a ``Randomness``), else a
    ``seed`` only when ``insecure_seed`` is True, else fresh OS randomness."""
    if key is not None and seed is not None:
        raise OptionError(f"{what}: give a secret key or a seed, not both")
    if key is not None:
        return as_randomness(key)
    if seed is not None:
        if isinstance(seed, bool):
            raise OptionError(f"{what}: a seed must be a whole number, got {seed!r}")
        if not insecure_seed:
            raise OptionError(
                f"{what}: a seed lets anyone who knows it undo the masking; give a secret key "
                "file instead (hidekit new-key), or add insecure_seed (--insecure-seed) for "
                "tests and synthetic data"
            )
        return Randomness.insecure(seed)
    return Randomness.fresh()


def rng_for(key, step_name: str, *parts: object) -> np.random.Generator:
    """A numpy Generator for one step: HMAC-SHA256(key, step identity); fresh when ``key`` is
    None. ``key`` is a ``Randomness``, the bytes of a secret key, or None."""
    return as_randomness(key).rng(step_name, *parts)


def random_for(key, step_name: str, *parts: object) -> random.Random:
    """Like ``rng_for``, as a Python ``random.Random``."""
    return as_randomness(key).random(step_name, *parts)


def public_path(path, base=None) -> str:
    """How a released file may name a path: relative to ``base`` when inside it, else the file
    name alone (an absolute path tells who ran the release, and where)."""
    p = Path(path)
    if base is not None:
        try:
            return p.resolve().relative_to(Path(base).resolve()).as_posix()
        except ValueError:
            return p.name
    return p.as_posix() if not p.is_absolute() and ".." not in p.parts else p.name


SECRET_PARAMS = frozenset(
    {
        "seed",
        "insecure_seed",
        "key",
        "key_file",
        "key_env",
        "passphrase",
        "passphrase_env",
        "passphrase_file",
    }
)


def _public_value(v, base):
    if isinstance(v, (str, os.PathLike)) and Path(v).is_absolute():
        return public_path(v, base)
    if isinstance(v, dict):
        return {k: _public_value(x, base) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_public_value(x, base) for x in v]
    return v


def public_params(params: dict, source=None, base=None) -> dict:
    """A step's parameters fit for a released audit or report: no key, passphrase or seed (only
    how randomness was made, from ``source``, a ``Randomness`` or an object holding one) and no
    absolute path (relative to ``base``, else the file name)."""
    out = {k: _public_value(v, base) for k, v in params.items() if k not in SECRET_PARAMS}
    rand = source if isinstance(source, Randomness) else getattr(source, "_random", None)
    if isinstance(rand, Randomness):
        out["randomness"] = rand.describe()
    return out
