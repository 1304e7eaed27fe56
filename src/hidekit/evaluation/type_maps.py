"""Which annotation types are direct identifiers (DI) and which are quasi-identifiers (QI).

Scaiano & El Emam (2.2.4) score the two kinds differently: one leaked DI re-identifies a patient,
a QI needs a second one. Labels differ between corpora, so the defaults cover HIPAA-style labels
(the English synthetic notes, i2b2 2006 and 2014) and MEDDOCAN's Spanish labels; a user overrides
them with a JSON file ``{"direct": [...], "quasi": [...]}``. Types in neither list are ignored.
Matching ignores case. Person names of clinicians and relatives are DIs, conservatively, as the
paper counts all names ("first, last, middle") as direct identifiers.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hidekit.errors import InputError, OptionError
from hidekit.io.files import read_utf8

HIPAA_DIRECT = [
    "NAME", "PATIENT", "DOCTOR", "PERSON", "USERNAME",
    "PHONE", "FAX", "EMAIL", "URL", "IP",
    "SSN", "MRN", "MEDICALRECORD", "ACCOUNT", "ID", "IDNUM", "HEALTHPLAN", "LICENSE",
    "DEVICE", "BIOID", "VEHICLE",
    "STREET",
]  # fmt: skip
HIPAA_QUASI = [
    "DATE", "AGE",
    "CITY", "STATE", "ZIP", "COUNTRY", "LOCATION", "LOCATION-OTHER",
    "HOSPITAL", "ORGANIZATION", "DEPARTMENT", "ROOM", "PROFESSION",
]  # fmt: skip
MEDDOCAN_DIRECT = [
    "NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO",
    "ID_SUJETO_ASISTENCIA", "ID_CONTACTO_ASISTENCIAL", "ID_ASEGURAMIENTO",
    "ID_TITULACION_PERSONAL_SANITARIO", "ID_EMPLEO_PERSONAL_SANITARIO", "OTRO_NUMERO_IDENTIF",
    "IDENTIF_VEHICULOS_NRSERIE_PLACAS", "IDENTIF_DISPOSITIVOS_NRSERIE", "IDENTIF_BIOMETRICOS",
    "NUMERO_TELEFONO", "NUMERO_FAX", "CORREO_ELECTRONICO", "URL_WEB", "DIREC_PROT_INTERNET",
    "CALLE",
]  # fmt: skip
MEDDOCAN_QUASI = [
    "FECHAS", "EDAD_SUJETO_ASISTENCIA", "SEXO_SUJETO_ASISTENCIA", "FAMILIARES_SUJETO_ASISTENCIA",
    "OTROS_SUJETO_ASISTENCIA", "PROFESION",
    "TERRITORIO", "PAIS", "HOSPITAL", "CENTRO_SALUD", "INSTITUCION",
]  # fmt: skip


@dataclass(frozen=True)
class TypeMap:
    """Upper-cased type names in each class; ``name`` says where the map came from."""

    direct: frozenset[str]
    quasi: frozenset[str]
    name: str = "custom"
    ignored: tuple[str, ...] = field(default=(), compare=False)

    def kind(self, label: str) -> str | None:
        """'direct', 'quasi' or None (ignored)."""
        up = label.upper()
        if up in self.direct:
            return "direct"
        if up in self.quasi:
            return "quasi"
        return None

    def to_dict(self) -> dict:
        return {"name": self.name, "direct": sorted(self.direct), "quasi": sorted(self.quasi)}


def make_type_map(direct: Iterable[str], quasi: Iterable[str], name: str = "custom") -> TypeMap:
    d = frozenset(str(t).upper() for t in direct)
    q = frozenset(str(t).upper() for t in quasi)
    both = sorted(d & q)
    if both:
        raise OptionError(f"type map lists these types as both direct and quasi: {', '.join(both)}")
    return TypeMap(d, q, name)


DEFAULT_MAPS = {
    "hipaa": make_type_map(HIPAA_DIRECT, HIPAA_QUASI, "hipaa"),
    "meddocan": make_type_map(MEDDOCAN_DIRECT, MEDDOCAN_QUASI, "meddocan"),
    # The two label sets share no name, so one map serves both by default.
    "default": make_type_map(
        HIPAA_DIRECT + MEDDOCAN_DIRECT, HIPAA_QUASI + MEDDOCAN_QUASI, "default"
    ),
}


def load_type_map(source: str | Path | Mapping | TypeMap | None = None) -> TypeMap:
    """A TypeMap from None (default), a built-in name, a dict or a JSON file path."""
    if source is None:
        return DEFAULT_MAPS["default"]
    if isinstance(source, TypeMap):
        return source
    if isinstance(source, Mapping):
        return _from_mapping(source, "custom")
    if isinstance(source, str) and source.lower() in DEFAULT_MAPS:
        return DEFAULT_MAPS[source.lower()]
    path = Path(source)
    if not path.is_file():
        raise InputError(
            f"{path}: type map not found (a JSON file or one of {', '.join(DEFAULT_MAPS)})"
        )
    try:
        obj = json.loads(read_utf8(path))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a JSON type map ({exc})") from exc
    if not isinstance(obj, Mapping):
        raise InputError(f'{path}: a type map is an object {{"direct": [...], "quasi": [...]}}')
    return _from_mapping(obj, path.name)


def _from_mapping(obj: Mapping, name: str) -> TypeMap:
    unknown = sorted(set(obj) - {"direct", "quasi"})
    if unknown:
        raise InputError(f"type map {name}: unknown keys {', '.join(unknown)} (use direct, quasi)")
    lists = {}
    for key in ("direct", "quasi"):
        v = obj.get(key, [])
        if isinstance(v, str) or not all(isinstance(t, str) for t in v):
            raise InputError(f"type map {name}: {key!r} must be a list of type names")
        lists[key] = v
    return make_type_map(lists["direct"], lists["quasi"], name)
