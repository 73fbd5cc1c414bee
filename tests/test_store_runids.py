"""Run ids the engine makes are UUID4 (the record spec); UUID7 ids a caller gives sort by the millisecond they were made (store/runids.py)."""
from __future__ import annotations

import uuid

from ubunye.lineage.recorder import new_run_id as recorder_run_id
from ubunye.lineage.store.runids import id_floor, millis_of, new_run_id, uuid7


def test_uuid7_ids_sort_by_the_millisecond_they_were_made() -> None:
    ids = [uuid7(1_790_000_000_000 + step) for step in (0, 1, 999, 86_400_000)]
    assert all(uuid.UUID(i).version == 7 and str(uuid.UUID(i)) == i for i in ids)
    assert sorted(ids) == ids and len(set(ids)) == 4
    assert [millis_of(i) for i in ids] == [1_790_000_000_000 + s for s in (0, 1, 999, 86_400_000)]
    made = [new_run_id(), recorder_run_id()]  # the maker the recorder and the engine use
    assert all(uuid.UUID(i).version == 4 and str(uuid.UUID(i)) == i for i in made) and made[0] != made[1]


def test_the_floor_of_a_millisecond_sorts_between_its_ids_and_earlier_ones() -> None:
    at = 1_790_000_000_000
    assert all(uuid7(at - 1) < id_floor(at) < uuid7(at) for _ in range(50))


def test_other_ids_have_no_time() -> None:
    assert millis_of(str(uuid.uuid4())) is None and millis_of("r1-mid") is None
