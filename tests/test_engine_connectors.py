"""ubunye-engine 0.8.0 connectors and ENGINE keys: mappings onto IOSpec, refusals, pandas runs,
and a jdbc password that never reaches a record or the run's output."""
from __future__ import annotations

import json
import logging
import sqlite3
import warnings
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ubunye import run_task
from ubunye.engine.backends.base import ReadResult
from ubunye.engine.backends.pandas_backend import PandasBackend, arrow_to_pandas
from ubunye.engine.config import load_config
from ubunye.engine.connectors import jdbc_errors, qualify
from ubunye.engine.errors import ConfigDeprecationWarning, ConfigError, IOSpecError

PASSWORD = "s3cr3t-Pa55word"


def write(tmp_path: Path, text: str, code: str = "") -> Path:
    task = tmp_path / "uc" / "shop" / "orders" / "clean"
    task.mkdir(parents=True, exist_ok=True)
    (task / "config.yaml").write_text(text, encoding="utf-8")
    if code:
        (task / "transformations.py").write_text(code, encoding="utf-8")
    return task


def config(inputs: str, outputs: str = "o: {format: s3, path: /out/o}", engine: str = "") -> str:
    return f"{engine}\nCONFIG:\n  inputs:\n{inputs}\n  outputs:\n    {outputs}\n"


ENGINE = """
ENGINE:
  catalog: main
  schema_name: sales
  profiles:
    DEV: {}
    PROD: {catalog: prod_cat, spark_conf: {spark.sql.shuffle.partitions: "8"}}
    TEST: {schema_name: qa}
"""


# --- table names ------------------------------------------------------------
@pytest.mark.parametrize("name, catalog, schema, expected", [
    ("t", "c", "s", "c.s.t"),
    ("x.t", "c", "s", "c.x.t"),
    ("k.x.t", "c", "s", "k.x.t"),
    ("t", None, "s", "s.t"),
    ("x.t", None, "s", "x.t"),
    ("t", "c", None, "c.default.t"),
    ("t", None, None, "t"),
    ("`a.b`", "c", "s", "`a.b`"),
])
def test_qualify_follows_use_catalog_and_use_schema(name: str, catalog: Any, schema: Any, expected: str) -> None:
    assert qualify(name, catalog, schema) == expected


@pytest.mark.parametrize("mode, table", [("DEV", "main.sales.orders"), ("PROD", "prod_cat.sales.orders"),
                                         ("TEST", "main.qa.orders")])
def test_unity_table_is_qualified_by_engine_and_the_modes_profile(tmp_path: Path, mode: str, table: str) -> None:
    task = write(tmp_path, config("    orders: {format: unity, table: orders}", engine=ENGINE))
    cfg = load_config(task, mode=mode)
    spec = cfg.inputs["orders"]
    assert (spec.format, spec.table, spec.location, spec.path) == ("table", table, table, None)
    assert cfg.engine.spark_conf == ({"spark.sql.shuffle.partitions": "8"} if mode == "PROD" else {})


def test_hive_db_and_tbl_name_and_a_two_part_name(tmp_path: Path) -> None:
    task = write(tmp_path, config("    a: {format: hive, db_name: raw, tbl_name: claims}\n"
                                  "    b: {format: unity, table: raw.claims, version: 2}\n"
                                  "    c: {format: table, table: claims}",
                                  outputs="o: {format: hive, table: out_t, partitionBy: [day], mode: append}",
                                  engine=ENGINE))
    cfg = load_config(task)
    assert cfg.inputs["a"].table == "main.raw.claims" and cfg.inputs["a"].format == "table"
    assert (cfg.inputs["b"].table, cfg.inputs["b"].version) == ("main.raw.claims", 2)
    assert cfg.inputs["c"].table == "main.sales.claims"  # this project's own table format too
    out = cfg.outputs["o"]
    assert (out.table, out.partition_by, out.mode, dict(out.options)) == ("main.sales.out_t", ("day",), "append", {})


def test_unity_output_is_delta_unless_file_format_says_otherwise(tmp_path: Path) -> None:
    task = write(tmp_path, config("    a: {format: s3, path: /in}",
                                  outputs="o: {format: unity, table: c.s.t, options: {overwriteSchema: 'true'}}\n"
                                          "    p: {format: unity, table: c.s.p, file_format: parquet}"))
    cfg = load_config(task)
    assert dict(cfg.outputs["o"].options) == {"using": "delta", "overwriteSchema": "true"}
    assert dict(cfg.outputs["p"].options) == {"using": "parquet"}
    assert cfg.outputs["p"].mode == "append"  # 0.8.0's unity writer appends by default


def test_unity_comment_and_tblproperties_are_table_settings_not_writer_options(tmp_path: Path) -> None:
    task = write(tmp_path, config("    a: {format: s3, path: /in}", outputs=(
        "u: {format: unity, table: c.s.t, options: {overwriteSchema: 'true', comment: \"Survival by class\","
        " tblproperties: {quality: bronze, delta.appendOnly: false}}}\n"
        "    h: {format: hive, table: h, options: {comment: c}}\n"
        "    p: {format: s3, path: /o}")))
    out = load_config(task).outputs
    u = out["u"]
    assert dict(u.options) == {"using": "delta", "overwriteSchema": "true"}
    assert (u.table_comment, dict(u.table_properties)) == ("Survival by class",
                                                           {"quality": "bronze", "delta.appendOnly": "false"})
    assert (dict(out["h"].options), out["h"].table_comment) == ({}, "c")
    assert (out["p"].table_comment, dict(out["p"].table_properties)) == (None, {})
    bad = write(tmp_path / "bad", config("    a: {format: s3, path: /in}",
                                         outputs="u: {format: unity, table: t, options: {tblproperties: [a]}}"))
    with pytest.raises(ConfigError) as err:
        load_config(bad)
    assert err.value.key == "CONFIG.outputs.u.options.tblproperties"


def test_default_write_modes_follow_080_writers(tmp_path: Path) -> None:
    task = write(tmp_path, config("    a: {format: s3, path: /in}",
                                  outputs="u: {format: unity, table: c.s.t, mode: overwrite}\n"
                                          "    j: {format: jdbc, url: 'jdbc:x', table: t}\n"
                                          "    s: {format: s3, path: /o}\n"
                                          "    h: {format: hive, table: h}"))
    modes = {name: spec.mode for name, spec in load_config(task).outputs.items()}
    assert modes == {"u": "overwrite", "j": "append", "s": "overwrite", "h": "overwrite"}


def test_delta_by_path_or_by_table(tmp_path: Path) -> None:
    task = write(tmp_path, config("    p: {format: delta, path: /lake/p, version: 3}\n"
                                  "    t: {format: delta, table: lake_t, version: 1}",
                                  outputs="o: {format: delta, table: out_t, partitionBy: [d]}", engine=ENGINE))
    cfg = load_config(task)
    p, t, o = cfg.inputs["p"], cfg.inputs["t"], cfg.outputs["o"]
    assert (p.format, p.path, p.version, p.location) == ("delta", "/lake/p", 3, "/lake/p")
    assert (t.format, t.table, t.version) == ("table", "main.sales.lake_t", 1)
    assert (o.format, o.table, dict(o.options), o.partition_by) == ("table", "main.sales.out_t", {"using": "delta"},
                                                                    ("d",))


def test_s3_takes_file_format_options_schema_and_partition_by(tmp_path: Path) -> None:
    task = write(tmp_path, config(
        "    a: {format: s3, path: 's3a://bucket/in/', file_format: csv, options: {header: 'true', mode: FAILFAST},"
        " schema: 'id INT, name STRING'}\n"
        "    b: {format: s3, path: 'file:///data/b'}",
        outputs="o: {format: s3, path: /out/o, file_format: json, partitionBy: [day, hour], mode: overwrite}"))
    cfg = load_config(task)
    a, b, o = cfg.inputs["a"], cfg.inputs["b"], cfg.outputs["o"]
    assert (a.format, a.path, a.schema) == ("csv", "s3a://bucket/in/", "id INT, name STRING")
    assert a.reader_options() == {"header": "true", "mode": "FAILFAST", "inferschema": "true"}
    assert (b.format, b.location) == ("parquet", "file:///data/b")  # parquet: 0.8.0's default file_format
    assert (o.format, o.partition_by, o.mode) == ("json", ("day", "hour"), "overwrite")


def test_jdbc_keeps_the_password_out_of_options_location_and_repr(tmp_path: Path) -> None:
    task = write(tmp_path, config(
        f"    a: {{format: jdbc, url: 'jdbc:postgresql://db:5432/ins', table: policy, user: etl, "
        f"password: '{{{{ env.UBUNYE_TEST_PW }}}}', driver: org.postgresql.Driver, fetchsize: 1000}}\n"
        f"    b: {{format: jdbc, url: 'jdbc:postgresql://db/ins?user=etl&password={PASSWORD}', sql: 'SELECT 1 AS x'}}",
        outputs=f"o: {{format: jdbc, url: 'jdbc:h2:mem:x', table: out_t, password: {PASSWORD}, mode: append}}"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("UBUNYE_TEST_PW", PASSWORD)
        cfg = load_config(task)
    a, b, o = cfg.inputs["a"], cfg.inputs["b"], cfg.outputs["o"]
    assert a.format == "jdbc" and a.connection == {"url": "jdbc:postgresql://db:5432/ins", "dbtable": "policy",
                                                   "user": "etl", "password": PASSWORD,
                                                   "driver": "org.postgresql.Driver"}
    assert a.reader_options() == {"fetchsize": "1000"}
    assert a.location == "jdbc:postgresql://db:5432/ins table policy"
    assert b.connection["query"] == "SELECT 1 AS x" and b.table is None
    assert b.location == "jdbc:postgresql://db/ins?user=etl&password=*** sql SELECT 1 AS x"
    assert (o.location, o.mode, o.connection["password"]) == ("jdbc:h2:mem:x table out_t", "append", PASSWORD)
    for spec in (a, b, o):
        assert PASSWORD not in repr(spec) and PASSWORD not in spec.location
        assert PASSWORD not in json.dumps(spec.reader_options())


def test_jdbc_errors_mask_the_password_and_name_the_step(tmp_path: Path) -> None:
    task = write(tmp_path, config(f"    a: {{format: jdbc, url: 'jdbc:x:db', table: t, password: {PASSWORD}}}"))
    spec = load_config(task).inputs["a"]
    with pytest.raises(IOSpecError) as err:
        with jdbc_errors(spec):
            raise RuntimeError(f"login failed for password {PASSWORD}\n\tat org.driver.Login(Login.java:1)")
    assert str(err.value) == "input 'a' (jdbc:x:db table t): RuntimeError: login failed for password ***"
    assert err.value.__cause__ is None and err.value.__suppress_context__


def test_transform_type_of_080_warns_once_naming_file_and_key(tmp_path: Path) -> None:
    task = write(tmp_path, config("    a: {format: s3, path: /in}") + "  transform: {type: noop, params: {k: 1}}\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cfg = load_config(task)
    assert cfg.params == {"k": 1}
    found = [str(w.message) for w in caught if issubclass(w.category, ConfigDeprecationWarning)]
    assert found == [f"{task / 'config.yaml'}: CONFIG.transform.type 'noop' is ignored: the task's "
                     "transformations.py runs"]


# --- refusals ---------------------------------------------------------------
@pytest.mark.parametrize("inputs, outputs, key, expected", [
    ("a: {format: rest_api, url: 'https://x'}", None, "CONFIG.inputs.a.format", "connector 'rest_api'"),
    ("a: {format: binary, path: /x}", None, "CONFIG.inputs.a.format", "connector 'binary'"),
    ("a: {format: my_plugin, path: /x}", None, "CONFIG.inputs.a.format", "got 'my_plugin'"),
    (None, "o: {format: rest_api, url: 'https://x'}", "CONFIG.outputs.o.format", "connector 'rest_api'"),
    ("a: {format: unity, sql: 'SELECT 1'}", None, "CONFIG.inputs.a.sql", "SQL query is not a location"),
    ("a: {format: hive, db_name: raw}", None, "CONFIG.inputs.a.tbl_name", "needs table, or db_name and tbl_name"),
    ("a: {format: unity, table: t, db_name: d, tbl_name: t}", None, "CONFIG.inputs.a.table", "not both"),
    ("a: {format: unity, table: t, partitionBy: [d]}", None, "CONFIG.inputs.a.partitionBy", "only outputs"),
    ("a: {format: unity, table: t, file_format: delta}", None, "CONFIG.inputs.a.file_format", "only outputs"),
    ("a: {format: unity, table: t, catalog: c}", None, "CONFIG.inputs.a.catalog", "unknown key for format 'unity'"),
    (None, "o: {format: unity, table: t, mode: merge}", "CONFIG.outputs.o.mode", "'merge'"),
    (None, "o: {format: unity, table: t, optimize: {enabled: true}}", "CONFIG.outputs.o.optimize", "OPTIMIZE"),
    (None, "o: {format: unity, table: t, options: {using: parquet}}", "CONFIG.outputs.o.options.using",
     "file_format"),
    ("a: {format: delta, path: /x, table: t}", None, "CONFIG.inputs.a.path", "exactly one of path or table"),
    ("a: {format: s3, file_format: csv}", None, "CONFIG.inputs.a.path", "format 's3' needs a path"),
    ("a: {format: s3, path: /x, file_format: orc}", None, "CONFIG.inputs.a.file_format", "got 'orc'"),
    (None, "o: {format: s3, path: /x, schema: 'a INT'}", "CONFIG.outputs.o.schema", "only inputs"),
    (None, "o: {format: s3, path: /x, partitionBy: [a], partition_by: [a]}", "CONFIG.outputs.o.partitionBy",
     "not both"),
    ("a: {format: jdbc, table: t}", None, "CONFIG.inputs.a.url", "needs a JDBC url"),
    ("a: {format: jdbc, url: 'jdbc:x', table: t, sql: 'SELECT 1'}", None, "CONFIG.inputs.a.table",
     "exactly one of table or sql"),
    (None, "o: {format: jdbc, url: 'jdbc:x', sql: 'SELECT 1'}", "CONFIG.outputs.o.sql", "give table, not sql"),
    ("a: {format: jdbc, url: 'jdbc:x', table: t, options: {password: p}}", None,
     "CONFIG.inputs.a.options.password", "a key of its own"),
    ("a: {format: jdbc, url: 'jdbc:x', table: t, fetchsize: 5, options: {fetchSize: 9}}", None,
     "CONFIG.inputs.a.fetchsize", "give fetchsize once"),
])
def test_080_refusals_are_one_line_naming_file_and_key(tmp_path: Path, inputs: Any, outputs: Any, key: str,
                                                      expected: str) -> None:
    text = config("    " + (inputs or "i: {format: s3, path: /in}"), outputs=outputs or "o: {format: s3, path: /o}")
    task = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(task)
    message = str(err.value)
    assert err.value.key == key and "\n" not in message
    assert message.startswith(f"{task / 'config.yaml'}: {key}: ") and expected in message


def test_engine_catalog_must_be_a_name(tmp_path: Path) -> None:
    task = write(tmp_path, "ENGINE: {catalog: [a]}\n" + config("    a: {format: s3, path: /in}"))
    with pytest.raises(ConfigError) as err:
        load_config(task)
    assert err.value.key == "ENGINE.catalog"
    task = write(tmp_path, "ENGINE: {profiles: {DEV: {catalogue: x}}}\n" + config("    a: {format: s3, path: /in}"))
    with pytest.raises(ConfigError) as err:
        load_config(task)
    assert err.value.key == "ENGINE.profiles.DEV.catalogue"


# --- pandas runs --------------------------------------------------------------
PEOPLE = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "day": pa.array(["a", "b", "a"]),
                   "score": pa.array([1.5, None, 3.0])})

RUN_CONFIG = """
MODEL: etl
VERSION: "1.0.0"
ENGINE:
  spark_conf: {spark.sql.shuffle.partitions: "4"}
  profiles:
    DEV: {spark_conf: {spark.sql.shuffle.partitions: "2"}}
CONFIG:
  inputs:
    people:
      format: s3
      path: "file://{{ task_dir }}/../../../data/people.csv"
      file_format: csv
      options: {header: "true", inferSchema: "true", mode: FAILFAST}
  transform: {type: noop}
  outputs:
    by_day:
      format: s3
      path: "{{ task_dir }}/../../../out/mode={{ mode }}"
      file_format: parquet
      mode: overwrite
      partitionBy: [day]
"""

RUN_CODE = """
from ubunye import Task


class Keep(Task):
    def transform(self, sources):
        return {"by_day": sources["people"]}
"""


def test_pandas_runs_an_s3_csv_task_with_partition_by(tmp_path: Path) -> None:
    root = tmp_path / "uc"
    (root / "data").mkdir(parents=True)
    (root / "data" / "people.csv").write_text("id,day,score\n1,a,1.5\n2,b,\n3,a,3.0\n", encoding="utf-8")
    task = write(tmp_path, RUN_CONFIG, RUN_CODE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConfigDeprecationWarning)
        result = run_task(task, backend="pandas", lineage=True)
    assert result.status == "success"
    out = root / "out" / "mode=DEV"
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["day=a", "day=b"]
    got = pq.read_table(out / "day=a").to_pydict()
    assert (got["id"], got["score"]) == ([1, 3], [1.5, 3.0])
    record = json.loads(Path(result.record_path).read_text())
    steps = {s["name"]: s for s in [*record["inputs"], *record["outputs"]]}
    assert steps["people"]["format"] == "csv"
    assert steps["people"]["location"] == f"file://{task}/../../../data/people.csv"
    assert steps["by_day"]["location"] == f"{task}/../../../out/mode=DEV"
    assert steps["people"]["row_count"] == 3 and steps["by_day"]["row_count"] == 3


def test_pandas_refuses_jdbc_before_anything_runs(tmp_path: Path) -> None:
    root = tmp_path / "uc"
    code = RUN_CODE.replace('return {"by_day"', 'open(__file__ + ".ran", "w").close(); return {"by_day"')
    task = write(tmp_path, RUN_CONFIG.replace("file_format: csv\n", "file_format: csv\n    db:\n      format: jdbc\n"
                                              "      url: 'jdbc:sqlite:/x.db'\n      table: t\n"
                                              f"      password: {PASSWORD}\n"), code)
    with pytest.raises(IOSpecError) as err, warnings.catch_warnings():
        warnings.simplefilter("ignore", ConfigDeprecationWarning)
        run_task(task, backend="pandas", lineage=True)
    assert str(err.value) == ("input 'db': format 'jdbc' needs the Spark backend (--backend spark); the pandas "
                              "backend reads and writes files only")
    assert not (root / "out").exists() and not (task / "transformations.py.ran").exists()
    assert not (root / ".ubunye").exists()


# --- a jdbc read end to end (sqlite through a test backend), password kept out ----
class SqliteJdbcBackend(PandasBackend):
    """The pandas backend, plus jdbc reads from sqlite (``jdbc:sqlite:<file>``) that check the password:
    stands in for Spark's JDBC source so the engine's recording can be checked without a JVM."""

    formats = (*PandasBackend.formats, "jdbc")

    def check_spec(self, spec: Any) -> None:
        if spec.format != "jdbc":
            super().check_spec(spec)

    def read(self, spec: Any) -> ReadResult:
        if spec.format != "jdbc":
            return super().read(spec)
        logging.getLogger("ubunye.engine").warning("reading %r with %r", spec, spec.reader_options())
        with jdbc_errors(spec):
            if spec.connection.get("password") != PASSWORD:
                raise PermissionError(f"bad password {spec.connection.get('password')}")
            con = sqlite3.connect(spec.connection["url"].removeprefix("jdbc:sqlite:"))
            try:
                rows = con.execute(f"SELECT id, name FROM {spec.connection['dbtable']}").fetchall()
            finally:
                con.close()
        table = pa.table({"id": pa.array([r[0] for r in rows], pa.int64()), "name": [r[1] for r in rows]})
        return ReadResult(arrow_to_pandas(table))


JDBC_CONFIG = """
CONFIG:
  inputs:
    people: {format: jdbc, url: "jdbc:sqlite:{{ task_dir }}/db.sqlite", table: people, user: etl,
             password: "{{ env.UBUNYE_TEST_JDBC_PASSWORD }}", fetchsize: 100}
  outputs:
    copy: {format: s3, path: "{{ task_dir }}/out", file_format: parquet}
"""

COPY_CODE = """
from ubunye import Task


class Copy(Task):
    def transform(self, sources):
        return {"copy": sources["people"]}
"""


def run_with(task: Path, password: str) -> Any:
    from ubunye.engine.execution import TaskExecution
    from ubunye.engine.runner import execute

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("UBUNYE_TEST_JDBC_PASSWORD", password)
        execution = TaskExecution(task, backend_obj=SqliteJdbcBackend(), lineage=True)
    return execute(execution)


@pytest.mark.parametrize("password", [PASSWORD, PASSWORD + "-wrong"])
def test_a_jdbc_password_reaches_no_record_and_no_log(tmp_path: Path, password: str,
                                                      caplog: pytest.LogCaptureFixture,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    task = write(tmp_path, JDBC_CONFIG, COPY_CODE)
    con = sqlite3.connect(task / "db.sqlite")
    con.execute("CREATE TABLE people (id INTEGER, name TEXT)")
    con.executemany("INSERT INTO people VALUES (?, ?)", [(1, "Thabo"), (2, "Anna")])
    con.commit()
    con.close()
    caplog.set_level(logging.DEBUG)
    result = run_with(task, password)
    record_text = Path(result.record_path).read_text(encoding="utf-8")
    record = json.loads(record_text)
    step = record["inputs"][0]
    assert step["format"] == "jdbc" and step["location"] == f"jdbc:sqlite:{task}/db.sqlite table people"
    assert step["options"] == {"fetchsize": "100"}
    if password == PASSWORD:
        assert result.status == "success" and step["row_count"] == 2
        assert pq.read_table(task / "out").to_pydict() == {"id": [1, 2], "name": ["Thabo", "Anna"]}
    else:
        assert result.status == "error"
        assert record["error"].endswith(f"PermissionError: bad password {'*' * 3}")
        assert password not in result.reason()
    logs = caplog.text + "".join(capsys.readouterr())
    assert "reading" in caplog.text  # the backend did log the spec
    assert PASSWORD not in record_text and PASSWORD not in logs
