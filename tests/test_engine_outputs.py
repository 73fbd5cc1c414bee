"""engine/outputs.py through the library entry points: run_task, run_pipeline and the notebook
helper refuse an output that could destroy before a backend starts; the one mode table."""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ubunye import notebook, run_pipeline, run_task
from ubunye.engine.errors import IOSpecError
from ubunye.engine.outputs import ADD, REPLACE, SKIP, OutputLocationError, write_action

CONFIG = """CONFIG:
  inputs: {{people: {{format: parquet, path: "{src}"}}}}
  outputs: {{clean: {{format: parquet, path: "{out}", mode: {mode}}}}}
"""
CODE = "from ubunye import Task\n\nclass P(Task):\n    def transform(self, s):\n        return {'clean': s['people']}\n"


def _task(tmp_path: Path, out: str, mode: str = "overwrite") -> Path:
    data = tmp_path / "data"
    data.mkdir()
    pq.write_table(pa.table({"id": [1, 2]}), data / "people.parquet")
    task = tmp_path / "shop" / "orders" / "clean"
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(CONFIG.format(src=data / "people.parquet", out=out.format(root=tmp_path),
                                                    mode=mode))
    (task / "transformations.py").write_text(CODE)
    return task


ENTRIES = {
    "run_task": lambda task: run_task(task, backend="pandas", raise_on_error=False),
    "run_pipeline": lambda task: run_pipeline(task.parents[2], "shop", "orders", ["clean"], backend="pandas",
                                              raise_on_error=False),
    "notebook": lambda task: notebook(task, backend="pandas"),
}


@pytest.mark.parametrize("entry", list(ENTRIES))
@pytest.mark.parametrize("out, says", [
    ("{root}/data/people.parquet", "is the location of input 'people'"),
    ("{root}", "is the location of the usecase folder"),
    ("{root}/shop/orders/clean", "is the location of the task folder"),
    ("{root}/shop", "contains the task folder"),
    ("{root}/.ubunye/lineage/x", "is inside the record store"),
])
def test_every_entry_refuses_before_anything_runs(tmp_path: Path, entry: str, out: str, says: str) -> None:
    task = _task(tmp_path, out)
    before = sorted(p for p in tmp_path.rglob("*"))
    with pytest.raises(OutputLocationError, match=r"config\.yaml: CONFIG\.outputs\.clean\.path: .*" + says):
        ENTRIES[entry](task)
    assert sorted(p for p in tmp_path.rglob("*")) == before


def test_a_relative_output_is_the_usecase_folders(tmp_path: Path) -> None:
    task = _task(tmp_path, "out")
    result = run_task(task, backend="pandas", lineage=True)
    assert result.ok and pq.read_table(tmp_path / "out").num_rows == 2
    assert result.record.outputs[0].location == str(tmp_path / "out")  # the record names where it wrote


@pytest.mark.parametrize("exists, mode, action", [
    (False, "overwrite", REPLACE), (True, "overwrite", REPLACE), (True, "append", ADD), (False, "append", ADD),
    (True, "ignore", SKIP), (False, "ignore", REPLACE), (False, "errorifexists", REPLACE),
])
def test_the_one_mode_table(exists: bool, mode: str, action: str) -> None:
    assert write_action(exists, mode, "output 'o'", "/x") == action


def test_errorifexists_with_data_there_is_refused() -> None:
    with pytest.raises(IOSpecError, match=r"output 'o': /x already exists \(mode errorifexists\)"):
        write_action(True, "errorifexists", "output 'o'", "/x")
