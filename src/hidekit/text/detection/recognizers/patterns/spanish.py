"""Spanish: more date and age forms (numbers written as words)."""

from __future__ import annotations

from hidekit.text.detection.recognizers.base import PatternRecognizer, register_recognizer
from hidekit.text.detection.recognizers.patterns.dates import _MES

# ---------------------------------------------------------------- Spanish: more date and age forms
_NUM_ES = (
    r"(?:un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|trece|catorce|quince"
    r"|dieciséis|diecisiete|dieciocho|diecinueve|veinte|veinti\w+|treinta|cuarenta|cincuenta|sesenta"
    r"|setenta|ochenta|noventa|cien)(?:\s+y\s+(?:un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve))?"
)
register_recognizer(
    PatternRecognizer(
        "age_es_words",
        "AGE",
        ("es",),
        0.7,
        pattern=rf"\b{_NUM_ES}\s+(?:años|meses|días|semanas)(?=\W|$)",
    )
)
register_recognizer(
    PatternRecognizer(
        "date_month_yy_es",
        "DATE",
        ("es",),
        0.8,
        pattern=rf"\b{_MES}[-/]\d{{2}}(?![\w/-])",
    )
)

# ---------------------------------------------------------------- Spanish: manufacturers
# Case reports cite a drug or a device with its maker: "(Dacortin 30 mg, Merck, Barcelona)".
# MEDDOCAN annotates the maker as INSTITUCION; the CRF, with no cue but a capital letter, misses
# most of them. A general list of pharmaceutical and medical-device companies (not taken from any
# corpus) gives it the cue; the model learns from MEDDOCAN train how far to trust it.
_MAKERS = (
    r"Pfizer|Merck(?: Sharp (?:&|and) Dohme)?|MSD|Hoffmann-La Roche|Roche|Novartis|Bayer|Sanofi"
    r"(?:[- ]Aventis)?|Aventis|Glaxo[Ss]mith[Kk]line|Glaxo(?:smithkline)?|GSK|AstraZeneca|Astra"
    r"|Lilly|Eli Lilly|Dista|Abbott|Allergan|Alcon(?: Cus[íi])?|Schering(?:-Plough)?|Boehringer"
    r"(?: Ingelheim)?|Janssen(?:-Cilag)?|Johnson (?:&|and) Johnson|Medtronic|Boston Scientific"
    r"|Siemens|Philips|Olympus|Carl Zeiss(?: Meditec)?|Zeiss|Stryker(?: Corporation)?|Baxter"
    r"|Bristol-Myers Squibb|Amgen|Almirall|Esteve|Ferrer|Grifols|Rovi|Faes(?: Farma)?|Menarini"
    r"|Servier|Teva|Mylan|Sandoz|Takeda|Astellas|Novo Nordisk|Gilead|Biogen|Genzyme|Fresenius"
    r"(?: Kabi)?|B\. ?Braun|Covidien|Ethicon|Smith (?:&|and) Nephew|Zimmer|Synthes|Bausch (?:&|and)"
    r" Lomb|Chiesi|Ipsen|Lundbeck|Leo Pharma|Pierre Fabre|UCB|Otsuka|Eisai|Daiichi Sankyo|Bard"
    r"|Cook Medical|Terumo|Dräger|Nobel ?[Bb]iocare|Straumann|Dentsply|Wyeth|Organon|Serono"
    r"|Cinfa|Kern Pharma|Normon|Stada|Ratiopharm|Beckman Coulter|Sysmex|Bio-Rad|Qiagen|Hologic"
    r"|Edwards Lifesciences|St\. Jude Medical|Biotronik|Mentor|McGhan|Inamed|Xomed|Medartis"
)
register_recognizer(
    PatternRecognizer(
        "maker_es",
        "ORGANIZATION",
        ("es",),
        0.6,
        pattern=rf"\b(?:{_MAKERS})(?![\w-])(?:,? (?:S\.A\.|S\.L\.|Inc|Co|Ltd|GmbH|Corporation|Corp"
        r"|Laboratories|Pharma|Farma|España|Ibérica)(?!\w))?",
        flags=0,
    )
)
