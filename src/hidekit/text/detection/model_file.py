"""The model file's bytes: a zip of ``model.json`` (config) and ``model.crfsuite`` (weights), and,
for a detector that reads texts judged lower case with a second model, ``lower/model.json`` and
``lower/model.crfsuite``. Fixed timestamps and order: the same model gives the same bytes."""

from __future__ import annotations

import io
import json
import zipfile

from hidekit.errors import InputError

_ZIP_TIME = (2020, 1, 1, 0, 0, 0)  # fixed timestamps: the same model gives the same bytes
LOWER_PREFIX = "lower/"

# The shipped models unpack to about 1 MB; a model trained on a large corpus to tens of MB.
# Reading stops past this bound, whatever the zip's headers claim (a zip bomb lies about sizes).
MODEL_MAX_BYTES = 256 * 2**20

Part = tuple[bytes, dict]  # (CRF weights, config)


def _config_bytes(config: dict) -> bytes:
    return json.dumps(config, indent=1, sort_keys=True, ensure_ascii=False).encode()


def model_file_bytes(main: Part, lower: Part | None = None) -> bytes:
    """The model file of a CRF and its config, and of the lower-case model's when given."""
    parts = [("", main)] + ([] if lower is None else [(LOWER_PREFIX, lower)])
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for prefix, (crf, config) in parts:
            for name, data in (("model.json", _config_bytes(config)), ("model.crfsuite", crf)):
                info = zipfile.ZipInfo(prefix + name, _ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, data)
    return buf.getvalue()


def _read_member(z: zipfile.ZipFile, name: str, where: str, budget: int) -> bytes:
    with z.open(name) as f:
        data = f.read(budget + 1)
    if len(data) > budget:
        raise InputError(
            f"{where}: not a hidekit model file ({name} unpacks to more than "
            f"{MODEL_MAX_BYTES // 2**20} MiB)"
        )
    return data


def _read_part(z: zipfile.ZipFile, prefix: str, where: str, budget: int) -> tuple[bytes, bytes]:
    raw_config = _read_member(z, prefix + "model.json", where, budget)
    crf = _read_member(z, prefix + "model.crfsuite", where, budget - len(raw_config))
    return crf, raw_config


def _config(raw: bytes, where: str, name: str) -> dict:
    config = json.loads(raw.decode("utf-8"))
    if not isinstance(config, dict):
        raise InputError(f"{where}: not a hidekit model file ({name} is not an object)")
    return config


def read_model_parts(data: bytes, where: str) -> tuple[Part, Part | None]:
    """(CRF, config) of the main model, and of the lower-case model if the file holds one; all
    members together unpack to at most ``MODEL_MAX_BYTES``."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            crf, raw = _read_part(z, "", where, MODEL_MAX_BYTES)
            lower_raw = None
            if LOWER_PREFIX + "model.json" in z.namelist():
                budget = MODEL_MAX_BYTES - len(crf) - len(raw)
                lower_raw = _read_part(z, LOWER_PREFIX, where, budget)
        main = (crf, _config(raw, where, "model.json"))
        if lower_raw is None:
            return main, None
        return main, (lower_raw[0], _config(lower_raw[1], where, LOWER_PREFIX + "model.json"))
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        KeyError,
        json.JSONDecodeError,
        UnicodeDecodeError,
        NotImplementedError,  # unsupported compression method
        RuntimeError,  # encrypted member
        EOFError,
        OSError,
    ) as exc:
        raise InputError(f"{where}: not a hidekit model file ({exc})") from exc


def read_model_bytes(data: bytes, where: str) -> Part:
    """(CRF, config) of the main model in a model file."""
    return read_model_parts(data, where)[0]
