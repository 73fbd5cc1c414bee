"""The packaged jar: ``jar_path``, ``configure``, ``install`` and version checks.

A jar built for another Spark or Scala line gives a message naming both
versions and the fallback still gives the spec's digest; checked end to end in
a separate driver process whose ``spark.jars`` holds the packaged jar with its
``BuildInfo`` rewritten to say it is for another line (Spark 3.5 / Scala 2.12, or
4.1 / 2.13 on pyspark 3.5): a jar of a neighbouring line as a user puts it there by
hand, which loads and, on Spark 4, registers its functions through the service loader.

A jar of another line never serves SQL: its functions, registered by the service loader,
fail with one line naming the jar to use (a driver process with the packaged 4.3 jar on a 4.1
session).

Run as a script (``python test_spark_jar.py --mismatch-driver JAR`` or ``--wrong-line-sql JAR``)
this file is that driver.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pyspark
import pytest

# A line other than the running one: 3.5 / Scala 2.12, or 4.1 / Scala 2.13 when running 3.5.
OTHER = ("4.1", "2.13") if pyspark.__version__.startswith("3.5") else ("3.5", "2.12")
OTHER_TEXT = f"Spark {OTHER[0]} / Scala {OTHER[1]}"


def fake_metadata(tmp: Path, spark_line: str, scala: str) -> Path:
    """A jars folder whose JSON says the packaged jar is for another Spark/Scala line."""
    from ubunye.spark.jar import jar_info

    real = jar_info()
    name = f"ubunye-spark_{spark_line}_{scala}-{real.version}"
    shutil.copy(real.path, tmp / f"{name}.jar")
    (tmp / f"{name}.json").write_text(json.dumps(
        {"jar": f"{name}.jar", "version": real.version, "spark": spark_line, "scala": scala,
         "extensions": real.extensions, "install": real.install}), encoding="utf-8")
    return tmp


def test_jar_path_is_the_built_jar_for_this_spark_line() -> None:
    import ubunye.spark
    from ubunye.spark.jar import jar_info, line_of

    info = jar_info()
    assert Path(ubunye.spark.jar_path()) == info.path and info.path.is_file()
    assert info.path.name == f"ubunye-spark_{info.spark}_{info.scala}-{info.version}.jar"
    assert line_of(info.spark) == line_of(pyspark.__version__)


def test_configure_adds_jar_and_extension_and_keeps_the_others() -> None:
    from pyspark.sql import SparkSession

    import ubunye.spark
    from ubunye.spark._compat import builder_options
    from ubunye.spark.jar import jar_info

    builder = SparkSession.builder.config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
    builder = builder.config("spark.jars", "/opt/other.jar")
    ubunye.spark.configure(ubunye.spark.configure(builder))  # twice: no duplicates
    options = builder_options(builder)
    assert options["spark.jars"] == f"/opt/other.jar,{ubunye.spark.jar_path()}"
    assert options["spark.sql.extensions"] == (
        f"io.delta.sql.DeltaSparkSessionExtension,{jar_info().extensions}")


def test_configure_leaves_out_a_jar_for_another_spark_line(tmp_path: Path) -> None:
    from pyspark.sql import SparkSession

    import ubunye.spark
    from ubunye.spark._compat import builder_options
    from ubunye.spark.jar import jar_info

    fake = jar_info(fake_metadata(tmp_path, *OTHER), spark=OTHER[0], scala=OTHER[1])
    builder = SparkSession.builder.config("spark.app.name", "x")
    with pytest.warns(ubunye.spark.JarMismatchWarning) as caught:
        ubunye.spark.configure(builder, jar=fake)
    message = str(caught[0].message)
    assert OTHER_TEXT in message and f"Spark {pyspark.__version__}" in message
    assert "spark.jars" not in builder_options(builder)
    assert "spark.sql.extensions" not in builder_options(builder)


def test_missing_jar_says_how_to_build_it(tmp_path: Path) -> None:
    from ubunye.spark.jar import JarNotFoundError, jar_info

    with pytest.raises(JarNotFoundError, match="scripts/build-jar"):
        jar_info(tmp_path)


def test_session_has_the_jar_for_its_versions(spark: Any) -> None:
    import ubunye.spark
    from ubunye.spark.jar import loaded_jar, session_mismatch

    from ubunye.spark.jar import line_of

    loaded = loaded_jar(spark)
    scala = spark._jvm.scala.util.Properties.versionNumberString()
    assert loaded is not None and (loaded.spark, loaded.scala) == (line_of(spark.version), line_of(scala))
    assert session_mismatch(spark) is None
    assert ubunye.spark.native_available(spark)
    ubunye.spark.install(spark)  # idempotent on a session that has the functions already
    assert ubunye.spark.native_available(spark)


def test_install_refuses_a_jar_for_another_scala_line(spark: Any, tmp_path: Path) -> None:
    import ubunye.spark
    from ubunye.spark.jar import jar_info

    from ubunye.spark.jar import line_of

    line = line_of(spark.version)
    other = "2.13" if line_of(spark._jvm.scala.util.Properties.versionNumberString()) == "2.12" else "2.12"
    fake = jar_info(fake_metadata(tmp_path, line, other), spark=line, scala=other)
    with pytest.raises(ubunye.spark.JarMismatchError) as caught:
        ubunye.spark.install(spark, jar=fake)
    message = str(caught.value)
    assert f"Spark {line} / Scala {other}" in message
    assert f"Spark {spark.version} / Scala {spark._jvm.scala.util.Properties.versionNumberString()}" in message


def _claim(data: bytes, old: str, new: str) -> bytes:
    """``data`` (a class file) with its one UTF-8 constant ``old`` replaced by ``new`` (same length)."""
    assert len(old) == len(new), (old, new)
    head = b"\x01" + len(old).to_bytes(2, "big")
    assert data.count(head + old.encode()) == 1, old
    return data.replace(head + old.encode(), head + new.encode())


def _other_line_jar(tmp: Path) -> Path:
    """The packaged jar, its BuildInfo saying it is for the ``OTHER`` line."""
    from ubunye.spark.jar import jar_info

    real = jar_info()
    full = real.spark_full or f"{real.spark}.0"
    jar = tmp / f"ubunye-spark_{OTHER[0]}_{OTHER[1]}-{real.version}.jar"
    with zipfile.ZipFile(real.path) as src, zipfile.ZipFile(jar, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "io/ubunye/spark/BuildInfo$.class":
                data = _claim(_claim(data, real.spark, OTHER[0]), real.scala, OTHER[1])
                data = _claim(data, full, f"{OTHER[0]}.0".ljust(len(full), "0")[: len(full)])
            dst.writestr(item, data)
    return jar


def test_a_jar_for_another_spark_line_names_both_versions_and_the_fallback_works(tmp_path: Path) -> None:
    from ubunye.spark.testing import child_env

    jar = _other_line_jar(tmp_path)
    done = subprocess.run(
        [sys.executable, __file__, "--mismatch-driver", str(jar), str(tmp_path / "driver")],
        capture_output=True, text=True, env=child_env(), timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    from ubunye.testing.fixtures import fixtures_dir, load_fixture

    fx = load_fixture(fixtures_dir() / "reference_3rows.json")
    assert OTHER_TEXT in out["install_error"]
    assert f"Spark {pyspark.__version__} / Scala " in out["install_error"]
    assert out["install_error_type"] == "JarMismatchError"
    assert out["warnings"] and OTHER_TEXT in out["warnings"][0]
    assert (out["engine"], out["data_hash"]) == ("spark-sql", fx.expect.data_hash)
    if not pyspark.__version__.startswith("3.5"):  # Spark 4 registered the wrong jar's functions
        assert out["functions_in_session"]
    for reason in (out["fp_reason"], out["status"]["reason"]):  # why not native, both versions named
        assert OTHER_TEXT in reason and f"Spark {pyspark.__version__} / Scala " in reason, reason
    state = out["status"]  # the session reports its line, the jar it loaded, and why not native
    assert (state["engine"], state["spark"], state["jar_version"]) == ("spark-sql", pyspark.__version__, "0.1.0")
    assert state["jar"].endswith(f"ubunye-spark_{OTHER[0]}_{OTHER[1]}-0.1.0.jar")
    assert OTHER_TEXT in state["reason"] and "\n" not in state["reason"]


def _wrong_line_jar(tmp: Path) -> tuple[Path, str]:
    """A jar of another Spark line as a user puts it on ``spark.jars`` by hand, and the line it is
    built for. On Spark 4 a packaged jar of another 4.x line of the same Scala (the newest: 4.3 on
    4.1), which Spark's service loader registers; on pyspark 3.5 (whose sessions skip the service
    loader: the extension is named) the packaged jar claiming the ``OTHER`` line."""
    from ubunye.spark.jar import available_jars, jar_info, line_of

    if pyspark.__version__.startswith("3.5"):
        return _other_line_jar(tmp), OTHER[0]
    own = jar_info()
    others = sorted((j for j in available_jars() if j.scala == own.scala and j.spark.startswith("4.")
                     and line_of(j.spark) != line_of(pyspark.__version__)), key=lambda j: j.spark)
    assert others, f"no jar of another Spark 4 line for Scala {own.scala}: scripts/build-jar 4.3_{own.scala}"
    return others[-1].path, others[-1].spark


def test_a_jar_of_another_line_never_serves_sql_and_names_the_jar_to_use(tmp_path: Path) -> None:
    from ubunye.spark.jar import jar_info, line_of
    from ubunye.spark.testing import child_env

    jar, built = _wrong_line_jar(tmp_path)
    done = subprocess.run(
        [sys.executable, __file__, "--wrong-line-sql", str(jar), str(tmp_path / "driver")],
        capture_output=True, text=True, env=child_env(), timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    own = jar_info()
    assert out["exists"] and len(out["errors"]) == 2, out  # registered, under the functions' names
    for error in out["errors"]:
        assert error is not None, "a jar of another line ran the SQL function"
        assert "\n" not in error.strip(), error  # one line
        assert f"is built for Spark {built} / Scala " in error, error
        assert f"this session runs Spark {pyspark.__version__} / Scala {own.scala}." in error, error
        assert f"`ubunye spark jar --spark {line_of(pyspark.__version__)} --scala {own.scala}`" in error, error
        assert "build-jar" not in error


def _wrong_line_sql_driver(jar: str, workdir: str) -> None:
    """A classic session with a jar of another line on ``spark.jars`` (the extension named only on
    pyspark 3.5): each plugin SQL function's error, or None where it ran."""
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[1]").config("spark.jars", jar)
        .config("spark.ui.enabled", "false").config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", f"{workdir}/warehouse")
    )
    if pyspark.__version__.startswith("3.5"):
        builder = builder.config("spark.sql.extensions", "io.ubunye.spark.UbunyeSparkExtensions")
    spark = builder.getOrCreate()
    errors: list[Any] = []
    for name in ("ubunye_rows_v1", "ubunye_rows_v1_sums"):
        try:
            spark.sql(f"SELECT {name}(*) FROM VALUES (1, 'a') AS t(i, s)").collect()
            errors.append(None)
        except Exception as exc:  # noqa: BLE001 - what the user sees is the point
            errors.append(str(exc))
    out = {"errors": errors, "exists": spark.catalog.functionExists("ubunye_rows_v1")}
    spark.stop()
    print(json.dumps(out))


def _mismatch_driver(jar: str, workdir: str) -> None:
    """A classic session with the stand-in jar on its classpath (no extension)."""
    from pyspark.sql import SparkSession

    import ubunye.spark
    from ubunye.spark.testing import fixture_dataframe
    from ubunye.testing.fixtures import fixtures_dir, load_fixture

    spark = (
        SparkSession.builder.master("local[1]").config("spark.jars", jar)
        .config("spark.ui.enabled", "false").config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", f"{workdir}/warehouse").getOrCreate()
    )
    out: dict[str, Any] = {}
    try:
        ubunye.spark.install(spark)
    except ubunye.spark.JarError as exc:
        out["install_error"], out["install_error_type"] = str(exc), type(exc).__name__
    fx = load_fixture(fixtures_dir() / "reference_3rows.json")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fp = ubunye.fingerprint(fixture_dataframe(spark, fx))
    out["warnings"] = [str(w.message) for w in caught if issubclass(w.category, ubunye.spark.JarMismatchWarning)]
    out["engine"], out["data_hash"], out["fp_reason"] = fp.engine, fp.data_hash, fp.reason
    out["functions_in_session"] = spark.catalog.functionExists("ubunye_rows_v1_sums")
    state = ubunye.spark.status(spark)
    out["status"] = {"engine": state.engine, "reason": state.reason, "jar": state.jar,
                     "jar_version": state.jar_version, "spark": state.spark, "scala": state.scala}
    spark.stop()
    print(json.dumps(out))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--mismatch-driver":
        _mismatch_driver(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "--wrong-line-sql":
        _wrong_line_sql_driver(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(f"usage: {sys.argv[0]} --mismatch-driver|--wrong-line-sql JAR WORKDIR")
