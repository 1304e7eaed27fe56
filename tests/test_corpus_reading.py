"""Corpora are read by the file layer and parsed by the text package (issue 15): the split
changes no document and no error."""

from __future__ import annotations

import pytest

from hidekit.errors import InputError
from hidekit.io.files import brat_folder_files
from hidekit.text.corpus import parse_ann, parse_jsonl, read_brat_dir, read_documents, read_jsonl


def test_jsonl_parsed_from_text_is_the_file_read(tmp_path):
    content = (
        '{"id": "a", "text": "Ana Ruiz", "spans": [{"start": 0, "end": 3, "label": "NAME"}]}\n'
    )
    path = tmp_path / "c.jsonl"
    path.write_text(content, encoding="utf-8")
    (doc,) = read_jsonl(path)
    assert parse_jsonl(content, str(path)) == [doc]
    assert (doc.id, doc.spans[0].text) == ("a", "Ana")
    with pytest.raises(InputError, match=r"^x\.jsonl:1: no 'text' field$"):
        parse_jsonl('{"id": 1}', "x.jsonl")


def test_brat_folder_files_are_read_one_at_a_time_with_the_old_errors(tmp_path):
    (tmp_path / "a.txt").write_text("Ana Ruiz", encoding="utf-8")
    (tmp_path / "a.ann").write_text("T1\tNAME 0 3\tAna\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("nada", encoding="utf-8")
    (name, text, ann, where), second = list(brat_folder_files(tmp_path, "optional"))
    assert (name, text, where) == ("a", "Ana Ruiz", str(tmp_path / "a.ann"))
    assert read_brat_dir(tmp_path, require_ann=False)[0].spans == parse_ann(ann, text, where)
    assert second == ("b", "nada", None, str(tmp_path / "b.ann"))
    assert [d.id for d in read_documents(tmp_path)[0]] == ["a", "b"]
    with pytest.raises(InputError, match=r"b\.ann: missing \(every \.txt needs its \.ann\)$"):
        read_brat_dir(tmp_path)
    with pytest.raises(InputError, match="not a folder"):
        list(brat_folder_files(tmp_path / "a.txt"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no .txt files"):
        list(brat_folder_files(tmp_path / "empty"))


def test_predictions_as_ann_files_alone_take_the_gold_texts(tmp_path):
    from hidekit.text.corpus import read_predictions
    from hidekit.text.spans import Document

    gold = [Document("a", "Ana Ruiz")]
    (tmp_path / "a.ann").write_text("T1\tNAME 4 8\tRuiz\n", encoding="utf-8")
    (pred,) = read_predictions(tmp_path, gold)
    assert (pred.id, pred.text, [s.text for s in pred.spans]) == ("a", "Ana Ruiz", ["Ruiz"])
    (tmp_path / "a.ann").unlink()
    with pytest.raises(InputError, match=r"no \.ann or \.txt files$"):
        read_predictions(tmp_path, gold)
