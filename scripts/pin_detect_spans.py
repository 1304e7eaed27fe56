"""Write ``tests/fixtures/detect-pins.json``: the spans the shipped models find on a few fixture
texts, with each model file's SHA-256. ``tests/test_text_detect_pins.py`` checks that detection
still gives exactly these spans (start, end, label, text, source, score), so a speed-up that
changes any output fails. Re-run after shipping a new model:
``python scripts/pin_detect_spans.py``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from hidekit.text.detection.detector import load_model, shipped_model_path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
PINS = FIXTURES / "detect-pins.json"
# development texts only (en-dev is trainable; the meddocan fixtures come from MEDDOCAN train)
TEXTS = {
    "en": [f"en-dev/dev{k:02d}.txt" for k in (0, 7, 31, 75, 98, 120, 150, 180, 205)],
    # texts in lower case: en reads them with en-lower (issue 14), pinned alone here too
    "en-lower": [f"en-dev/dev{k:02d}.txt" for k in (75, 81, 98, 108, 136, 89)],
    "es": sorted(str(p.relative_to(FIXTURES)) for p in (FIXTURES / "meddocan").glob("*.txt")),
}


def model_digest(name: str) -> str:
    return hashlib.sha256(shipped_model_path(name).read_bytes()).hexdigest()


def spans_of(name: str, rel: str) -> list[list]:
    det = load_model(name)
    text = (FIXTURES / rel).read_text(encoding="utf-8")
    return [[s.start, s.end, s.label, s.text, s.source, s.score] for s in det.detect(text)]


def main() -> None:
    pins = {
        name: {
            "model_sha256": model_digest(name),
            "texts": {rel: spans_of(name, rel) for rel in rels},
        }
        for name, rels in TEXTS.items()
    }
    PINS.write_text(json.dumps(pins, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {PINS}")


if __name__ == "__main__":
    main()
