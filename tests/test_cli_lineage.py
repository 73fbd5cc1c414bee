"""``ubunye lineage`` list/show/compare/trace/search on the sample records and on corrupt files.

Every ``--json`` output must equal the library result (plus ``schema_version``
and ``command``); exit codes follow the issue: compare 0 only when proven the
same, 1 otherwise, 2 for errors.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from ubunye.cli.app import cli
from ubunye.lineage.compare import compare_records
from ubunye.lineage.search import list_task_runs, parse_since, search_runs
from ubunye.lineage.store import open_store
from ubunye.lineage.trace import trace_run

SAMPLES = Path(__file__).parent / "fixtures" / "records"
TASK = ["-u", "shop", "-p", "orders", "-t", "clean"]
F8D3 = "f8d3997d-4212-4a3d-84b3-bdec1fb91fc9"
OEC7 = "0ec7d5ca-b0df-4d26-aeec-0e57fbefe77c"
F13F = "13fcbf59-5ff4-431d-8b70-45b34752d22b"
V1 = "5b0c3c1e-9a57-4d43-8d7e-2f1f0c6a9b10"


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    """A copy of the sample records (tests add corrupt files to it)."""
    shutil.copytree(SAMPLES, tmp_path / "records")
    return tmp_path / "records"


def run(root: Path, *args: str, lineage_dir: str = "ubunye-engine-0.8.0") -> Result:
    result = CliRunner().invoke(cli, ["lineage", args[0], "-d", str(root), "--lineage-dir", lineage_dir, *args[1:]])
    assert "Traceback" not in result.stderr, result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def as_json(result: Result) -> dict[str, Any]:
    doc = json.loads(result.stdout)  # exactly one document, nothing else on stdout
    assert doc["schema_version"] == 1
    return doc


def expected(command: str, payload: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps({"schema_version": 1, "command": command, **payload}))


def store(root: Path) -> Any:
    return open_store(root, "ubunye-engine-0.8.0")


# ---------------------------------------------------------------- list


def test_list_json_equals_library_and_newest_first(root: Path) -> None:
    result = run(root, "list", *TASK, "--json")
    assert result.exit_code == 0
    doc = as_json(result)
    assert doc == expected("list", list_task_runs(store(root), "shop", "orders", "clean").to_dict())
    assert [r["run_id"] for r in doc["runs"]] == [F13F, OEC7, F8D3]
    assert doc["runs"][0]["rows_in"] is None and doc["runs"][0]["rows_out"] == 2


def test_list_table_shows_dash_not_zero_and_no_colour_off_terminal(root: Path) -> None:
    result = run(root, "list", *TASK)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["RUN", "STARTED", "STATUS", "DURATION", "ROWS", "IN", "ROWS", "OUT"]
    first = lines[1].split()
    assert first[0] == F13F[:8] and first[-2:] == ["-", "2"]
    assert "\x1b[" not in result.stdout


def test_list_skips_a_corrupt_record_with_a_warning_naming_it(root: Path) -> None:
    folder = root / "ubunye-engine-0.8.0" / "shop" / "orders" / "clean"
    bad = folder / "99999999-0000-4000-8000-000000000000.json"
    bad.write_text((folder / f"{OEC7}.json").read_text()[:300], encoding="utf-8")  # truncated
    result = run(root, "list", *TASK, "--json")
    assert result.exit_code == 0
    assert [r["run_id"] for r in as_json(result)["runs"]] == [F13F, OEC7, F8D3]
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and str(bad) in warnings[0]


def test_task_must_be_named_when_the_store_holds_several(root: Path) -> None:
    result = run(root, "list", "-u", "shop")
    assert result.exit_code == 2
    assert result.stdout == "" and result.stderr.count("\n") == 1
    assert "-p, -t" in result.stderr


def test_the_only_task_is_the_default(root: Path) -> None:
    result = run(root, "list", "--json", lineage_dir="v1")
    assert result.exit_code == 0
    assert [r["run_id"] for r in as_json(result)["runs"]] == [V1]


# ---------------------------------------------------------------- show


def test_show_latest_and_by_prefix(root: Path) -> None:
    latest = run(root, "show", *TASK)
    assert latest.exit_code == 0 and json.loads(latest.stdout)["run_id"] == F13F
    doc = as_json(run(root, "show", *TASK, "--run-id", "0ec", "--json"))
    assert doc == expected("show", {"record": store(root).find("shop", "orders", "clean", OEC7).to_dict()})


def test_show_errors_are_one_line_exit_2(root: Path) -> None:
    folder = root / "ubunye-engine-0.8.0" / "shop" / "orders" / "clean"
    shutil.copy(folder / f"{OEC7}.json", folder / "0ec7ffff-0000-4000-8000-000000000000.json")
    (folder / "deadbeef-0000-4000-8000-000000000000.json").write_text("{not json", encoding="utf-8")
    for run_id, words in (("0ec7", "matches 2 runs"), ("nope", "no run 'nope'"), ("dead", "unreadable run record")):
        result = run(root, "show", *TASK, "--run-id", run_id)
        assert result.exit_code == 2, run_id
        assert result.stdout == "" and result.stderr.count("\n") == 1 and words in result.stderr


# ---------------------------------------------------------------- compare


def test_compare_identical_080_runs_exit_0_json_equals_library(root: Path) -> None:
    result = run(root, "compare", *TASK, "--run-id1", "f8d3", "--run-id2", "0ec7", "--json")
    assert result.exit_code == 0
    a, b = store(root).find("shop", "orders", "clean", F8D3), store(root).find("shop", "orders", "clean", OEC7)
    assert as_json(result) == expected("compare", compare_records(a, b).to_dict())
    human = run(root, "compare", *TASK, "--run-id1", "f8d3", "--run-id2", "0ec7")
    assert human.exit_code == 0 and "data proven the same" in human.stdout


def test_compare_default_is_latest_against_previous_and_unknown_exits_1(root: Path) -> None:
    result = run(root, "compare", *TASK, "--json")
    assert result.exit_code == 1
    doc = as_json(result)
    assert (doc["run_a"]["run_id"], doc["run_b"]["run_id"]) == (OEC7, F13F)
    people = [s for s in doc["steps"] if s["name"] == "people"][0]
    assert people["data_hash"]["verdict"] == "unknown"
    human = run(root, "compare", *TASK)
    assert human.exit_code == 1
    assert "data NOT proven the same" in human.stdout and "input 'people'" in human.stdout


def test_compare_version_1_record_by_path_is_not_comparable(root: Path) -> None:
    v1 = root / "v1" / "shop" / "orders" / "clean" / f"{V1}.json"
    other = root / "ubunye-engine-0.8.0" / "shop" / "orders" / "clean" / f"{OEC7}.json"
    result = run(root, "compare", "--record1", str(v1), "--record2", str(other), "--json")
    assert result.exit_code == 1
    adults = [s for s in as_json(result)["steps"] if s["name"] == "adults"][0]
    assert adults["verdict"] == "not comparable"
    assert adults["data_hash"]["verdict"] == "not comparable"
    # one record file against the latest run of the same task in the lineage folder
    latest = run(root, "compare", "--record1", str(v1), "--json")
    assert latest.exit_code == 1 and as_json(latest)["run_b"]["run_id"] == F13F
    # mixing a path with a run id of the task
    mixed = run(root, "compare", *TASK, "--record1", str(v1), "--run-id2", "f8d3")
    assert mixed.exit_code == 1 and "not comparable" in mixed.stdout


def test_compare_of_a_corrupt_record_is_one_line_exit_2(root: Path) -> None:
    folder = root / "ubunye-engine-0.8.0" / "shop" / "orders" / "clean"
    (folder / "deadbeef-0000-4000-8000-000000000000.json").write_bytes(b"")
    result = run(root, "compare", *TASK, "--run-id1", "dead", "--run-id2", "0ec7")
    assert result.exit_code == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    assert "deadbeef-0000-4000-8000-000000000000.json" in result.stderr
    by_path = run(root, "compare", "--record1", str(folder / "deadbeef-0000-4000-8000-000000000000.json"),
                  "--record2", str(folder / f"{OEC7}.json"))
    assert by_path.exit_code == 2 and by_path.stderr.count("\n") == 1


def test_compare_needs_two_runs(root: Path) -> None:
    result = run(root, "compare", "-u", "shop", "-p", "orders", "-t", "bad")
    assert result.exit_code == 2 and "compare needs two" in result.stderr


# ---------------------------------------------------------------- trace


def test_trace_json_equals_library_and_tells_why_no_hash(root: Path) -> None:
    doc = as_json(run(root, "trace", *TASK, "--json"))
    assert doc == expected("trace", trace_run(store(root).find("shop", "orders", "clean", None)).to_dict())
    assert doc["inputs"][0]["no_hash_reason"].startswith("not hashed")
    human = run(root, "trace", *TASK, "--run-id", "f8d3")
    assert human.exit_code == 0
    for words in ("Read:", "/data/pipelines/shop/orders/clean/data/people.csv", "Transform:", "Wrote:",
                  "Code:", "Environment:", "Expectations:", "rows 3"):
        assert words in human.stdout


# ---------------------------------------------------------------- search


def test_search_filters_and_json_equals_library(root: Path) -> None:
    doc = as_json(run(root, "search", "--status", "error", "--json"))
    assert doc == expected("search", search_runs(store(root), status="error").to_dict())
    assert [r["task_path"] for r in doc["runs"]] == ["shop/orders/bad"]
    everything = as_json(run(root, "search", "-u", "shop", "--json"))
    assert len(everything["runs"]) == 4
    since = as_json(run(root, "search", "--since", "2026-11-30T14:20:50", "--json"))
    assert [r["run_id"][:4] for r in since["runs"]] == ["d848", "13fc"]
    assert search_runs(store(root), since=parse_since("2027-01-01")).runs == []
    human = run(root, "search", "-u", "shop", "-p", "orders", "-t", "clean")
    assert human.exit_code == 0 and human.stdout.splitlines()[0].startswith("TASK")


@pytest.mark.parametrize("args", [["-t", "clean"], ["-u", "shop", "-t", "clean"], ["-p", "orders"],
                                  ["--since", "yesterday"]])
def test_search_usage_errors_exit_2(root: Path, args: list[str]) -> None:
    result = run(root, "search", *args)
    assert result.exit_code == 2
    assert result.stdout == "" and result.stderr.count("\n") == 1 and result.stderr.startswith("error:")


def test_search_skips_corrupt_records_with_warning(root: Path) -> None:
    folder = root / "ubunye-engine-0.8.0" / "shop" / "orders" / "bad"
    bad = folder / "00000000-0000-4000-8000-000000000000.json"
    bad.write_text('{"status": "error"}', encoding="utf-8")  # no run_id
    result = run(root, "search", "--json")
    assert result.exit_code == 0 and len(as_json(result)["runs"]) == 4
    assert str(bad) in result.stderr


def test_help_lists_every_command() -> None:
    result = CliRunner().invoke(cli, ["lineage", "--help"])
    assert result.exit_code == 0
    for name in ("list", "show", "compare", "trace", "search", "verify", "openlineage"):
        assert name in result.stdout


class _Tty:
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    from ubunye.cli import render

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert render.use_colour(_Tty()) is True
    assert render.use_colour(object()) is False
    monkeypatch.setattr(render.sys, "stdout", _Tty())
    assert render.paint("changed") != "changed" and "changed" in render.paint("changed")
    monkeypatch.setenv("NO_COLOR", "1")
    assert render.use_colour(_Tty()) is False and render.paint("changed") == "changed"


@pytest.mark.parametrize("change, field", [
    ({"started_at": 5}, "started_at must be a string, not 5"),
    ({"duration_sec": "slow"}, "duration_sec must be a number, not str"),
    ({"outputs": 5}, "outputs must be a list, not int"),
    ({"started_at": "yesterday"}, "started_at 'yesterday' is not an ISO-8601 date-time"),
])
def test_wrongly_typed_fields_are_damage_named_by_list_search_and_show(
        root: Path, change: dict[str, Any], field: str) -> None:
    path = root / "ubunye-engine-0.8.0" / "shop" / "orders" / "clean" / f"{OEC7}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(change)
    path.write_text(json.dumps(data), encoding="utf-8")
    for args in (["list", *TASK, "--json"], ["search", "--json"], ["show", *TASK, "--json"]):
        result = run(root, *args)
        assert result.exit_code == 0, result.stderr
        assert OEC7 not in result.stdout  # skipped ...
        json.loads(result.stdout)  # ... and stdout stays one JSON document
        assert result.stderr == f"warning: skipping unreadable run record {path}: {field}\n"
    shown = run(root, "show", *TASK, "--run-id", OEC7[:4])
    assert shown.exit_code == 2 and shown.stdout == ""
    assert shown.stderr == f"error: unreadable run record {path}: {field}\n"


def test_a_step_with_a_wrongly_typed_row_count_is_damage(root: Path) -> None:
    path = root / "ubunye-engine-0.8.0" / "shop" / "orders" / "clean" / f"{OEC7}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["inputs"][0]["row_count"] = "many"
    path.write_text(json.dumps(data), encoding="utf-8")
    listed = run(root, "list", *TASK)
    assert listed.exit_code == 0 and OEC7[:8] not in listed.stdout
    assert "inputs[0].row_count must be a whole number >= 0, not str" in listed.stderr


@pytest.mark.parametrize("args, pair", [
    (["--run-id1", "f8d3"], (F8D3, F13F)),  # against the latest
    (["--run-id2", "0ec7"], (F8D3, OEC7)),  # the run before it
    (["--run-id2", "f8d3"], None),  # there is none before the oldest
])
def test_compare_with_one_run_named(root: Path, args: list[str], pair: tuple[str, str] | None) -> None:
    result = run(root, "compare", *TASK, *args, "--json")
    if pair is None:
        assert result.exit_code == 2 and "before run" in result.stderr
        return
    doc = as_json(result)
    assert (doc["run_a"]["run_id"], doc["run_b"]["run_id"]) == pair
