"""ubunye-engine 0.8.0 (the PyPI wheel) as its users call it: every command, the options of
run/validate/plan/config/lineage, its Python names and its ``secret://`` values either work
the same here or stop in one line saying what to use, before anything runs.

The 0.8.0 names below are written out (not taken from this project's tables), so a
command or module that loses its refusal makes a test fail.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import ubunye
from ubunye.cli.app import cli
from ubunye.engine.config import load_config
from ubunye.engine.errors import ConfigError

PYTHON_DIR = Path(ubunye.__file__).resolve().parents[1]

CONFIG = """\
MODEL: etl
ENGINE:
  backend: pandas
CONFIG:
  inputs:
    orders: {format: csv, path: "{{ task_dir }}/orders.csv"}
  outputs:
    big: {format: parquet, path: "{{ task_dir }}/out", mode: overwrite}
"""

CODE = """\
from ubunye.core.interfaces import Task


class Totals(Task):
    def transform(self, sources):
        df = sources["orders"]
        return {"big": df[df["amount"] >= 10]}
"""


def make_task(root: Path, config: str = CONFIG, name: str = "totals") -> Path:
    task = root / "shop" / "daily" / name
    task.mkdir(parents=True, exist_ok=True)
    (task / "orders.csv").write_text("id,amount\n1,10\n2,20\n3,5\n")
    (task / "config.yaml").write_text(config)
    (task / "transformations.py").write_text(CODE)
    return task


def run_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    return lines[0]


TASK_ARGS = ["-u", "shop", "-p", "daily", "-t", "totals"]

# --- commands ---------------------------------------------------------------------------------

# Every top-level command of 0.8.0's ubunye/cli/main.py (its commands and add_typer sub-apps).
COMMANDS_080 = ["deploy", "export", "init", "lineage", "models", "prove", "sync", "test", "backends", "doctor",
                "gate", "mcp", "plugins", "config", "validate", "plan", "run", "version"]
NO_COUNTERPART = ["deploy", "export", "init", "models", "prove", "sync", "test", "backends", "gate",
                  "mcp", "plugins"]  # doctor: `ubunye doctor` (tests/test_doctor.py)


def test_every_080_command_is_known() -> None:
    known = set(cli.list_commands(click_context()))
    assert set(COMMANDS_080) <= known


def click_context():  # type: ignore[no-untyped-def]
    import click

    return click.Context(cli)


@pytest.mark.parametrize("verb", NO_COUNTERPART)
def test_080_command_without_counterpart_is_one_line(verb: str) -> None:
    # as 0.8.0 scripts call them: a subcommand and options (ubunye deploy databricks -d ... --target dev)
    code, out, err = run_cli(verb, "databricks", "-d", "pipelines", "--target", "dev", "--dry-run")
    assert code == 2
    assert out == ""
    line = one_error_line(err)
    assert line.startswith(f"error: `ubunye {verb}` (ubunye-engine 0.8.0) is not available: ")
    assert len(line) > len(f"error: `ubunye {verb}` (ubunye-engine 0.8.0) is not available: ") + 20  # says what to use


def test_lineage_focus_is_one_line() -> None:
    code, _, err = run_cli("lineage", "focus", "-d", ".", "-u", "a", "-p", "b", "-t", "c", "--format", "csv")
    assert code == 2
    assert one_error_line(err).startswith("error: `ubunye lineage focus` (ubunye-engine 0.8.0) is not available")


# --- run ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "flags, says",
    [
        (["--deploy-mode", "cluster"], "--deploy-mode cluster: only client"),
        (["--backend", "databricks"], "--backend databricks (ubunye-engine 0.8.0) is not available: use --backend spark"),
        (["--backend", "dask"], "--backend 'dask': expected one of spark, pandas"),
        (["--rerun"], "--rerun (ubunye-engine 0.8.0) is not available"),
        (["--resume"], "--resume (ubunye-engine 0.8.0) is not available"),
        (["--var", "mode=PROD"], "'mode' cannot be a --var: set it with -m/--mode"),
        (["--var", "env=x"], "'env' cannot be a --var"),
        (["--var", "task_dir=x"], "'task_dir' cannot be a --var"),
        (["--var", "1st=x"], "'1st' is not a template name"),
        (["--var", "novalue"], "expected k=v"),
        (["-dt", "2024-01-01", "--var", "dt=2024-02-02"], "dt is also given by -dt '2024-01-01'; pass one"),
        (["--var", "region=a", "--var", "region=b"], "region is given twice"),
    ],
)
def test_run_080_option_refused_in_one_line_before_running(tmp_path: Path, flags: list[str], says: str) -> None:
    task = make_task(tmp_path)
    code, out, err = run_cli("run", "-d", str(tmp_path), *TASK_ARGS, *flags)
    assert code == 2
    assert says in one_error_line(err)
    assert not (task / "out").exists()
    assert not (tmp_path / ".ubunye").exists()


def test_task_dir_entry_refuses_databricks_backend_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from ubunye.cli.app import main

    task = make_task(tmp_path)
    assert main(["--task-dir", str(task), "--backend", "databricks"]) == 2
    assert "--backend databricks" in one_error_line(capsys.readouterr().err)
    assert not (task / "out").exists()


def test_run_var_dt_equal_to_dt_flag_and_all_run(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    code, out, err = run_cli("run", "-d", str(tmp_path), "-u", "shop", "-p", "daily", "--all",
                             "-dt", "2024-01-01", "--var", "dt=2024-01-01", "--var", "region=gp")
    assert code == 0, err
    assert (task / "out").exists()


# --- validate / config / plan -------------------------------------------------------------------


def test_validate_json_as_080(tmp_path: Path) -> None:
    make_task(tmp_path, CONFIG.replace("  outputs:", "  transform: {type: noop}\n  outputs:"))
    broken = make_task(tmp_path, name="broken")
    (broken / "transformations.py").write_text("this is not python(")
    code, out, err = run_cli("validate", "-d", str(tmp_path), "-u", "shop", "-p", "daily", "--all", "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["ok"] is False
    tasks = {t["task"]: t for t in doc["tasks"]}
    assert set(tasks) == {"broken", "totals"}
    assert tasks["totals"]["ok"] is True and tasks["totals"]["problems"] == []
    assert any("CONFIG.transform.type 'noop' is ignored" in w for w in tasks["totals"]["warnings"])
    assert tasks["broken"]["ok"] is False and "import failed" in tasks["broken"]["problems"][0]
    assert err == ""
    # the same warning again in this process is still in the document (not shown once only)
    again = json.loads(run_cli("validate", "-d", str(tmp_path), *TASK_ARGS, "--json")[1])
    assert any("is ignored" in w for w in again["tasks"][0]["warnings"])


DELTA_OUT = CONFIG.replace("big: {format: parquet,", "big: {format: delta,")


def test_validate_backend_checks_what_the_backend_can_do(tmp_path: Path) -> None:
    make_task(tmp_path, DELTA_OUT)
    base = ["validate", "-d", str(tmp_path), *TASK_ARGS]
    code, _, err = run_cli(*base, "--backend", "pandas")
    assert code == 1
    assert "format 'delta' is not supported on the pandas backend" in err
    assert run_cli(*base, "--backend", "spark")[0] == 0
    assert run_cli(*base)[0] == 0  # no --backend: the config alone, as 0.8.0
    code, _, err = run_cli(*base, "--backend", "databricks")
    assert code == 2 and "--backend databricks" in one_error_line(err)


def test_validate_mode_and_profile_must_agree(tmp_path: Path) -> None:
    make_task(tmp_path)
    code, _, err = run_cli("validate", "-d", str(tmp_path), *TASK_ARGS, "-m", "DEV", "--profile", "PROD")
    assert code == 2
    assert "--profile PROD and -m DEV disagree" in one_error_line(err)


def test_config_takes_080_options(tmp_path: Path) -> None:
    make_task(tmp_path)
    code, out, err = run_cli("config", "-d", str(tmp_path), *TASK_ARGS, "-dt", "2024-01-01", "-dtf", "%Y-%m-%d",
                             "-m", "DEV", "--var", "region=gp")
    assert code == 0, err
    assert out.splitlines() == ["ok   shop/daily/totals"]


def test_plan_backend_reports_a_problem_and_json_is_one_line(tmp_path: Path) -> None:
    make_task(tmp_path, DELTA_OUT)
    base = ["plan", "-d", str(tmp_path), *TASK_ARGS]
    code, out, err = run_cli(*base, "--backend", "pandas")
    assert code == 1
    assert any(line.startswith("  problem: ") and "'delta'" in line for line in out.splitlines())
    assert run_cli(*base, "--backend", "spark")[0] == 0
    code, out, err = run_cli(*base, "--json")
    assert code == 2 and out == ""
    assert "plan --json (ubunye-engine 0.8.0) is not available" in one_error_line(err)


# --- lineage ------------------------------------------------------------------------------------


def test_lineage_openlineage_namespace_and_send(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UBUNYE_OPENLINEAGE_URL", raising=False)
    monkeypatch.delenv("OPENLINEAGE_URL", raising=False)
    make_task(tmp_path)
    assert run_cli("run", "-d", str(tmp_path), *TASK_ARGS, "--lineage")[0] == 0
    base = ["lineage", "openlineage", "-d", str(tmp_path), *TASK_ARGS]
    code, out, err = run_cli(*base, "--namespace", "prod-jobs")
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    assert events and {e["job"]["namespace"] for e in events} == {"prod-jobs"}
    code, out, err = run_cli(*base)
    assert {json.loads(line)["job"]["namespace"] for line in out.splitlines()} == {"ubunye"}
    code, out, err = run_cli(*base, "--send")
    assert code == 2
    assert "--send needs UBUNYE_OPENLINEAGE_URL (or OPENLINEAGE_URL)" in one_error_line(err)


# --- Python names -------------------------------------------------------------------------------


def test_ubunye_error_catches_config_and_run_failures(tmp_path: Path) -> None:
    from ubunye import UbunyeError, run_task

    assert "UbunyeError" in ubunye.__all__
    bad = make_task(tmp_path, CONFIG.replace("MODEL: etl", "MODEL: etl\nBOGUS: 1"), name="bad")
    with pytest.raises(UbunyeError):
        run_task(bad)
    failing = make_task(tmp_path, CONFIG.replace("orders.csv", "missing.csv"), name="failing")
    with pytest.raises(UbunyeError):
        run_task(failing)


def test_api_module_and_pipeline_results_as_080(tmp_path: Path) -> None:
    from ubunye.api import run_pipeline, run_task

    assert run_task is ubunye.run_task and run_pipeline is ubunye.run_pipeline
    make_task(tmp_path)
    make_task(tmp_path, name="again")
    results = run_pipeline(str(tmp_path), "shop", "daily", ["totals", "again"])
    assert [r.status for r in results] == ["success", "success"]  # still the list of TaskResults
    assert list(results.keys()) == ["totals", "again"] and "again" in results
    assert sorted(results["totals"]["big"]["amount"].tolist()) == [10, 20]  # 0.8.0: results[task][output]
    with pytest.raises(KeyError):
        results["nope"]
    with pytest.raises(ImportError, match="backend= takes 'spark' or 'pandas'"):
        exec("from ubunye.api import BackendChoice", {})


@pytest.mark.parametrize(
    "call, error, says",
    [
        ("run_task(task, rerun=True)", TypeError, "run_task(rerun=...) (ubunye-engine 0.8.0) is not supported"),
        ("run_task(task, backend='databricks')", ValueError, "use backend='spark'"),
        ("run_task(task, backend=object())", TypeError, "backend objects (ubunye-engine 0.8.0)"),
        ("run_pipeline(root, 'shop', 'daily', ['totals'], resume=True)", TypeError, "run_pipeline(resume=...)"),
        ("notebook(task, hooks=[object()])", TypeError, "notebook(hooks=...)"),
        ("notebook(task, env={'A': 'b'})", TypeError, "notebook(env=...) (ubunye-engine 0.8.0) is not supported: set os.environ"),
        ("notebook(task, secrets_scope='kv')", TypeError, "notebook(secrets_scope=...)"),
        ("notebook(task, secrets_map={'A': 'a'})", TypeError, "notebook(secrets_map=...)"),
        ("notebook(task, profile='PROD')", ConfigError, "ENGINE.profiles: no profile 'PROD'"),
    ],
)
def test_080_keywords_refused_in_one_line(tmp_path: Path, call: str, error: type, says: str) -> None:
    from ubunye import notebook, run_pipeline, run_task  # noqa: F401

    task = make_task(tmp_path)
    with pytest.raises(error) as info:
        eval(call, {"run_task": run_task, "run_pipeline": run_pipeline, "notebook": notebook,
                    "task": task, "root": tmp_path})
    assert says in str(info.value) and "\n" not in str(info.value)
    assert not (task / "out").exists()


def test_080_run_task_defaults_are_taken(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    assert ubunye.run_task(task, rerun=False, hooks=None).status == "success"
    nb = ubunye.notebook(task, auto_env=False, env=None, secrets_scope=None)
    assert nb.run().status == "success"


def test_notebook_module_and_context_names_as_080(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    code = (
        "import ubunye\n"
        "from ubunye.notebook import NotebookContext, notebook\n"
        "assert notebook is ubunye.engine.runner.notebook\n"
        f"ctx = ubunye.notebook({str(task)!r})\n"  # the module is callable: ubunye.notebook(...) still works
        "assert isinstance(ctx, NotebookContext)\n"
        "assert ctx.task_name == 'shop/daily/totals' and ctx.backend == 'pandas' and ctx.spark is None\n"
        "assert ctx.config_dict['MODEL'] == 'etl'\n"
        "ctx.close(); ctx.close()\n"
        f"ctx = notebook({str(task)!r}); ctx.read(); ctx.close()\n"
        "assert ctx.result.status == 'interrupted'\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(PYTHON_DIR)})
    assert done.stdout.strip() == "ok", done.stderr


@pytest.mark.parametrize(
    "statement, module",
    [
        ("from ubunye.core.secrets import SecretResolver", "ubunye.core.secrets"),
        ("from ubunye.core.errors import UbunyeError", "ubunye.core.errors"),
        ("from ubunye.core.runs import BatchFinished", "ubunye.core.runs"),
        ("from ubunye.core.expectations import ExpectationSet", "ubunye.core.expectations"),
        ("from ubunye.interfaces.lineage import LineageRecord", "ubunye.interfaces"),
        ("import ubunye.adapters.pandas_io", "ubunye.adapters"),
        ("from ubunye.cli.main import app", "ubunye.cli.main"),
        ("from ubunye.lineage.hasher import hash_frame", "ubunye.lineage.hasher"),
        ("from ubunye.lineage.storage import FileSystemLineageStore", "ubunye.lineage.storage"),
        ("import ubunye.proving.matrix", "ubunye.proving"),
        ("import ubunye.llm", "ubunye.llm"),
        ("import ubunye.mcp_server", "ubunye.mcp_server"),
        ("import ubunye.deploy.databricks.bundle", "ubunye.deploy"),
        ("import ubunye._internal.discovery", "ubunye._internal"),
    ],
)
def test_real_080_modules_refused_in_one_line(statement: str, module: str) -> None:
    code = f"try:\n    {statement}\nexcept ImportError as e:\n    print(type(e).__name__, e)\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(PYTHON_DIR)}, check=True)
    line = done.stdout.strip()
    assert "\n" not in line
    assert line.startswith("ImportError ") and f"is a ubunye-engine 0.8.0 module with no counterpart here: " in line
    assert module in line


def test_a_name_0_8_0_never_had_is_not_refused_as_one() -> None:
    from ubunye._legacy import refusal

    assert refusal("ubunye.compat") is None  # not in the real 0.8.0 wheel


def test_core_interfaces_connector_refused() -> None:
    with pytest.raises(ImportError, match=r"ubunye.core.interfaces.Connector \(ubunye-engine 0.8.0\)"):
        exec("from ubunye.core.interfaces import Connector", {})


# --- secret:// ----------------------------------------------------------------------------------


def secret_task(tmp_path: Path, reference: str) -> Path:
    return make_task(tmp_path, CONFIG.replace('"{{ task_dir }}/orders.csv"', json.dumps(reference)))


def test_secret_env_is_resolved_and_masked_in_the_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    where = tmp_path / "private-drop" / "orders.csv"
    where.parent.mkdir()
    where.write_text("id,amount\n1,10\n2,20\n3,5\n")
    monkeypatch.setenv("UBUNYE_T080_ORDERS", str(where))
    task = secret_task(tmp_path, "secret://env/UBUNYE_T080_ORDERS")
    config = load_config(task)
    assert config.inputs["orders"].path == str(where)  # the run reads the secret's value
    assert config.raw["CONFIG"]["inputs"]["orders"]["path"] == "secret://env/UBUNYE_T080_ORDERS"
    code, out, err = run_cli("run", "-d", str(tmp_path), *TASK_ARGS, "--lineage")
    assert code == 0, err
    assert (task / "out").exists()
    records = sorted((tmp_path / ".ubunye/lineage/shop/daily/totals").glob("*.json"))
    text = records[0].read_text()
    assert "private-drop" not in text  # neither the value nor any part of it
    assert "private-drop" not in out + err
    # the config hash is of the reference: rotating the secret does not change it (as 0.8.0)
    moved = tmp_path / "other-drop" / "orders.csv"
    moved.parent.mkdir()
    moved.write_text(where.read_text())
    monkeypatch.setenv("UBUNYE_T080_ORDERS", str(moved))
    assert run_cli("run", "-d", str(tmp_path), *TASK_ARGS, "--lineage")[0] == 0
    hashes = {json.loads(p.read_text())["config_hash"] for p in
              (tmp_path / ".ubunye/lineage/shop/daily/totals").glob("*.json")}
    assert len(hashes) == 1


def test_secret_file_is_resolved(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    target = tmp_path / "hidden-orders.csv"
    target.write_text("id,amount\n1,10\n")
    secret.write_text(f"{target}\n")
    task = secret_task(tmp_path, f"secret://file/{secret}")
    assert load_config(task).inputs["orders"].path == str(target)  # the final newline dropped


def test_a_resolved_secret_is_masked_in_the_run_failure_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UBUNYE_T080_GONE", str(tmp_path / "no-such-secret-place" / "orders.csv"))
    secret_task(tmp_path, "secret://env/UBUNYE_T080_GONE")
    code, out, err = run_cli("run", "-d", str(tmp_path), *TASK_ARGS, "--lineage")
    assert code == 1
    assert err.startswith("FAIL shop/daily/totals: ") and "***" in err
    assert "no-such-secret-place" not in out + err
    record_file = next((tmp_path / ".ubunye/lineage/shop/daily/totals").glob("*.json"))
    assert "no-such-secret-place" not in record_file.read_text()


@pytest.mark.parametrize(
    "reference, says",
    [
        ("secret://aws-sm/prod/db#password", "secret provider 'aws-sm' (ubunye-engine 0.8.0) is not supported here"),
        ("secret://databricks/scope/key", "secret provider 'databricks'"),
        ("secret://env/UBUNYE_T080_NEVER_SET", "secret://env/UBUNYE_T080_NEVER_SET: environment variable "
                                               "UBUNYE_T080_NEVER_SET is not set"),
        ("secret://file//no/such/secret", "no secret file at /no/such/secret"),
        ("secret://env", "is not a secret reference"),
    ],
)
def test_secret_refused_in_one_line_naming_key_and_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             reference: str, says: str) -> None:
    monkeypatch.delenv("UBUNYE_T080_NEVER_SET", raising=False)
    task = secret_task(tmp_path, reference)
    with pytest.raises(ConfigError) as info:
        load_config(task)
    message = str(info.value)
    assert "\n" not in message and says in message
    assert f"{task / 'config.yaml'}: CONFIG.inputs.orders.path: " in message
    code, _, err = run_cli("run", "-d", str(tmp_path), *TASK_ARGS, "--lineage")
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1  # bad input (issue 19: was 1)
    assert err.startswith("error: ")
    assert not (task / "out").exists() and not (tmp_path / ".ubunye").exists()


def test_secret_references_elsewhere_are_left_as_written(tmp_path: Path) -> None:
    # 0.8.0 resolved only the connectors' copies; a reference in params stays text, and a
    # "secret://" inside a longer value is not a reference
    config = CONFIG.replace("  outputs:", "  transform:\n    params: {token: 'secret://aws-sm/x'}\n  outputs:")
    task = make_task(tmp_path, config.replace('"{{ task_dir }}/orders.csv"', '"{{ task_dir }}/orders.csv#secret://x"'))
    loaded = load_config(task)
    assert loaded.params == {"token": "secret://aws-sm/x"}
    assert loaded.inputs["orders"].path.endswith("orders.csv#secret://x")


def test_plan_a_missing_local_input_is_a_problem_unless_an_earlier_task_writes_it(tmp_path: Path) -> None:
    first = make_task(tmp_path, name="first")
    second = make_task(tmp_path, CONFIG.replace('"{{ task_dir }}/orders.csv"', json.dumps(str(first / "out"))),
                       name="second")
    base = ["plan", "-d", str(tmp_path), "-u", "shop", "-p", "daily"]
    code, out, err = run_cli(*base, "-t", "second")
    assert code == 1
    assert f"  problem: input 'orders': {first / 'out'} is missing (and no earlier task in this plan writes it)" \
        in out.splitlines()
    assert err.strip() == "Plan would fail: 1 problem(s)."
    code, out, err = run_cli(*base, "-t", "first", "-t", "second")
    assert code == 0, out + err
    assert "problem" not in out
    assert not (first / "out").exists() and not (second / "out").exists()  # nothing ran


def test_plan_prints_a_secret_reference_masked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    where = tmp_path / "private-drop.csv"
    where.write_text("id,amount\n1,10\n")
    monkeypatch.setenv("UBUNYE_T080_PLAN", str(where))
    secret_task(tmp_path, "secret://env/UBUNYE_T080_PLAN")
    code, out, err = run_cli("plan", "-d", str(tmp_path), *TASK_ARGS)
    assert code == 0, out + err
    assert "  - orders: csv ***" in out.splitlines()
    assert "private-drop" not in out + err


@pytest.mark.parametrize(
    "verb, args, says",
    [
        ("run", ["-u", "shop", "-p", "nope", "-t", "totals"], "no package folder"),
        ("run", ["-u", "shop", "-p", "daily", "-t", "nope"], "no task folder"),
        ("run", ["-u", "shop", "-p", "daily"], "no task to run: give -t TASK or --all"),
        ("validate", ["-u", "shop", "-p", "daily"], "no task to check: give -t TASK or --all"),
        ("validate", ["-u", "shop", "-p", "daily", "--all", "-t", "totals"], "give -t TASK or --all, not both"),
    ],
)
def test_usage_errors_are_one_line(tmp_path: Path, verb: str, args: list[str], says: str) -> None:
    make_task(tmp_path)
    code, out, err = run_cli(verb, "-d", str(tmp_path), *args)
    assert code == 2 and out == ""
    assert says in one_error_line(err)
