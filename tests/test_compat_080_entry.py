"""ubunye-engine 0.8.0's import paths and entry points: its task folders and scripts run unchanged.

`from ubunye.core.interfaces import Task` (with `Task(config)`, `self.config` and
`setup()`), `python -m ubunye --task-dir`, `ubunye run`'s 0.8.0 flag names,
`{{ env.NAME }}` / `{{ task_dir }}` / `default(...)` templates, and the one-line
refusals of what has no counterpart here.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import ubunye
from ubunye.cli.app import cli
from ubunye.engine.config import load_config
from ubunye.engine.errors import ConfigError
from ubunye.engine.runner import run_task

PYTHON_DIR = Path(ubunye.__file__).resolve().parents[1]

# A 0.8.0 task folder as its docs and examples write it: `format`, `{{ task_dir }}`,
# `dt | default(...)`, `mode`, and a Task taking `config` in its constructor.
CONFIG_080 = """\
MODEL: etl
VERSION: "0.1.0"
ENGINE:
  backend: pandas
CONFIG:
  inputs:
    orders: {format: csv, path: "{{ task_dir }}/orders.csv"}
  transform:
    type: task
    params: {floor: 10}
  outputs:
    big:
      format: parquet
      path: "{{ task_dir }}/out/{{ dt | default('latest') }}/{{ mode | default('DEV') }}"
      mode: overwrite
"""

# 0.8.0's own Task contract: __init__(self, config) -> self.config; setup() before transform.
CODE_080_INIT = """\
from typing import Any, Dict

from ubunye.core.interfaces import Task


class Totals(Task):
    def __init__(self, config: dict):
        super().__init__(config)
        self.seen_model = config["MODEL"]

    def setup(self) -> None:
        self.floor = self.config["CONFIG"]["transform"]["params"]["floor"]

    def transform(self, sources: Dict[str, Any]) -> Dict[str, Any]:
        df = sources["orders"]
        out = df[df["amount"] >= self.floor].copy()
        out["model"] = self.seen_model
        return {"big": out}
"""

# The common 0.8.0 form: no __init__ of its own, self.config read in setup().
CODE_080_PLAIN = """\
from ubunye.core.interfaces import Task


class Totals(Task):
    def setup(self):
        self.floor = self.config["CONFIG"]["transform"]["params"]["floor"]

    def transform(self, sources):
        df = sources["orders"]
        return {"big": df[df["amount"] >= self.floor]}
"""


def make_task(root: Path, code: str = CODE_080_PLAIN, config: str = CONFIG_080, name: str = "totals") -> Path:
    task = root / "shop" / "daily" / name
    task.mkdir(parents=True, exist_ok=True)
    (task / "orders.csv").write_text("id,amount\n1,10\n2,20\n3,5\n")
    (task / "config.yaml").write_text(config)
    (task / "transformations.py").write_text(code)
    return task


def amounts(folder: Path) -> list[int]:
    return sorted(pq.read_table(folder).column("amount").to_pylist())


def one_record(root: Path, lineage_dir: str = ".ubunye/lineage") -> dict:
    records = list((root / lineage_dir / "shop/daily/totals").glob("*.json"))
    assert len(records) == 1, records
    return json.loads(records[0].read_text())


# --- import paths ---------------------------------------------------------------------------


def test_core_interfaces_task_is_this_projects_task() -> None:
    from ubunye.core.interfaces import Task
    from ubunye.engine.task import Task as EngineTask

    assert Task is EngineTask is ubunye.Task


@pytest.mark.parametrize("code", [CODE_080_INIT, CODE_080_PLAIN], ids=["own-init", "plain"])
def test_080_task_gets_config_and_setup(tmp_path: Path, code: str) -> None:
    task = make_task(tmp_path, code)
    result = run_task(task, dt="2024-01-02")
    assert result.status == "success"
    out = task / "out/2024-01-02/DEV"
    assert amounts(out) == [10, 20]  # floor 10 came from self.config in setup()
    if code is CODE_080_INIT:
        assert set(pq.read_table(out).column("model").to_pylist()) == {"etl"}


@pytest.mark.parametrize("name", ["Backend", "Reader", "Writer", "Transform"])
def test_080_plugin_base_classes_refused_in_one_line(name: str) -> None:
    with pytest.raises(ImportError) as info:
        exec(f"from ubunye.core.interfaces import {name}", {})
    message = str(info.value)
    assert "\n" not in message
    assert f"ubunye.core.interfaces.{name}" in message and "0.8.0" in message


@pytest.mark.parametrize(
    "statement, module, hint",
    [
        ("import ubunye.models.registry", "ubunye.models", "model registry"),
        ("from ubunye.config import load_config", "ubunye.config", "ubunye.engine.config.load_config"),
        ("from ubunye import config", "ubunye.config", "ubunye.engine.config.load_config"),
        ("from ubunye.core.runtime import EngineContext", "ubunye.core.runtime", "run_task"),
        ("from ubunye.plugins.readers.s3 import S3Reader", "ubunye.plugins", "built-in formats"),
        ("from ubunye.core.errors import ExpectationError", "ubunye.core.errors", "ubunye.UbunyeError"),
    ],
)
def test_080_only_modules_refused_saying_what_to_use(statement: str, module: str, hint: str) -> None:
    code = f"import sys\ntry:\n    {statement}\nexcept ImportError as e:\n    print(type(e).__name__, e)\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(PYTHON_DIR)}, check=True)
    line = done.stdout.strip()
    assert "\n" not in line
    assert line.startswith(f"ImportError {module} is a ubunye-engine 0.8.0 module") and hint in line


def test_a_missing_module_of_ours_is_still_a_plain_module_not_found() -> None:
    with pytest.raises(ModuleNotFoundError, match="ubunye.no_such_thing"):
        __import__("ubunye.no_such_thing")


# --- python -m ubunye --task-dir ------------------------------------------------------------


def python_m(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
    return subprocess.run([sys.executable, "-m", "ubunye", *args], capture_output=True, text=True, cwd=cwd, env=env)


def test_python_m_ubunye_task_dir_runs_the_folder(tmp_path: Path) -> None:
    make_task(tmp_path, CODE_080_INIT)
    done = python_m("--task-dir", "shop/daily/totals", "--mode", "PROD", "--dt", "2024-03-01", "--lineage",
                    cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok   shop/daily/totals (")
    assert amounts(tmp_path / "shop/daily/totals/out/2024-03-01/PROD") == [10, 20]
    record = one_record(tmp_path)
    assert record["variables"] == {"mode": "PROD", "dt": "2024-03-01"}
    assert record["status"] == "success"


def test_python_m_ubunye_without_task_dir_is_the_cli(tmp_path: Path) -> None:
    done = python_m("version", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == f"ubunye {ubunye.__version__}"


def test_python_m_ubunye_task_dir_refuses_a_missing_folder(tmp_path: Path) -> None:
    done = python_m("--task-dir", "shop/daily/nope", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].endswith("no task folder shop/daily/nope")


# --- ubunye run: 0.8.0's flag names ---------------------------------------------------------


def run_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    "flags, expected",
    [
        (["-dt", "2024-05-01"], {"dt": "2024-05-01", "mode": "DEV"}),
        (["--dt", "2024-05-01"], {"dt": "2024-05-01", "mode": "DEV"}),
        (["--data-timestamp", "2024-05-01"], {"dt": "2024-05-01", "mode": "DEV"}),
        (["--data-timestamp", "2024-05", "-dtf", "%Y-%m"], {"dt": "2024-05", "dtf": "%Y-%m", "mode": "DEV"}),
        (["--data-timestamp", "2024-05", "--data-timestamp-format", "%Y-%m"],
         {"dt": "2024-05", "dtf": "%Y-%m", "mode": "DEV"}),
        (["-m", "PROD"], {"mode": "PROD"}),
        (["--mode", "PROD", "--var", "who=me"], {"mode": "PROD", "who": "me"}),
        (["--deploy-mode", "client"], {"mode": "DEV"}),
    ],
)
def test_run_takes_080_flag_names(tmp_path: Path, flags: list[str], expected: dict) -> None:
    make_task(tmp_path)
    code, out, err = run_cli("run", "-d", str(tmp_path), "-u", "shop", "-p", "daily", "--task-list", "totals",
                             "--lineage", *flags)
    assert code == 0, err
    assert one_record(tmp_path)["variables"] == expected


def test_run_lineage_dir_places_records(tmp_path: Path) -> None:
    make_task(tmp_path)
    code, _, err = run_cli("run", "-d", str(tmp_path), "-u", "shop", "-p", "daily", "-t", "totals",
                           "--lineage", "--lineage-dir", "audit/runs")
    assert code == 0, err
    assert one_record(tmp_path, "audit/runs")["status"] == "success"
    assert not (tmp_path / ".ubunye").exists()


def test_run_refuses_cluster_deploy_mode_in_one_line_before_running(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    code, out, err = run_cli("run", "-d", str(tmp_path), "-u", "shop", "-p", "daily", "-t", "totals",
                             "--deploy-mode", "cluster")
    assert code == 2
    assert "--deploy-mode" in err and "only client" in err
    assert not (task / "out").exists()


# --- templates --------------------------------------------------------------------------------


def template_task(tmp_path: Path, path: str) -> Path:
    config = CONFIG_080.replace("\"{{ task_dir }}/out/{{ dt | default('latest') }}/{{ mode | default('DEV') }}\"",
                                json.dumps(path))
    return make_task(tmp_path, config=config)


def test_templates_env_task_dir_and_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UBUNYE_T080_BUCKET", "/data/lake")
    task = template_task(tmp_path, "{{ env.UBUNYE_T080_BUCKET }}/{{ task_dir }}/"
                                   "{{ dt | default('latest') }}/{{ mode | default('DEV') }}/"
                                   "{{ env.UBUNYE_T080_UNSET | default('none') }}")
    plain = load_config(task)
    assert plain.outputs["big"].path == f"/data/lake/{task}/latest/DEV/none"
    given = load_config(task, mode="PROD", dt="2024-01-02")
    assert given.outputs["big"].path == f"/data/lake/{task}/2024-01-02/PROD/none"


def test_unset_env_var_is_one_line_naming_it_and_the_file(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UBUNYE_T080_MISSING", raising=False)
    task = template_task(tmp_path, "{{ env.UBUNYE_T080_MISSING }}/out")
    with pytest.raises(ConfigError) as info:
        load_config(task)
    message = str(info.value)
    assert "\n" not in message
    assert str(task / "config.yaml") in message
    assert "environment variable UBUNYE_T080_MISSING is not set" in message


def test_unknown_template_name_is_still_an_error(tmp_path: Path) -> None:
    task = template_task(tmp_path, "{{ dt }}/out")
    with pytest.raises(ConfigError, match="'dt' is undefined"):
        load_config(task)


# --- other 0.8.0 commands ---------------------------------------------------------------------


def test_validate_and_config_check_without_running(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    make_task(tmp_path, "this is not python(", name="broken")
    for verb in ("validate", "config"):
        code, out, err = run_cli(verb, "-d", str(tmp_path), "-u", "shop", "-p", "daily", "--all")
        assert code == 1
        assert out.splitlines() == ["ok   shop/daily/totals"]
        assert err.startswith("FAIL shop/daily/broken: ") and "transformations.py:1: import failed" in err
        assert len(err.strip().splitlines()) == 1
    assert not (task / "out").exists()


def test_validate_profile_must_be_defined(tmp_path: Path) -> None:
    make_task(tmp_path)
    code, _, err = run_cli("validate", "-d", str(tmp_path), "-u", "shop", "-p", "daily", "-t", "totals",
                           "--profile", "PROD")
    assert code == 1
    assert err.strip().endswith("ENGINE.profiles: no profile 'PROD' (defined: none)")


def test_plan_prints_inputs_and_outputs(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    code, out, err = run_cli("plan", "-d", str(tmp_path), "-u", "shop", "-p", "daily", "-t", "totals",
                             "--data-timestamp", "2024-07-01")
    assert code == 0, err
    assert f"  - orders: csv {task}/orders.csv" in out.splitlines()
    assert f"  - big: parquet {task}/out/2024-07-01/DEV (mode overwrite)" in out.splitlines()


@pytest.mark.parametrize("verb", ["init", "plugins", "test", "models", "export"])
def test_080_commands_without_counterpart_refused_in_one_line(verb: str) -> None:
    code, out, err = run_cli(verb, "run", "-d", "x", "--whatever")
    assert code == 2
    assert out == ""
    assert err.startswith(f"error: `ubunye {verb}` (ubunye-engine 0.8.0) is not available: ")
    assert len(err.strip().splitlines()) == 1


def test_lineage_list_n_limits_to_newest(tmp_path: Path) -> None:
    make_task(tmp_path)
    for _ in range(3):
        assert run_cli("run", "-d", str(tmp_path), "-u", "shop", "-p", "daily", "-t", "totals", "--lineage")[0] == 0
    base = ["lineage", "list", "-d", str(tmp_path), "-u", "shop", "-p", "daily", "-t", "totals", "--json"]
    everything = json.loads(run_cli(*base)[1])
    newest = json.loads(run_cli(*base, "-n", "2")[1])
    assert everything["count"] == 3
    assert [r["run_id"] for r in newest["runs"]] == [r["run_id"] for r in everything["runs"][:2]]


def test_ubunye_task_dir_in_process_and_command_first_is_not_routed(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture) -> None:
    from ubunye.cli.app import main

    task = make_task(tmp_path)
    # no --mode: PROD, as 0.8.0's python -m ubunye defaults it; --log-level as it takes it
    assert main(["--task-dir", str(task), "--data-timestamp", "2024-09-09", "--log-level", "warning"]) == 0
    assert amounts(task / "out/2024-09-09/PROD") == [10, 20]
    # a command given first is the command: its own options, not the --task-dir run
    assert main(["run", "-d", str(tmp_path), "-u", "shop", "-p", "daily", "--task-dir", str(task)]) == 2
    assert "No such option '--task-dir'" in capsys.readouterr().err


def test_run_task_result_reads_like_080s_outputs_dict(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    outputs = ubunye.run_task(task_dir=str(task), mode="DEV", dt="2024-02-02")  # 0.8.0's call, unchanged
    assert sorted(outputs["big"]["amount"]) == [10, 20]
    assert list(outputs) == list(outputs.keys()) == ["big"] and "big" in outputs
    assert [name for name, _ in outputs.items()] == ["big"] and len(list(outputs.values())) == 1
    assert bool(outputs)  # still a result (truthy), not an empty mapping
    with pytest.raises(KeyError, match="no output 'nope' \\(outputs: big\\)"):
        outputs["nope"]


def test_run_task_080_profile_and_hooks(tmp_path: Path) -> None:
    config = CONFIG_080.replace("  backend: pandas\n", "  backend: pandas\n  profiles:\n"
                                "    PROD: {spark_conf: {spark.sql.shuffle.partitions: '8'}}\n")
    task = make_task(tmp_path, config=config)
    with pytest.raises(ConfigError, match=r"ENGINE\.profiles: no profile 'prod' \(defined: PROD\)"):
        run_task(task, mode="PROD", profile="prod")
    assert not (task / "out").exists()  # nothing ran
    assert run_task(task, mode="PROD", profile="PROD").status == "success"
    with pytest.raises(TypeError, match=r"run_task\(hooks=\.\.\.\) \(ubunye-engine 0\.8\.0\) is not supported"):
        run_task(task, hooks=[object()])


def test_engine_warnings_are_one_line_on_the_command_line(tmp_path: Path) -> None:
    """0.8.0's ``transform: {type: noop}`` is ignored with a warning: one line naming the
    file and key, not Python's two (file:line, then the source line)."""
    task = make_task(tmp_path, config=CONFIG_080.replace("    type: task\n", "    type: noop\n"))
    done = python_m("--task-dir", str(task), "-m", "DEV", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "transform" in line or "validate(" in line]
    assert lines == [f"warning: {task / 'config.yaml'}: CONFIG.transform.type 'noop' is ignored: "
                     "the task's transformations.py runs"], done.stderr
