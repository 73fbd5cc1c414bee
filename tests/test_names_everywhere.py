"""Names are names everywhere: a usecase, package or task name that is not one
folder name is refused with one line by every entry point, before anything runs
(nothing is written, inside the usecase folder or outside it)."""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import ubunye.lineage
from ubunye import notebook, run_pipeline, run_task
from ubunye._names import validate_name
from ubunye.cli.app import cli
from ubunye.engine.errors import ConfigError
from ubunye.lineage.errors import InvalidName

from test_engine_runner import CLEAN_CODE, CLEAN_CONFIG, make_task

BAD = ["../../../outside/x/y/z/t", "..", "a..b", "x/y", "x\\y", "C:", "C:x", "", "."]
KINDS = ["usecase", "package", "task"]
DT = "2024-01-02"


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")}


@pytest.fixture
def world(tmp_path: Path) -> Path:
    """``tmp_path/ex`` is the usecase folder (task shop/orders/clean); the rest is 'outside'."""
    ex = tmp_path / "ex"
    (ex / "data").mkdir(parents=True)
    pq.write_table(pa.table({"id": [1], "name": ["a"], "age": [30.0]}), ex / "data" / "people.parquet")
    make_task(ex, "clean", CLEAN_CONFIG, CLEAN_CODE)
    return tmp_path


def names_with(kind: str, bad: str) -> tuple[str, str, str]:
    names = {"usecase": "shop", "package": "orders", "task": "clean", kind: bad}
    return names["usecase"], names["package"], names["task"]


def cli_line(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, args)
    return result.exit_code, result.stderr


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("bad", BAD)
def test_ubunye_run_refuses(world: Path, kind: str, bad: str) -> None:
    before = files_under(world)
    u, p, t = names_with(kind, bad)
    code, err = cli_line(["run", "-d", str(world / "ex"), "-u", u, "-p", p, "-t", t, "--backend", "pandas", "--lineage", "-dt", DT])
    assert code == 2
    assert err.count("\n") == 1 and f"invalid {kind} name {bad!r}" in err, err
    assert files_under(world) == before


def test_ubunye_run_refuses_a_bad_name_in_pipeline_yaml(world: Path) -> None:
    (world / "ex/shop/orders/pipeline.yaml").write_text("tasks: [clean, ../../../outside/x/y/z/t]\n")
    before = files_under(world)
    code, err = cli_line(["run", "-d", str(world / "ex"), "-u", "shop", "-p", "orders", "--all",
                          "--backend", "pandas", "--lineage", "-dt", DT])
    assert code == 2 and err.count("\n") == 1 and "pipeline.yaml: invalid task name" in err, err
    assert files_under(world) == before  # clean did not run either


def test_ubunye_run_issue_example_writes_nothing_anywhere(world: Path) -> None:
    """The issue's run: a real task folder at outside/x/y/z/t that ran (exit 0) and recorded outside ``-d``."""
    outside = world / "outside/x/y/z/t"
    shutil.copytree(world / "ex/shop/orders/clean", outside)
    shutil.copytree(world / "ex/data", world / "outside/x/data")
    before = files_under(world)
    code, err = cli_line(["run", "-d", str(world / "ex"), "-u", "shop", "-p", "orders", "-t",
                          "../../../outside/x/y/z/t", "--backend", "pandas", "--lineage", "-dt", DT])
    assert code == 2 and err.count("\n") == 1, err
    assert files_under(world) == before


PY_ENTRIES: dict[str, Callable[[Path, str, str, str], object]] = {
    "run_task": lambda ex, u, p, t: run_task(ex / u / p / t, backend="pandas", lineage=True, dt=DT),
    "run_pipeline": lambda ex, u, p, t: run_pipeline(ex, u, p, [t], backend="pandas", lineage=True, dt=DT),
    "notebook": lambda ex, u, p, t: notebook(ex / u / p / t, backend="pandas", lineage=True, dt=DT).run(),
    "lineage.run": lambda ex, u, p, t: _direct(ex, f"{u}/{p}/{t}"),
}


def _direct(ex: Path, task_path: str) -> None:
    ubunye.lineage.run(task_path, usecase_dir=ex, backend="pandas")  # refused here, before the block


def _python_cases() -> list[tuple[str, str, str]]:
    """Every entry point, kind and bad name; ``run_task`` and ``notebook`` take a folder
    path, whose last three components are the names (a name with ``/`` or an empty or
    ``.`` one makes another path: see the folder test below)."""
    cases = []
    for entry in sorted(PY_ENTRIES):
        for kind in KINDS:
            for bad in BAD:
                if entry in ("run_task", "notebook") and ("/" in bad or bad in ("", ".")):
                    continue
                cases.append((entry, kind, bad))
    return cases


@pytest.mark.parametrize("entry, kind, bad", _python_cases())
def test_python_entry_points_refuse(world: Path, entry: str, kind: str, bad: str) -> None:
    u, p, t = names_with(kind, bad)
    kind_named = "task path" if entry == "lineage.run" and "/" in bad else kind
    before = files_under(world)
    with pytest.raises(InvalidName) as caught:
        PY_ENTRIES[entry](world / "ex", u, p, t)
    assert "\n" not in str(caught.value)
    assert f"invalid {kind_named} name" in str(caught.value)
    assert files_under(world) == before


@pytest.mark.parametrize("entry", ["run_task", "notebook"])
@pytest.mark.parametrize("tail", ["shop/orders/clean/..", "shop/orders/..", "shop/orders/C:x", "orders/clean"])
def test_task_folder_paths_whose_names_are_not_names(world: Path, entry: str, tail: str) -> None:
    before = files_under(world)
    call = run_task if entry == "run_task" else notebook
    with pytest.raises(InvalidName):
        call(Path("/") / tail if tail == "orders/clean" else world / "ex" / tail, backend="pandas", lineage=True, dt=DT)
    assert files_under(world) == before


def test_task_folder_through_dotdot_records_under_its_own_usecase_folder(world: Path) -> None:
    """``ex/shop/orders/../../../ex/shop/orders/clean``: names shop/orders/clean, usecase folder ex."""
    result = run_task(world / "ex/shop/orders/../../../ex/shop/orders/clean", backend="pandas", lineage=True, dt=DT)
    assert result.record_path is not None
    assert result.record_path.resolve().is_relative_to((world / "ex" / ".ubunye/lineage/shop/orders/clean").resolve())


@pytest.mark.parametrize("command", ["list", "show", "compare", "trace", "search", "verify", "openlineage"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("bad", ["../../x", "..", "C:", "a\\b", ""])
def test_lineage_commands_refuse(world: Path, command: str, kind: str, bad: str) -> None:
    u, p, t = names_with(kind, bad)
    code, err = cli_line(["lineage", command, "-d", str(world / "ex"), "-u", u, "-p", p, "-t", t])
    assert code == 2
    assert err.count("\n") == 1 and f"invalid {kind} name {bad!r}" in err, err


def test_one_check_for_all() -> None:
    from ubunye.lineage import api, recorder, store
    from ubunye.cli import lineage_options

    assert store.validate_name is validate_name
    assert recorder.validate_name is validate_name
    assert lineage_options.validate_name is validate_name
    assert api.validate_name is validate_name
    for ok in ("clean", "a.b", "x-1", "Ünïcode"):
        assert validate_name("task", ok) == ok


def test_monitors_store_other_than_filesystem_is_refused(world: Path) -> None:
    task = world / "ex/shop/orders/clean"
    config = task / "config.yaml"
    base = config.read_text()
    config.write_text(base + "  monitors: [{type: lineage, params: {store: ../records}}]\n")
    before = files_under(world)
    with pytest.raises(ConfigError) as caught:
        run_task(task, backend="pandas", dt=DT)
    assert "CONFIG.monitors[0].params.store" in str(caught.value) and "\n" not in str(caught.value)
    assert files_under(world) == before
    config.write_text(base + "  monitors: [{type: lineage, params: {store: filesystem}}]\n")
    assert run_task(task, backend="pandas", dt=DT).record_path is not None  # the one kind still loads (and records)
