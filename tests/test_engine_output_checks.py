"""engine/outputs.py called directly: where the record store is, how paths are made absolute,
and the exact refusal (file, key, reason) for each output that could destroy."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ubunye.engine import outputs
from ubunye.engine.config import IOSpec
from ubunye.engine.errors import IOSpecError
from ubunye.engine.outputs import OutputLocationError, check_locations, resolve_paths, store_folder, write_action


def _config(tmp_path: Path, *specs: IOSpec) -> Any:
    return SimpleNamespace(file=tmp_path / "config.yaml",
                           inputs={s.name: s for s in specs if s.direction == "input"},
                           outputs={s.name: s for s in specs if s.direction == "output"})


def _in(name: str, path: Any = None, fmt: str = "parquet", table: Any = None) -> IOSpec:
    return IOSpec(name=name, direction="input", format=fmt, path=None if path is None else str(path), table=table)


def _out(name: str, path: Any = None, fmt: str = "parquet", table: Any = None) -> IOSpec:
    return IOSpec(name=name, direction="output", format=fmt, path=None if path is None else str(path), table=table)


@pytest.fixture
def task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "uc" / "shop" / "orders" / "clean"
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text("CONFIG: {}\n")
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return folder


def _refusal(tmp_path: Path, task: Path, *specs: IOSpec, store: Any = None) -> str:
    with pytest.raises(OutputLocationError) as refused:
        check_locations(_config(tmp_path, *specs), task_dir=task, store=Path(store or tmp_path / "store"))
    return str(refused.value)


def test_the_usecase_folder_is_three_levels_above_the_task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert outputs.usecase_dir_of(Path("uc/shop/orders/clean")) == tmp_path / "uc"


@pytest.mark.parametrize("lineage_dir, base_dir, expected", [
    (None, None, "{uc}/.ubunye/lineage"),
    (".ubunye/lineage", None, "{uc}/.ubunye/lineage"),
    (None, "records", "{uc}/records"),
    (".ubunye/lineage", "records", "{uc}/records"),  # the default --lineage-dir leaves the config's base_dir
    ("mine", "records", "{uc}/mine"),
    ("/abs/store", "records", "/abs/store"),
    (None, "/abs/base", "/abs/base"),
])
def test_the_record_store_folder(tmp_path: Path, lineage_dir: Any, base_dir: Any, expected: str) -> None:
    assert store_folder(tmp_path, lineage_dir, base_dir) == Path(expected.format(uc=tmp_path))


def test_only_non_blank_paths_are_made_absolute_against_the_usecase_folder(tmp_path: Path) -> None:
    specs = {"a": _in("a", "data/a.csv", "csv"), "b": _in("b", "  "), "t": _out("t", table="db.t"),
             "u": _out("u", "s3://bucket/x")}
    resolved = resolve_paths(specs, tmp_path)
    assert resolved["a"].path == str(tmp_path / "data" / "a.csv")
    assert resolved["b"] == specs["b"] and resolved["t"] == specs["t"] and resolved["u"] == specs["u"]
    assert list(resolved) == ["a", "b", "t", "u"]


@pytest.mark.parametrize("spec, key", [
    (_in("people", "  "), "CONFIG.inputs.people.path"),
    (_out("clean", ""), "CONFIG.outputs.clean.path"),
    (_out("clean", fmt="table", table=" "), "CONFIG.outputs.clean.table"),
])
def test_an_empty_location_is_refused_naming_its_key(tmp_path: Path, task: Path, spec: IOSpec, key: str) -> None:
    message = _refusal(tmp_path, task, spec)
    assert message == (f"{tmp_path / 'config.yaml'}: {key}: empty location (after templates); a blank path "
                       "would be the working directory")


def test_a_table_output_may_not_be_an_input_table(tmp_path: Path, task: Path) -> None:
    message = _refusal(tmp_path, task, _in("people", fmt="table", table="Main.Shop.People"),
                       _out("clean", fmt="table", table="shop.`people`"))
    assert message.startswith(f"{tmp_path / 'config.yaml'}: CONFIG.outputs.clean.table: shop.`people`: "
                              "is the location of input 'people' (Main.Shop.People); an output may not")


def test_locations_without_a_path_are_not_compared(tmp_path: Path, task: Path) -> None:
    jdbc_in = IOSpec(name="db", direction="input", format="jdbc", label="jdbc:postgresql://h/db")
    jdbc_out = IOSpec(name="back", direction="output", format="jdbc", label="jdbc:postgresql://h/db")
    check_locations(_config(tmp_path, jdbc_in, jdbc_out, _out("o", tmp_path / "out")), task_dir=task,
                    store=tmp_path / "store")


def test_an_output_containing_the_record_store_is_refused(tmp_path: Path, task: Path) -> None:
    message = _refusal(tmp_path, task, _out("o", tmp_path / "data"), store=tmp_path / "data" / "lineage")
    assert message.endswith(f"CONFIG.outputs.o.path: {tmp_path / 'data'}: contains the record store "
                            f"({tmp_path / 'data' / 'lineage'}); an output may not overlap it")


@pytest.mark.parametrize("where, what", [("cwd", "the working directory"), ("home", "the home folder")])
def test_an_output_that_is_the_working_or_home_folder_is_refused(tmp_path: Path, task: Path, where: str,
                                                                 what: str) -> None:
    (tmp_path / "home").mkdir(exist_ok=True)
    message = _refusal(tmp_path, task, _out("o", tmp_path / where))
    assert message.endswith(f"{tmp_path / where}: is the location of {what} ({tmp_path / where}); "
                            "an overwrite would delete it")


@pytest.mark.parametrize("code", ["config.yaml", "pipeline.yaml", "deep/er/module.py"])
def test_an_output_folder_holding_task_code_is_refused(tmp_path: Path, task: Path, code: str) -> None:
    folder = tmp_path / "other"
    (folder / code).parent.mkdir(parents=True, exist_ok=True)
    (folder / "data.csv").write_text("x\n")
    (folder / code).write_text("")
    message = _refusal(tmp_path, task, _out("o", folder))
    assert message.endswith(f"{folder}: holds task code ({folder / code}); an overwrite would delete it")


def test_a_data_folder_inside_the_task_folder_is_allowed(tmp_path: Path, task: Path) -> None:
    (task / "out").mkdir()
    (task / "out" / "part-0.parquet").write_bytes(b"")
    check_locations(_config(tmp_path, _out("o", task / "out")), task_dir=task, store=tmp_path / "store")


def test_code_is_looked_for_up_to_the_limit_and_past_it_the_output_is_refused(
        tmp_path: Path, task: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "big"
    (folder / "z").mkdir(parents=True)
    for i in range(3):
        (folder / f"part-{i}.parquet").write_bytes(b"")
    (folder / "z" / "late.py").write_text("")
    monkeypatch.setattr(outputs, "CODE_SCAN_LIMIT", 4)  # 3 files and a folder seen: not over the limit
    assert _refusal(tmp_path, task, _out("o", folder)).endswith(f"holds task code ({folder / 'z' / 'late.py'}); "
                                                                "an overwrite would delete it")
    monkeypatch.setattr(outputs, "CODE_SCAN_LIMIT", 3)
    assert _refusal(tmp_path, task, _out("o", folder)).endswith(
        f"CONFIG.outputs.o.path: {folder}: cannot vouch for {folder}: more than 3 entries below it (an overwrite "
        "deletes them all, code or records among them too); write to a new folder")


def test_an_output_inside_an_input_is_refused(tmp_path: Path, task: Path) -> None:
    message = _refusal(tmp_path, task, _in("raw", tmp_path / "raw"), _out("o", tmp_path / "raw" / "clean"))
    assert message.endswith(f"{tmp_path / 'raw' / 'clean'}: is inside input 'raw' ({tmp_path / 'raw'}); an output "
                            "may not equal, contain or sit inside an input (an overwrite would delete it, an append "
                            "change it)")


def test_the_second_of_two_overlapping_outputs_is_the_one_named(tmp_path: Path, task: Path) -> None:
    message = _refusal(tmp_path, task, _out("first", tmp_path / "o"), _out("second", tmp_path / "o" / "sub"),
                       _out("apart", tmp_path / "p"))
    assert message.endswith(f"CONFIG.outputs.second.path: {tmp_path / 'o' / 'sub'}: is inside output 'first' "
                            f"({tmp_path / 'o'}); two outputs may not share a folder (each write would replace "
                            "or mix the other's rows)")


def test_apart_outputs_and_inputs_pass(tmp_path: Path, task: Path) -> None:
    check_locations(_config(tmp_path, _in("a", tmp_path / "a"), _out("b", tmp_path / "b"), _out("c", tmp_path / "c"),
                            _out("t", fmt="table", table="db.t"), _in("u", fmt="table", table="db.u")),
                    task_dir=task, store=tmp_path / "store")


def test_an_unknown_write_mode_is_refused() -> None:
    with pytest.raises(IOSpecError, match=r"^output 'o': unknown mode 'upsert'$"):
        write_action(False, "upsert", "output 'o'", "/x")
    with pytest.raises(IOSpecError, match=r"^output 'o': unknown mode 'upsert'$"):
        write_action(True, "upsert", "output 'o'", "/x")


def test_the_scan_limit_counts_the_entries_of_every_folder_walked(tmp_path: Path, task: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "big"
    (folder / "a" / "b").mkdir(parents=True)
    for part in (folder, folder / "a"):
        for i in range(2):
            (part / f"part-{i}.parquet").write_bytes(b"")
    (folder / "a" / "b" / "late.py").write_text("")
    monkeypatch.setattr(outputs, "CODE_SCAN_LIMIT", 6)
    assert "holds task code" in _refusal(tmp_path, task, _out("o", folder))
    monkeypatch.setattr(outputs, "CODE_SCAN_LIMIT", 5)  # 3 + 3 entries walked before the code
    assert "cannot vouch for" in _refusal(tmp_path, task, _out("o", folder))


def test_a_relative_location_is_the_usecase_folders(tmp_path: Path, task: Path) -> None:
    message = _refusal(tmp_path, task, _out("o", "shop"))
    assert message.endswith(f"CONFIG.outputs.o.path: shop: contains the task folder ({task}); "
                            "an overwrite would delete it")
