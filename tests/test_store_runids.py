"""Run ids the engine makes are UUID4 (the record spec); UUID7 ids (pipeline runs) sort by the millisecond they were made (store/runids.py)."""
from __future__ import annotations

import uuid

from ubunye.lineage.recorder import new_run_id as recorder_run_id
from ubunye.lineage.store.runids import new_run_id, uuid7


def test_uuid7_ids_sort_by_the_millisecond_they_were_made() -> None:
    ids = [uuid7(1_790_000_000_000 + step) for step in (0, 1, 999, 86_400_000)]
    assert all(uuid.UUID(i).version == 7 and str(uuid.UUID(i)) == i for i in ids)
    assert sorted(ids) == ids and len(set(ids)) == 4
    assert [int(i[:8] + i[9:13], 16) for i in ids] == [1_790_000_000_000 + s for s in (0, 1, 999, 86_400_000)]
    made = [new_run_id(), recorder_run_id()]  # the maker the recorder and the engine use
    assert all(uuid.UUID(i).version == 4 and str(uuid.UUID(i)) == i for i in made) and made[0] != made[1]
