"""Notes in the studio: detected spans reviewed (accept, reject, relabel, add) and saved as brat
that the corpus reader reads back with exactly the spans kept."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette", reason="the studio's web stack is not installed (make setup)")
from hypothesis import given
from hypothesis import strategies as st

from hidekit.studio.notes import NotesBench, normalized_to_original
from hidekit.text.corpus import read_brat_dir
from studio_helpers import studio_client

PORT = 8767
BASE = f"http://127.0.0.1:{PORT}"
TOKEN = "n" * 43
NOTE = (
    "Patient John Smith was seen on 03/14/2021 at Mercy Hospital.\n"
    "Call Dr. Alice Brown at 555-123-4567 about the follow-up.\n"
)


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text(NOTE)
    (tmp_path / "notes" / "b.txt").write_text("Seen by Dr. Green on 1 May 2020.\n")
    return tmp_path


@pytest.fixture
def client(folder):
    return studio_client(folder, PORT, TOKEN)


def spans_in(html: str) -> list[tuple[int, int, int, str, str]]:
    """(id, start, end, label, status) of each highlighted span in a note fragment."""
    out = []
    for m in re.finditer(
        r'<mark tabindex="-1" data-id="(\d+)" data-label="([^"]+)" data-status="(\w+)"[^>]*'
        r'data-testid="span-(\d+)-(\d+)"',
        html,
    ):
        out.append((int(m[1]), int(m[4]), int(m[5]), m[2], m[3]))
    return out


def test_review_and_save_as_brat(client, folder):
    r = client.get("/notes?path=notes")
    assert r.status_code == 200 and "a.txt" not in r.text and ">a<" in r.text
    found = spans_in(r.text)
    assert found, "the shipped model finds PHI in the note"
    surfaces = {NOTE[s:e]: (i, label) for i, s, e, label, _ in found}
    assert any("Smith" in t for t in surfaces)
    post = {"Origin": BASE}
    # reject the first span, relabel the second, add one on "Mercy Hospital" if not found
    first, second = found[0], found[1]
    r = client.post(
        "/api/notes/span", data={"doc": "a", "action": "reject", "id": first[0]}, headers=post
    )
    assert r.status_code == 200
    r = client.post(
        "/api/notes/span",
        data={"doc": "a", "action": "relabel", "id": second[0], "label": "other"},
        headers=post,
    )
    assert (second[0], second[1], second[2], "OTHER", "accepted") in spans_in(r.text)
    start = NOTE.index("follow-up")
    r = client.post(
        "/api/notes/span",
        data={"doc": "a", "action": "add", "start": start, "end": start + 9, "label": "DATE"},
        headers=post,
    )
    assert r.status_code == 200, r.text
    r = client.post("/api/notes/save", headers=post)
    assert r.status_code == 200 and "notes-reviewed" in r.text
    out = folder / "notes-reviewed"
    assert (out / "a.ann").stat().st_mode & 0o077 == 0
    docs = {d.id: d for d in read_brat_dir(out)}
    kept = {(s.start, s.end, s.label) for s in docs["a"].spans}
    assert (first[1], first[2], first[3]) not in kept
    assert (second[1], second[2], "OTHER") in kept
    assert (start, start + 9, "DATE") in kept
    assert len(kept) == len(found) - 1 + 1
    assert docs["a"].text == NOTE and "b" in docs  # notes never opened are saved detected
    # reopening the reviewed folder starts from the saved spans, accepted
    bench = NotesBench.open(out, "notes-reviewed")
    assert {(s.start, s.end, s.label) for s in bench.note("a").spans} == kept


def test_bad_corrections_are_one_line(client):
    client.get("/notes?path=notes")
    h = {"Origin": BASE, "X-Studio-Fragment": "1"}
    r = client.post(
        "/api/notes/span",
        data={"doc": "a", "action": "add", "start": 5, "end": 999, "label": "NAME"},
        headers=h,
    )
    assert r.status_code == 400 and "past the end" in r.text
    r = client.post("/api/notes/span", data={"doc": "a", "action": "accept", "id": 9999}, headers=h)
    assert r.status_code == 400 and "no span 9999" in r.text
    r = client.post("/api/notes/span", data={"doc": "zz", "action": "accept", "id": 1}, headers=h)
    assert r.status_code == 400 and "no such note" in r.text
    r = client.post(
        "/api/notes/span",
        data={"doc": "a", "action": "add", "start": 0, "end": 3, "label": "<b>"},
        headers=h,
    )
    assert r.status_code == 400 and "<b>" not in r.text


def test_notes_outside_the_folder_refused(client):
    r = client.get("/notes?path=../")
    assert r.status_code == 400 and "only paths inside the studio" in r.text


@given(st.lists(st.sampled_from(["a", "\r\n", "\n", "\r", "é", "😀"]), max_size=30), st.data())
def test_browser_offsets_map_back(parts, data):
    text = "".join(parts)
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    k = data.draw(st.integers(0, len(normalized)))
    i = normalized_to_original(text, k)
    # the original prefix up to i reads as the browser's first k characters
    assert text[:i].replace("\r\n", "\n").replace("\r", "\n") == normalized[:k]


def test_preview_replaces_the_spans_kept(client):
    r = client.get("/notes?path=notes")
    found = spans_in(r.text)
    post = {"Origin": BASE}
    rejected = found[0]
    client.post(
        "/api/notes/span", data={"doc": "a", "action": "reject", "id": rejected[0]}, headers=post
    )
    r = client.post("/api/notes/preview", data={"doc": "a", "operator": "redact"}, headers=post)
    assert r.status_code == 200, r.text
    shown = re.search(r'data-testid="preview">(.*?)</div>', r.text, re.S).group(1)
    plain = re.sub(r"<[^>]+>", "", shown)
    assert len(plain) == len(NOTE)  # redact keeps the length
    assert plain[rejected[1] : rejected[2]] == NOTE[rejected[1] : rejected[2]]  # rejected: kept
    kept = [f for f in found[1:]]
    assert kept and all(set(plain[s:e]) <= {"X", " ", "\n"} for _, s, e, _, _ in kept)
    r = client.post("/api/notes/preview", data={"doc": "a", "operator": "tag"}, headers=post)
    assert f"[{kept[0][3]}]" in r.text
    r = client.post("/api/notes/preview", data={"doc": "a", "operator": "nope"}, headers=post)
    assert r.status_code == 400 and "preview with" in r.text
