"""Run ids the engine makes are UUID4 (the record spec); UUID7 ids (pipeline runs) sort by the millisecond they were made (store/runids.py)."""
from __future__ import annotations

import os
import time
import uuid

import pytest

from ubunye.lineage.recorder import new_run_id as recorder_run_id
from ubunye.lineage.store.runids import new_run_id, uuid7


def test_uuid7_ids_sort_by_the_millisecond_they_were_made() -> None:
    ids = [uuid7(1_790_000_000_000 + step) for step in (0, 1, 999, 86_400_000)]
    assert all(uuid.UUID(i).version == 7 and str(uuid.UUID(i)) == i for i in ids)
    assert sorted(ids) == ids and len(set(ids)) == 4
    assert [int(i[:8] + i[9:13], 16) for i in ids] == [1_790_000_000_000 + s for s in (0, 1, 999, 86_400_000)]
    made = [new_run_id(), recorder_run_id()]  # the maker the recorder and the engine use
    assert all(uuid.UUID(i).version == 4 and str(uuid.UUID(i)) == i for i in made) and made[0] != made[1]


def test_uuid7_lays_out_each_field_of_rfc_9562() -> None:
    low = 0x2345_6789_ABCD_EF01  # 62 bits: rand_b
    assert uuid7(0x0123_4567_89AB, 0xABC << 62 | low) == "01234567-89ab-7abc-a345-6789abcdef01"
    assert uuid7(2**48 + 5, 0) == "00000000-0005-7000-8000-000000000000"  # the time wraps at 48 bits
    assert uuid7(0, 2**74 - 1) == "00000000-0000-7fff-bfff-ffffffffffff"


def test_uuid7_made_now_takes_the_clock_and_ten_random_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "time_ns", lambda: 0x0123_4567_89AB * 1_000_000 + 999_999)
    monkeypatch.setattr(os, "urandom", lambda n: bytes(range(0xF0, 0xF0 + n)))
    rest = int.from_bytes(bytes(range(0xF0, 0xFA)), "big")
    assert uuid7() == uuid7(0x0123_4567_89AB, rest) == uuid7(rest=rest) == uuid7(0x0123_4567_89AB)
    assert uuid7().startswith("01234567-89ab-7")
