"""``ubunye doctor [--spark]``: one screen of this session's facts, and what to do about each problem.

Spark and Scala (read from the installed pyspark's jars, or ``$SPARK_HOME``), the Java a new
session would start on, the packaged plugin jar for that line, the hash engine a new session
would use and why, the record store, the OpenLineage transport and the signing key. Nothing is
started and nothing is written (the per-user signing key is not created: the first signed record
does that); ``--spark`` starts a local session (``$UBUNYE_SPARK_MASTER``, default ``local[2]``,
with the plugin jar) and reports what it runs (:func:`ubunye.spark.status`).

Each fact is one line ``name: value``; a problem is followed by one line ``  do: ...``.
Exit 0 when no problem was found, 1 when one was (each named), 2 on a usage error.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Optional

import click

from ubunye.cli.render import echo

Fact = tuple[str, str, Optional[str]]  # name, value, what to do (None: not a problem)


def spark_facts() -> list[Fact]:
    """Spark, Scala, Java, the jar and the engine a new session would use, no JVM started."""
    from ubunye.spark.jar import JarError, jar_info, java_mismatch
    from ubunye.spark.runtime import launcher_java_version, spark_runtime

    runtime = spark_runtime()
    java = launcher_java_version()
    java_fact: Fact = ("java", java or "not found", None if java else
                       "install Java 17 (or set JAVA_HOME) to run Spark; the pandas backend needs none")
    if runtime.spark is None:
        return [("spark", "not installed: the pandas backend hashes with Arrow (pandas arrow)", None), java_fact]
    where = "pyspark" if runtime.source == "pyspark" else f"SPARK_HOME ({runtime.jars})"
    facts: list[Fact] = [("spark", f"{runtime.spark} ({where})", None),
                         ("scala", runtime.scala or "unknown (no scala-library jar found)", None), java_fact]
    try:
        info = jar_info(spark=runtime.spark, scala=runtime.scala)
    except JarError as exc:
        facts.append(("jar", "none for this line", None))
        facts.append(("engine", f"spark-sql fallback: {exc}",
                      "use a Spark line the package has a jar for (ubunye spark jar --spark <line> names it), "
                      "or keep the fallback (same digest, slower)"))
        return facts
    facts.append(("jar", str(info.path), None))
    problem = java_mismatch(info, java)
    if problem is not None:
        facts.append(("engine", f"spark-sql fallback: {problem}",
                      f"run Spark on Java {info.java_release or '17'} or newer (JAVA_HOME)"))
    else:
        facts.append(("engine", "spark-native expected on a session `ubunye run` starts, or one started with "
                                "ubunye.spark.configure(builder); `ubunye doctor --spark` checks one", None))
    return facts


def session_facts() -> list[Fact]:
    """What a local session started now runs (``--spark``)."""
    from ubunye.spark import status
    from ubunye.spark.cli import cli_session

    try:
        state = status(cli_session(delta=False))
    except Exception as exc:  # noqa: BLE001 - the session could not start: that is the fact
        return [("session", f"could not start: {' '.join(str(exc).split())[:300]}",
                 "check Java (JAVA_HOME) and pyspark; `ubunye doctor` without --spark shows what was found")]
    return [("session", state.describe(), None if state.engine == "spark-native" else
             "follow the reason above; `ubunye spark jar` prints the path of the jar for the installed pyspark")]


def store_fact(usecase_dir: Path, lineage_dir: Optional[str]) -> Fact:
    from ubunye.lineage.store.blobs import join
    from ubunye.locations import is_url

    where = str(join(usecase_dir, lineage_dir))
    if is_url(where):
        return ("store", f"{_shown(where)} (remote, not contacted)", None)
    path = Path(where)
    if path.is_dir():
        return ("store", f"{path.resolve()} (exists)", None)
    if path.exists():
        return ("store", f"{path} is not a folder", "give --lineage-dir a folder (or remove the file)")
    return ("store", f"{path.resolve()} (none yet: `ubunye run --lineage` makes it)", None)


def _shown(url: str) -> str:
    """``scheme://host/path`` of a URL: no userinfo, query or fragment (where tokens ride)."""
    from urllib.parse import urlsplit

    from ubunye.locations import split_userinfo

    parts = urlsplit(split_userinfo(url)[0])
    return f"{parts.scheme}://{parts.netloc}{parts.path}" + (" (its query not shown)" if parts.query else "")


def openlineage_fact() -> Fact:
    from ubunye.lineage.ol_send import client_configured, client_installed
    from ubunye.lineage.openlineage import URL_ENV

    for name in (URL_ENV, "OPENLINEAGE_URL"):
        url = os.environ.get(name)
        if url:
            via = "openlineage-python" if client_installed() else "ubunye's HTTP sender"
            return ("openlineage", f"http to {_shown(url)} ({name}; through {via})", None)
    if client_installed() and client_configured():
        return ("openlineage", "openlineage-python's own configuration (openlineage.yml or OPENLINEAGE__*)", None)
    return ("openlineage", f"not sent (no {URL_ENV} or OPENLINEAGE_URL); records are kept either way", None)


def signing_fact() -> Fact:
    from ubunye.lineage.attestation.keys import KEY_ENV, SigningKeyError, load_key_file, user_key_path

    named = os.environ.get(KEY_ENV)
    if named and named.lower() == "off":
        return ("signing", f"off ({KEY_ENV} set to off): records are not signed",
                f"unset {KEY_ENV} to sign with the per-user key, or point it at a key file")
    path = Path(named) if named else user_key_path()
    if not named and not path.exists():
        return ("signing", f"per-user key {path} (not created yet: the first signed record creates it)", None)
    try:
        key = load_key_file(path)
    except SigningKeyError as exc:
        return ("signing", str(exc), f"fix the key file (chmod 600, an ed25519 PEM key) or point {KEY_ENV} at another")
    except OSError as exc:
        return ("signing", f"signing key {path}: {exc.strerror or exc}", f"point {KEY_ENV} at a readable key file")
    return ("signing", f"{path} (key id {key.keyid[:16]}...)", None)


@click.command("doctor", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--spark", "start_spark", is_flag=True, help="Also start a local Spark session and report what it runs.")
@click.option("-d", "--usecase-dir", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="The usecase folder (where the record store is looked for).")
@click.option("--lineage-dir", default=None, help="The lineage folder (default .ubunye/lineage) or a store URL.")
def doctor_command(start_spark: bool, usecase_dir: Path, lineage_dir: Optional[str]) -> None:
    """One screen of this session's facts (Spark, Scala, Java, jar, engine, store, OpenLineage, signing)."""
    from ubunye._version import __version__

    steps: list[Callable[[], list[Fact]]] = [spark_facts]
    if start_spark:
        steps.append(session_facts)
    steps += [lambda: [store_fact(usecase_dir, lineage_dir)], lambda: [openlineage_fact()], lambda: [signing_fact()]]
    facts: list[Fact] = [("ubunye", __version__, None)]
    for step in steps:
        facts += step()
    for name, value, todo in facts:  # echo masks and writes controls out
        echo(f"{name + ':':<12} {' '.join(value.split())}")
        if todo:
            echo(f"{'':<12}   do: {todo}")
    problems = [name for name, _, todo in facts if todo]
    if problems:
        echo(f"{len(problems)} problem(s): {', '.join(problems)}", err=True)
        raise SystemExit(1)
