"""Words that give a PII column away by its name or label, in English, Spanish and French.

Names are normalised (accents dropped, lower case, camelCase and punctuation split into words).
A keyword of five letters or more also matches inside glued names (``birthdate``,
``respondentname``); shorter ones, and those marked with ``=``, must be whole words so that
``age`` does not fire on ``village`` nor ``city`` on ``ethnicity``. The longest match wins, so
``email address`` is an e-mail and ``place of birth`` a nationality, not a date of birth.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

# type key -> keywords (English, Spanish, French). "=word" = whole words only; "~word" = may
# match inside a glued name even though it is short.
KEYWORDS: dict[str, tuple[str, ...]] = {
    "personal_id": (
        "ssn",
        "social security",
        "national id",
        "national identity",
        "id card",
        "identity card",
        "identity number",
        "id number",
        "passport",
        "driver license",
        "drivers license",
        "driving licence",
        "driving license",
        "tax id",
        "taxpayer",
        "medical record",
        "=mrn",
        "patient id",
        "health card",
        "voter id",
        "aadhaar",
        "=dni",
        "=nie",
        "=nif",
        "=curp",
        "=rfc",
        "=rut",
        "=cuil",
        "=cuit",
        "cedula",
        "documento de identidad",
        "numero de identificacion",
        "pasaporte",
        "licencia de conducir",
        "carnet de identidad",
        "seguridad social",
        "carte d identite",
        "=cni",
        "numero d identite",
        "passeport",
        "permis de conduire",
        "=nir",
        "=insee",
        "securite sociale",
    ),
    "full_name": (
        "~name",
        "names",
        "full name",
        "first name",
        "last name",
        "surname",
        "given name",
        "family name",
        "maiden name",
        "nickname",
        "=nombre",
        "nombres",
        "apellido",
        "apellidos",
        "nombre completo",
        "=nom",
        "prenom",
        "prenoms",
        "nom de famille",
        "nom complet",
        "patronyme",
    ),
    "date_of_birth": (
        "~birth",
        "birthdate",
        "birthday",
        "=dob",
        "date of birth",
        "=born",
        "nacimiento",
        "fecha de nacimiento",
        "fecha nac",
        "naissance",
        "date de naissance",
        "=ne le",
    ),
    "year_of_birth": (
        "birth year",
        "year of birth",
        "=yob",
        "ano de nacimiento",
        "ano nacimiento",
        "annee de naissance",
    ),
    "age": ("=age", "=ages", "=edad", "age in years", "edad en anos", "age en annees"),
    "gender": ("gender", "=sex", "=sexo", "=sexe", "genero", "=genre"),
    "marital_status": (
        "marital",
        "civil status",
        "married",
        "spouse",
        "estado civil",
        "conyuge",
        "etat civil",
        "situation matrimoniale",
        "situation familiale",
        "=conjoint",
    ),
    "household_composition": (
        "household size",
        "household composition",
        "=hhsize",
        "family size",
        "household members",
        "tamano del hogar",
        "composicion del hogar",
        "miembros del hogar",
        "taille du menage",
        "composition du menage",
        "membres du menage",
    ),
    "occupation": (
        "occupation",
        "profession",
        "job title",
        "=job",
        "ocupacion",
        "profesion",
        "=oficio",
        "metier",
    ),
    "industry": (
        "industry",
        "sector of activity",
        "industria",
        "rama de actividad",
        "secteur d activite",
    ),
    "employment_status": (
        "employment status",
        "labor force status",
        "labour force status",
        "work status",
        "employed",
        "situacion laboral",
        "condicion de actividad",
        "situation professionnelle",
        "statut d emploi",
        "chomage",
    ),
    "education": (
        "education",
        "schooling",
        "school level",
        "grade completed",
        "=degree",
        "diploma",
        "educacion",
        "escolaridad",
        "nivel educativo",
        "=estudios",
        "niveau d etudes",
        "diplome",
        "scolarite",
    ),
    "ethnicity": (
        "ethnicity",
        "ethnic",
        "=race",
        "=tribe",
        "=caste",
        "=etnia",
        "=raza",
        "ethnie",
        "=tribu",
        "origine ethnique",
    ),
    "nationality": (
        "nationality",
        "citizenship",
        "country of birth",
        "birthplace",
        "place of birth",
        "nacionalidad",
        "ciudadania",
        "pais de nacimiento",
        "lugar de nacimiento",
        "nationalite",
        "citoyennete",
        "pays de naissance",
        "lieu de naissance",
    ),
    "employer": (
        "employer",
        "workplace",
        "company name",
        "firm name",
        "place of work",
        "empleador",
        "=empresa",
        "lugar de trabajo",
        "employeur",
        "entreprise",
        "lieu de travail",
    ),
    "phone": (
        "phone",
        "telephone",
        "=tel",
        "=mobile",
        "cellphone",
        "cell phone",
        "cell number",
        "=fax",
        "telefono",
        "celular",
        "=movil",
        "numero de telephone",
        "=portable",
        "whatsapp",
    ),
    "email": (
        "email",
        "e mail",
        "=mail",
        "=correo",
        "correo electronico",
        "courriel",
        "adresse electronique",
        "email address",
    ),
    "media": (
        "photo",
        "photograph",
        "=picture",
        "=image",
        "=audio",
        "=video",
        "recording",
        "=voice",
        "=foto",
        "fotografia",
        "grabacion",
        "enregistrement",
        "selfie",
    ),
    "bank_account": (
        "bank account",
        "account number",
        "=iban",
        "=bic",
        "=swift",
        "routing number",
        "credit card",
        "card number",
        "cuenta bancaria",
        "numero de cuenta",
        "tarjeta de credito",
        "=clabe",
        "compte bancaire",
        "numero de compte",
        "=rib",
        "carte bancaire",
    ),
    "ip_address": ("=ip", "ip address", "ipaddress", "direccion ip", "adresse ip"),
    "vehicle_registration": (
        "license plate",
        "licence plate",
        "number plate",
        "vehicle registration",
        "plate number",
        "=vin",
        "=placa",
        "matricula",
        "patente",
        "immatriculation",
    ),
    "web_address": (
        "=url",
        "website",
        "web page",
        "webpage",
        "homepage",
        "sitio web",
        "pagina web",
        "site web",
        "=www",
        "facebook",
        "twitter",
        "instagram",
        "linkedin",
        "social media",
    ),
    "student_id": (
        "student id",
        "student number",
        "=matricule",
        "numero de estudiante",
        "carnet estudiantil",
        "numero etudiant",
        "numero d etudiant",
    ),
    "insurance_number": (
        "insurance number",
        "insurance id",
        "policy number",
        "medicare",
        "medicaid",
        "member id",
        "=nss",
        "numero de seguro",
        "numero de poliza",
        "carte vitale",
        "mutuelle",
    ),
    "postal_code": (
        "=zip",
        "zipcode",
        "zip code",
        "postal code",
        "postcode",
        "post code",
        "=postal",
        "codigo postal",
        "cod postal",
        "code postal",
    ),
    "major_region": (
        "=state",
        "province",
        "=region",
        "=estado",
        "provincia",
        "departamento",
        "departement",
    ),
    "small_area": (
        "district",
        "county",
        "municipality",
        "=city",
        "=town",
        "village",
        "neighborhood",
        "neighbourhood",
        "community",
        "commune",
        "locality",
        "census tract",
        "census block",
        "enumeration area",
        "=barrio",
        "colonia",
        "=comuna",
        "municipio",
        "ciudad",
        "pueblo",
        "=aldea",
        "vereda",
        "corregimiento",
        "localidad",
        "distrito",
        "quartier",
        "=ville",
        "localite",
        "hameau",
        "arrondissement",
    ),
    "gps": (
        "=gps",
        "latitude",
        "longitude",
        "=lat",
        "=lon",
        "=lng",
        "coordinates",
        "=coord",
        "coords",
        "coordenadas",
        "coordonnees",
        "geolocation",
        "geopoint",
        "geo point",
    ),
    "street_address": (
        "address",
        "=addr",
        "street",
        "home address",
        "residential address",
        "mailing address",
        "postal address",
        "house number",
        "direccion",
        "domicilio",
        "=calle",
        "avenida",
        "adresse",
        "=rue",
        "domicile",
        "lieu de residence",
    ),
}

# Phrases removed before matching: they contain a keyword but name something else.
_NOT_PII = [
    r"\bbirth ?(weight|order|rate|spacing|interval|control)s?\b",
    r"\b(file|variable|var|host|brand|product|drug|medicine|medication|disease|crop|item) ?names?\b",
    r"\bnombre (de|d|des)\b(?! pila)",  # French "nombre de" = "number of"
    r"\bstate of\b",
    r"\bip ?(address)?\b(?=.*\b(protocol|intellectual)\b)",
]


@dataclass(frozen=True)
class KeywordMatch:
    type_key: str
    keyword: str
    source: str  # "name" or "label"
    text: str

    @property
    def strength(self) -> int:
        return len(self.keyword.replace(" ", ""))


def normalize(text: str) -> str:
    """'Fecha_de_Nacimiento' -> 'fecha de nacimiento'; 'birthDate2' -> 'birth date 2'."""
    text = unicodedata.normalize("NFKD", str(text))
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
    text = re.sub(r"(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])", " ", text)
    text = re.sub(r"[^0-9A-Za-z]+", " ", text).lower().strip()
    for pat in _NOT_PII:
        text = re.sub(pat, " ", text)
    return " ".join(text.split())


@lru_cache(maxsize=1)
def _compiled() -> list[tuple[str, str, re.Pattern, re.Pattern | None]]:
    """(type, keyword, whole-word regex, glued-name regex or None), longest keywords first."""
    out = []
    for type_key, words in KEYWORDS.items():
        for raw in words:
            whole_only = raw.startswith("=")
            glued_ok = raw.startswith("~")
            word = raw.lstrip("=~")
            phrase = re.compile(r"(?<![a-z0-9])" + re.escape(word) + r"(?![a-z0-9])")
            part = None
            if glued_ok or (not whole_only and len(word.replace(" ", "")) >= 5):
                part = re.compile(re.escape(word.replace(" ", "")))
            out.append((type_key, word, phrase, part))
    out.sort(key=lambda t: -len(t[1].replace(" ", "")))
    return out


def match_keywords(text: str, source: str = "name") -> KeywordMatch | None:
    """The most specific keyword found in a column name or label, if any."""
    norm = normalize(text)
    if not norm:
        return None
    glued = norm.replace(" ", "")
    for type_key, word, phrase, part in _compiled():
        if phrase.search(norm) or (part is not None and part.search(glued)):
            return KeywordMatch(type_key, word, source, str(text))
    return None
