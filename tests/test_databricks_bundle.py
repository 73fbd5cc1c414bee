"""examples/databricks/databricks.yml, the Databricks Asset Bundle example, against what can be
checked here (it is not run on a workspace: none is reachable). No JSON schema of the bundle format
ships in a package this project can install (databricks-bundles 1.22.1 carries typed models, no
schema; the schema comes from the Databricks CLI, a binary), so its structure is checked against the
keys the bundle format documents for what it uses, and everything it names of this project against
the project: the wheel's file name and entry point, the init script's name, the runtime, and the
`ubunye run` arguments, parsed by the CLI itself."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import click
import yaml

from ubunye.cli.app import cli
from ubunye.cli.commands.spark_init_script import SCRIPT_NAME
from ubunye.spark.databricks import runtimes

REPO = Path(__file__).resolve().parents[1]
BUNDLE = REPO / "examples" / "databricks" / "databricks.yml"

# The keys the bundle format documents at each level this example uses (Databricks Asset Bundles
# configuration reference; jobs and clusters as in the Jobs API 2.1 it mirrors).
TOP = {"bundle", "include", "variables", "workspace", "artifacts", "resources", "sync", "targets",
       "permissions", "run_as", "presets", "experimental", "scripts", "python"}
VARIABLE = {"description", "default", "type", "lookup"}
JOB = {"name", "tasks", "job_clusters", "max_concurrent_runs", "timeout_seconds", "schedule", "trigger",
       "email_notifications", "tags", "parameters", "environments", "queue", "permissions", "description"}
TASK = {"task_key", "job_cluster_key", "existing_cluster_id", "libraries", "python_wheel_task", "depends_on",
        "timeout_seconds", "max_retries", "environment_key", "description"}
CLUSTER = {"spark_version", "node_type_id", "num_workers", "autoscale", "data_security_mode", "init_scripts",
           "spark_conf", "spark_env_vars", "custom_tags", "single_user_name", "runtime_engine"}
WHEEL_TASK = {"package_name", "entry_point", "parameters", "named_parameters"}
TARGET = {"mode", "default", "workspace", "variables", "resources", "presets"}


def bundle() -> dict[str, Any]:
    return yaml.safe_load(BUNDLE.read_text(encoding="utf-8"))


def only(keys: dict[str, Any], allowed: set[str], where: str) -> None:
    assert set(keys) <= allowed, f"{where}: keys the bundle format does not document: {set(keys) - allowed}"


def test_bundle_keys_are_the_documented_ones() -> None:
    doc = bundle()
    only(doc, TOP, "top level")
    assert doc["bundle"]["name"]
    for name, var in doc["variables"].items():
        only(var, VARIABLE, f"variables.{name}")
    jobs = doc["resources"]["jobs"]
    assert jobs
    for name, job in jobs.items():
        only(job, JOB, f"jobs.{name}")
        keys = {c["job_cluster_key"] for c in job["job_clusters"]}
        for c in job["job_clusters"]:
            only(c["new_cluster"], CLUSTER, f"jobs.{name}.job_clusters")
        for task in job["tasks"]:
            only(task, TASK, f"jobs.{name}.tasks")
            only(task["python_wheel_task"], WHEEL_TASK, f"jobs.{name}.tasks.python_wheel_task")
            assert task["job_cluster_key"] in keys
    for name, target in doc["targets"].items():
        only(target, TARGET, f"targets.{name}")


def test_every_variable_used_is_defined() -> None:
    text = BUNDLE.read_text(encoding="utf-8")
    used = set(re.findall(r"\$\{var\.(\w+)\}", text))
    assert used and used <= set(bundle()["variables"]), used - set(bundle()["variables"])


def test_bundle_names_this_projects_wheel_jar_script_and_runtime() -> None:
    doc = bundle()
    version = (REPO / "VERSION").read_text(encoding="utf-8").strip()
    variables = {k: v["default"] for k, v in doc["variables"].items()}
    assert variables["wheel"] == f"ubunye-{version}-py3-none-any.whl"  # what scripts/wheel builds
    for key in ("tools", "records", "usecases"):
        assert variables[key].startswith("/Volumes/"), key  # the wheel, the jars, the records: volumes
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    known = {f"{r.runtime.split()[0]}.x-scala{s}" for r in runtimes() for s in r.scala}
    (job,) = doc["resources"]["jobs"].values()
    cluster = job["job_clusters"][0]["new_cluster"]
    assert cluster["spark_version"] in known
    assert cluster["init_scripts"] == [{"volumes": {"destination": "${var.tools}/" + SCRIPT_NAME}}]
    assert cluster["spark_conf"]["spark.sql.extensions"] == "io.ubunye.spark.UbunyeSparkExtensions"
    (task,) = job["tasks"]
    assert task["libraries"] == [{"whl": "${var.tools}/${var.wheel}"}]
    wheel_task = task["python_wheel_task"]
    assert wheel_task["package_name"] == "ubunye" and wheel_task["entry_point"] in scripts


def test_the_job_arguments_are_a_valid_ubunye_run_with_records_on_the_volume() -> None:
    (job,) = bundle()["resources"]["jobs"].values()
    params = job["tasks"][0]["python_wheel_task"]["parameters"]
    assert params[0] == "run"
    root = click.Context(cli)
    command = cli.get_command(root, "run")
    assert command is not None
    ctx = command.make_context("run", list(params[1:]), parent=root)  # the CLI's own parsing
    assert ctx.params["lineage_dir"] == "${var.records}"
    assert ctx.params["backend"] == "spark"
    assert "NOT RUN ON A WORKSPACE" in BUNDLE.read_text(encoding="utf-8")
