"""A secret in a record's *key* (a variable named by a secret value, an option named by a URL
with a password): keys were never masked, on the write nor on the read of another writer's
record. Now a key is masked like any text, on both paths, and two keys that mask alike stay two."""
from __future__ import annotations

import json

from ubunye.lineage.remask import reread
from ubunye.masking import Masker

URL_KEY = "postgres://etl:Hunter2-Pw@db.internal/x"


def test_the_write_path_masks_keys_and_keeps_two_keys_two() -> None:
    masker = Masker(["Sig-Key-7781"])
    doc = {"variables": {"Sig-Key-7781": "a", "Sig-Key-7781x": "b", "plain": "c"},
           "inputs": [{"options": {URL_KEY: "1", "sep": ";"}}]}
    shown = json.dumps(masker.doc(doc))
    assert "Sig-Key-7781" not in shown and "Hunter2-Pw" not in shown, shown
    out = masker.doc(doc)
    assert len(out["variables"]) == 3 and out["variables"]["plain"] == "c"
    assert out["inputs"][0]["options"]["sep"] == ";"


def test_the_read_path_masks_a_key_a_rule_finds() -> None:
    doc = {"run_id": "r1", "variables": {URL_KEY: "x"}, "inputs": [{"options": {URL_KEY: "1"}}]}
    assert "Hunter2-Pw" not in json.dumps(reread(doc))
    for _ in range(2):  # the key's kind is remembered between records: still found
        assert "Hunter2-Pw" not in json.dumps(reread({"run_id": "r2", "inputs": [{"options": {URL_KEY: "1"}}]}))


def test_a_record_whose_keys_need_nothing_is_returned_as_it_is() -> None:
    doc = {"run_id": "r1", "variables": {"day": "2026-01-01"}, "inputs": [{"options": {"sep": ";"}}]}
    assert reread(doc) is doc
