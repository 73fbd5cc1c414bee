"""Task config: Jinja rendering, validation errors naming file and key, old monitors."""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from ubunye.engine.config import load_config
from ubunye.engine.errors import ConfigDeprecationWarning, ConfigError

GOOD = """
MODEL: etl
VERSION: "1.2"
ENGINE:
  time_zone: Africa/Johannesburg
  spark_conf: {spark.sql.shuffle.partitions: 3}
  profiles:
    PROD: {spark_conf: {spark.sql.shuffle.partitions: 50}}
CONFIG:
  inputs:
    people: {format: csv, path: "{{ task_dir }}/data/{{ dt }}.csv", options: {header: true}}
    hist: {format: delta, path: /lake/hist, version: 3}
  outputs:
    adults: {format: parquet, path: "/out/{{ mode | lower }}/{{ region }}", mode: append}
    tbl: {format: table, table: "db.{{ env.UBUNYE_TEST_DB }}"}
  transform: {params: {min_age: 18}}
  expectations:
    adults:
      - {kind: between, column: age, min: "{{ min_age }}", max: 130}
      - {kind: unique, columns: [id, day], severity: warn}
"""


def write(tmp_path: Path, text: str) -> Path:
    task = tmp_path / "uc" / "shop" / "orders" / "clean"
    task.mkdir(parents=True, exist_ok=True)
    (task / "config.yaml").write_text(text, encoding="utf-8")
    return task


def test_renders_every_string_with_run_variables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UBUNYE_TEST_DB", "gold")
    task = write(tmp_path, GOOD)
    cfg = load_config(task, mode="PROD", dt="2024-05-01", variables={"region": "kzn", "min_age": "21"})
    assert cfg.inputs["people"].path == f"{task}/data/2024-05-01.csv"
    assert cfg.inputs["people"].options == {"header": True}
    assert cfg.inputs["hist"].version == 3
    assert cfg.outputs["adults"].path == "/out/prod/kzn"
    assert cfg.outputs["adults"].mode == "append"
    assert cfg.outputs["tbl"].table == "db.gold" and cfg.outputs["tbl"].location == "db.gold"
    assert cfg.outputs["tbl"].mode == "overwrite"
    assert cfg.params == {"min_age": 18}
    between, unique = cfg.expectations["adults"]
    assert between.params == {"min": 21, "max": 130} and between.name == "age_between"
    assert unique.key_columns == ("id", "day") and unique.severity == "warn"
    assert cfg.engine.time_zone == "Africa/Johannesburg"
    assert cfg.engine.spark_conf == {"spark.sql.shuffle.partitions": "50"}
    assert (cfg.model, cfg.version) == ("etl", "1.2")


def test_undefined_template_variable_names_file_key_and_name(tmp_path: Path) -> None:
    task = write(tmp_path, GOOD)
    with pytest.raises(ConfigError) as err:
        load_config(task, dt="2024-05-01", variables={"min_age": 1})
    msg = str(err.value)
    assert msg.startswith(f"{task / 'config.yaml'}: CONFIG.outputs.adults.path: ")
    assert "'region' is undefined" in msg


@pytest.mark.parametrize(
    "body, key, expected",
    [
        ("outputs: {a: {format: xls, path: /x}}", "CONFIG.outputs.a.format",
         "expected one of parquet, csv, json, delta, table; got 'xls'"),
        ("outputs: {a: {format: parquet}}", "CONFIG.outputs.a.path", "missing"),
        ("outputs: {a: {format: parquet, path: /x, mode: upsert}}", "CONFIG.outputs.a.mode",
         "expected one of overwrite, append, ignore, errorifexists; got 'upsert'"),
        ("outputs: {a: {format: table, path: /x}}", "CONFIG.outputs.a.table", "missing"),
        ("outputs: {a: {format: parquet, path: /x, colour: red}}", "CONFIG.outputs.a.colour", "unknown key"),
        ("outputs: {}", "CONFIG.outputs", "at least one output"),
        ("outputs: {a: {format: parquet, path: /x}}\n  expectations: {b: []}", "CONFIG.expectations.b",
         "input or output"),
        ("outputs: {a: {format: parquet, path: /x}}\n  expectations: {a: [{kind: not_null}]}",
         "CONFIG.expectations.a[0].column", "not_null needs a column"),
        ("outputs: {a: {format: parquet, path: /x}}\n  expectations: {a: [{kind: between, column: x}]}",
         "CONFIG.expectations.a[0]", "needs min, max or both"),
        ("outputs: {a: {format: parquet, path: /x}}\n  expectations: {a: [{kind: nope}]}",
         "CONFIG.expectations.a[0].kind", "expected one of not_null, unique"),
        ("outputs: {a: {format: parquet, path: /x}}\n  expectations: {a: [{kind: row_count, min: 1, severity: loud}]}",
         "CONFIG.expectations.a[0].severity", "expected one of fail, warn"),
        ("outputs: {a: {format: parquet, path: /x}}\n  expectations: {a: [{kind: matches, column: c, pattern: '('}]}",
         "CONFIG.expectations.a[0].pattern", "not a valid regular expression"),
        ("outputs: {a: {format: parquet, path: /x}}\n  monitors: [{type: audit}]", "CONFIG.monitors[0].type",
         "expected 'lineage'"),
        ("inputs: {a: {format: csv, path: /x, version: 2}}\n  outputs: {b: {format: parquet, path: /y}}",
         "CONFIG.inputs.a.version", "only Delta inputs"),
    ],
)
def test_invalid_config_names_file_key_and_expectation(tmp_path: Path, body: str, key: str, expected: str) -> None:
    task = write(tmp_path, "CONFIG:\n  " + body + "\n")
    with pytest.raises(ConfigError) as err:
        load_config(task)
    assert err.value.key == key
    assert str(err.value).startswith(f"{task / 'config.yaml'}: {key}: ")
    assert expected in str(err.value)


def test_missing_file_and_bad_yaml_name_the_file(tmp_path: Path) -> None:
    task = tmp_path / "a" / "b" / "c"
    task.mkdir(parents=True)
    with pytest.raises(ConfigError, match="config.yaml: no such file"):
        load_config(task)
    (task / "config.yaml").write_text("CONFIG: [unclosed\n")
    with pytest.raises(ConfigError, match="config.yaml: not valid YAML"):
        load_config(task)
    (task / "config.yaml").write_text("OUTPUTS: {}\n")
    with pytest.raises(ConfigError, match="OUTPUTS: unknown key"):
        load_config(task)


def test_old_monitors_turn_lineage_on_and_sample_fraction_warns_once(tmp_path: Path) -> None:
    task = write(tmp_path, """
CONFIG:
  outputs: {a: {format: parquet, path: /x}}
  monitors:
    - type: lineage
      params: {hash_inputs: false, sample_fraction: 0.01}
""")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cfg = load_config(task)
    assert cfg.lineage is not None and cfg.lineage.hash_inputs is False
    deprecations = [w for w in caught if issubclass(w.category, ConfigDeprecationWarning)]
    assert len(deprecations) == 1
    assert "sample_fraction is ignored" in str(deprecations[0].message)
    assert "\n" not in str(deprecations[0].message)


def test_no_monitors_means_no_lineage_settings(tmp_path: Path) -> None:
    task = write(tmp_path, "CONFIG:\n  outputs: {a: {format: json, path: /x}}\n")
    assert load_config(task).lineage is None


def _profiles_config(tmp_path: Path, extra: str = "") -> Path:
    task = tmp_path / "t"
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(
        "ENGINE:\n  profiles:\n    DEV: {spark_conf: {a: '1'}}\n    PROD: {spark_conf: {a: '2'}}\n"
        "CONFIG:\n  inputs: {i: {format: csv, path: in}}\n  outputs: {o: {format: parquet, path: out}}\n" + extra)
    return task


def test_a_mode_with_no_profile_is_refused_when_profiles_exist(tmp_path: Path) -> None:
    """As ubunye-engine 0.8.0: profiles defined and -m naming none of them stops the run
    (a typo in --mode would otherwise run with the base settings, silently)."""
    task = _profiles_config(tmp_path)
    assert load_config(task, mode="PROD").engine.spark_conf == {"a": "2"}
    with pytest.raises(ConfigError, match=r"ENGINE\.profiles: no profile 'PRD' for the run mode "
                                          r"\(-m/--mode PRD\); expected one of DEV, PROD$"):
        load_config(task, mode="PRD")


def test_orchestration_of_080_is_checked_and_not_used(tmp_path: Path) -> None:
    task = _profiles_config(tmp_path, "ORCHESTRATION: {type: databricks, schedule: '0 6 * * *', retries: 1}\n")
    # a relative path is the usecase folder's (<usecase_dir>/<usecase>/<package>/<task>)
    assert load_config(task).outputs["o"].path == str(task.parent.parent.parent / "out")
    task = _profiles_config(tmp_path / "b", "ORCHESTRATION: {type: cron}\n")
    with pytest.raises(ConfigError, match=r"ORCHESTRATION\.type: expected one of airflow, databricks, prefect, "
                                          r"dagster; got 'cron'"):
        load_config(task)
    task = _profiles_config(tmp_path / "c", "ORCHESTRATION: {type: airflow, shedule: daily}\n")
    with pytest.raises(ConfigError, match=r"ORCHESTRATION\.shedule: unknown key"):
        load_config(task)
