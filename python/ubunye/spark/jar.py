"""The plugin jars shipped inside the package, and putting the right one into a session.

``scripts/build-jar`` places, per Spark line, ``ubunye-spark_<spark>_<scala>-<version>.jar``
and its description ``ubunye-spark_<spark>_<scala>-<version>.json`` (the jar's name,
version, Spark and Scala lines, the Java release and class file version it was compiled
for, its extension and install entry points) in ``ubunye/spark/jars/``. This module
reads them, picks the jar for the Spark line and Scala version a session will run
(:mod:`ubunye.spark.runtime`, found before any JVM starts), adds it to a
``SparkSession.builder`` (:func:`configure`, like Delta's
``configure_spark_with_delta_pip``) or registers the functions on a running classic
session (:func:`install`). A line without a jar, a jar for another line, or a JVM too
old for the jar's class files gives one line naming both sides; the fingerprint then
uses the Spark SQL fallback (same digest).

Importing this module imports nothing from pyspark.
"""
from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence, TypeVar

from ubunye.spark import _compat, ol_jar
from ubunye.spark.runtime import class_file_major, java_feature, launcher_java_version, line_of, spark_runtime

JAR_PREFIX = "ubunye-spark_"
EXTENSIONS_CLASS = "io.ubunye.spark.UbunyeSparkExtensions"
INSTALL_ENTRY = "io.ubunye.spark.Ubunye.install"
ENTRY_OBJECT = "io.ubunye.spark.Ubunye"
SUMS_FUNCTION = "ubunye_rows_v1_sums"
FACTS_MEMO = "spark.facts"  # session memo key of ubunye.spark.facts.SparkFacts (install forgets it)
FALLBACK_NOTE = "the native functions are not used (the Spark SQL fallback gives the same digest)"
NO_JARS_HINT = ("this install of ubunye carries no plugin jars: install the released wheel "
                "(pip install ubunye), or in a source checkout run scripts/build-jar --all")

B = TypeVar("B")


class JarError(RuntimeError):
    """The plugin jar is missing, not loaded, or built for another Spark/Scala."""


class JarNotFoundError(JarError):
    """No jar (or no jar description) in the package's ``jars/`` folder."""


class JarLineMissingError(JarNotFoundError):
    """The package has jars, but none for the Spark/Scala line asked for."""


class JarMismatchError(JarError):
    """The jar was built for another Spark or Scala line than the running one."""


class JarMismatchWarning(UserWarning):
    """:func:`configure` left the jar out: no jar for this line, another line's, or a JVM too old."""


@dataclass(frozen=True)
class JarInfo:
    """What a plugin jar is: its file and the versions it was built for."""

    path: Path
    version: str
    spark: str
    scala: str
    extensions: str = EXTENSIONS_CLASS
    install: str = INSTALL_ENTRY
    spark_full: Optional[str] = None
    java_release: Optional[str] = None
    class_file_major: Optional[int] = None
    provider: Optional[str] = None
    description: Optional[Path] = None  # the JSON file this was read from

    @property
    def line(self) -> str:
        """``"3.5_2.12"``: the Spark line and Scala version the jar is for."""
        return f"{line_of(self.spark)}_{line_of(self.scala)}"

    def describe(self) -> str:
        return f"{self.path.name} (built for Spark {self.spark} / Scala {self.scala})"


def jars_dir() -> Path:
    """The package folder that holds the jars and their JSON descriptions."""
    return Path(__file__).resolve().parent / "jars"


def read_description(meta: Path) -> JarInfo:
    """A :class:`JarInfo` from one jar description (JSON); the jar must sit beside it."""
    folder = meta.parent
    try:
        doc = json.loads(meta.read_text(encoding="utf-8"))
        name = str(doc.get("jar") or doc["name"])
        major = doc.get("class_file_major")
        info = JarInfo(
            path=folder / name,
            version=str(doc["version"]),
            spark=str(doc["spark"]),
            scala=str(doc["scala"]),
            extensions=str(doc.get("extensions") or EXTENSIONS_CLASS),
            install=str(doc.get("install") or INSTALL_ENTRY),
            spark_full=str(doc["spark_full"]) if doc.get("spark_full") else None,
            java_release=str(doc["java_release"]) if doc.get("java_release") else None,
            class_file_major=int(major) if major is not None else None,
            provider=str(doc["provider"]) if doc.get("provider") else None,
            description=meta,
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise JarNotFoundError(f"{meta} is not a valid jar description: {exc!r}") from None
    if not info.path.is_file():
        raise JarNotFoundError(f"{meta} names {name}, which is not in {folder}")
    return info


def available_jars(directory: Optional[Path] = None) -> list[JarInfo]:
    """Every jar described in ``directory`` (default :func:`jars_dir`), by line."""
    folder = Path(directory) if directory is not None else jars_dir()
    metas = sorted(folder.glob("*.json")) if folder.is_dir() else []
    infos = list({i.path: i for i in map(read_description, metas)}.values())  # one per jar
    return sorted(infos, key=lambda i: (tuple(int(x) for x in line_of(i.spark).split(".")), i.scala))


def copy_jars(target: Path, *, force: bool = False, protected: Sequence[Path] = ()) -> list[Path]:
    """Copy every packaged jar and its JSON description into ``target`` (made if missing), and
    the OpenLineage extension jars with theirs into ``target/openlineage/`` (the package's own
    layout, which :mod:`ubunye.spark.init_script` expects on a volume); the copies, in order.
    A file already there with the same content is kept; one with other content raises
    :class:`~ubunye.userfiles.UserFileError` (nothing copied) unless ``force``; a link, a folder
    or a special file there is never written through, nor anything inside a ``protected``
    folder (a record store; :mod:`ubunye.userwrites`).
    Raises :class:`JarNotFoundError` when the package has no jar."""
    from ubunye.userfiles import UserFileError, read_bytes
    from ubunye.userwrites import check_writable, write_file

    infos = available_jars()
    if not infos:
        raise JarNotFoundError(f"no ubunye-spark jar in {jars_dir()}: nothing to copy ({NO_JARS_HINT})")
    pairs = [(p, target / p.name) for info in infos for p in (info.path, info.description) if p is not None]
    pairs += [(p, target / "openlineage" / p.name) for ext in ol_jar.extension_jars()
              for p in (ext.path, ext.description) if p is not None]
    contents = {source: read_bytes(source, limit=1 << 30) for source, _ in pairs}
    clashes = []
    for source, copy in pairs:  # every refusal before anything is copied
        try:
            check_writable(copy, data=contents[source], force=force, protected=protected, what="ubunye")
        except UserFileError as exc:
            clashes.append(exc)
    if clashes:
        first = clashes[0]
        raise UserFileError(first.path, f"{first.reason} ({len(clashes)} such file(s))")
    for source, copy in pairs:
        write_file(copy, contents[source], force=force, protected=protected, what="ubunye")
    return [copy for _, copy in pairs]


def lines_text(infos: list[JarInfo]) -> str:
    """``"3.5/2.12, 4.1/2.13"``: the lines a set of jars covers."""
    return ", ".join(f"{line_of(i.spark)}/{line_of(i.scala)}" for i in infos) or "none"


def jar_info(
    directory: Optional[Path] = None, *, spark: Optional[str] = None, scala: Optional[str] = None
) -> JarInfo:
    """The jar for a Spark line and Scala version (default: what a new session would run).

    ``spark`` / ``scala`` take a line or a full version (``"3.5"``, ``"2.12.18"``).
    Raises :class:`JarNotFoundError` when ``directory`` (default :func:`jars_dir`)
    has no jar at all, :class:`JarLineMissingError` (one line naming the line asked
    for and the lines there are) when none is for that line.
    """
    folder = Path(directory) if directory is not None else jars_dir()
    infos = available_jars(folder)
    if not infos:
        raise JarNotFoundError(
            f"no ubunye-spark jar in {folder}: {NO_JARS_HINT}"
        )
    installed = ""
    if spark is None:
        runtime = spark_runtime()
        if runtime.spark is None:
            raise JarLineMissingError(
                f"pyspark is not installed, so no Spark line to pick a jar for: name one, "
                f"e.g. jar_path(spark='3.5', scala='2.12') (this package has {lines_text(infos)})")
        spark, scala = runtime.spark, scala or runtime.scala
        where = "pyspark" if runtime.source == "pyspark" else "Spark in SPARK_HOME"
        installed = f" (the installed {where} is {runtime.spark}" + (
            f", Scala {runtime.scala})" if runtime.scala else ")")
    same_line = [i for i in infos if line_of(i.spark) == line_of(spark)]
    if scala is not None:
        same_line = [i for i in same_line if line_of(i.scala) == line_of(scala)]
    if len(same_line) > 1:
        raise JarLineMissingError(
            f"Spark {line_of(spark)} has jars for Scala "
            f"{' and '.join(line_of(i.scala) for i in same_line)}: name one (scala='2.12')")
    if not same_line:
        wanted = f"Spark {line_of(spark)}" + (f" / Scala {line_of(scala)}" if scala else "")
        raise JarLineMissingError(
            f"no ubunye-spark jar for {wanted}{installed}; this package has jars for "
            f"{lines_text(infos)}; {FALLBACK_NOTE}")
    return same_line[0]


def jar_path(spark: Optional[str] = None, scala: Optional[str] = None,
             *, directory: Optional[Path] = None) -> str:
    """The absolute path of the packaged jar for a line (default: the installed pyspark's).

    For ``spark.jars`` / ``--jars``; ``jar_path(spark="3.5", scala="2.12")`` for a
    cluster configuration written elsewhere.
    """
    return str(jar_info(directory, spark=spark, scala=scala).path)


def version_mismatch(
    jar: JarInfo, spark_version: str, scala_version: Optional[str], java_version: Optional[str] = None
) -> Optional[str]:
    """A one-line message when ``jar`` does not fit the running Spark/Scala, else None.

    ``scala_version`` None means unknown (Spark Connect, or before the JVM
    starts): only the Spark line is compared then. ``java_version`` (the JVM's),
    when given and too old for the jar's class files, is named as well.
    """
    spark_ok = line_of(jar.spark) == line_of(spark_version)
    scala_ok = scala_version is None or line_of(jar.scala) == line_of(scala_version)
    if spark_ok and scala_ok:
        return None
    running = f"Spark {spark_version}" + (f" / Scala {scala_version}" if scala_version else "")
    built = ""
    if java_version and java_mismatch(jar, java_version):
        feature = java_feature(java_version) or 0
        built = f" (class file {jar.class_file_major}, Java {jar.java_release or jar.class_file_major - 44})"
        running += f" on Java {java_version} (class files up to {class_file_major(feature)})"
    return (
        f"the ubunye-spark jar {jar.path.name} is built for Spark {jar.spark} / Scala "
        f"{jar.scala}{built}, but this session runs {running}; {FALLBACK_NOTE}; "
        f"{jar_to_use(spark_version, scala_version)}"
    )


def jar_to_use(spark_version: str, scala_version: Optional[str]) -> str:
    """What a wheel user puts on ``spark.jars`` for a Spark line and Scala version: the packaged
    jar's name and the command that prints its path, or the lines this package has jars for."""
    line = line_of(spark_version)
    scala = f" --scala {line_of(scala_version)}" if scala_version else ""
    try:
        fits = jar_info(spark=spark_version, scala=scala_version)
    except JarError:
        try:
            have = lines_text(available_jars())
        except JarError:
            have = "none"
        return f"this package has no jar for Spark {line}{scala.replace(' --scala', ' / Scala')} (it has: {have})"
    return f"use {fits.path.name} instead (`ubunye spark jar --spark {line}{scala}` prints its path)"


def java_mismatch(jar: JarInfo, java_version: Optional[str]) -> Optional[str]:
    """A one-line message when the JVM (``java.specification.version`` or ``java.version``)
    is too old for the jar's class files, else None (also when either is unknown)."""
    feature = java_feature(java_version) if java_version else None
    if jar.class_file_major is None or feature is None:
        return None
    if class_file_major(feature) >= jar.class_file_major:
        return None
    needs = jar.java_release or str(jar.class_file_major - class_file_major(0))
    return (
        f"the ubunye-spark jar {jar.path.name} needs Java {needs} or newer (class file "
        f"{jar.class_file_major}), but the JVM is Java {java_version} (class files up to "
        f"{class_file_major(feature)}); {FALLBACK_NOTE}"
    )


def _append_csv(existing: Optional[str], item: str) -> str:
    """``existing`` (a comma-separated list) with ``item`` appended once."""
    items = [x.strip() for x in (existing or "").split(",") if x.strip()]
    if item not in items:
        items.append(item)
    return ",".join(items)


def configure(builder: B, *, jar: Optional[JarInfo] = None, extensions: bool = True) -> B:
    """Add the plugin jar (``spark.jars``) and its extensions to a classic session builder.

    The jar is the one for the Spark line and Scala version the session will run
    (:func:`jar_info`). Existing ``spark.jars`` and ``spark.sql.extensions``
    entries (Delta's, for example) are kept. When ``spark.extraListeners`` names the
    OpenLineage Spark listener, the listener's extension jar of the same line goes on
    ``spark.jars`` too (:mod:`ubunye.spark.ol_jar`; one :class:`ExtensionJarWarning`
    line when the package has none for that line). When the package has no jar for
    that line, when ``jar`` is for another line, or when the JVM the session
    will start on is too old for the jar, the jar is left out with one
    :class:`JarMismatchWarning` line naming both sides, so the session still
    starts and fingerprints use the fallback. Raises :class:`JarNotFoundError`
    when no jar was built at all.
    """
    runtime = spark_runtime()
    try:
        info = jar if jar is not None else jar_info()
    except JarLineMissingError as exc:
        warnings.warn(str(exc), JarMismatchWarning, stacklevel=2)
        return builder
    running = runtime.spark
    if running is None:
        import pyspark

        running = pyspark.__version__
    java = launcher_java_version()
    problem = version_mismatch(info, running, runtime.scala, java) or java_mismatch(info, java)
    if problem is not None:
        warnings.warn(problem, JarMismatchWarning, stacklevel=2)
        return builder
    options = _compat.builder_options(builder)
    b: Any = builder
    jars = _append_csv(options.get("spark.jars"), str(info.path))
    if ol_jar.runs_listener(options):  # the OpenLineage listener's extension of the same line
        extension = ol_jar.extension_jar(info.spark, info.scala)
        if extension is None:
            warnings.warn(ol_jar.missing_line(info.spark, info.scala), ol_jar.ExtensionJarWarning, stacklevel=2)
        else:
            jars = _append_csv(jars, str(extension.path))
    b.config("spark.jars", jars)
    if extensions:
        b.config(
            "spark.sql.extensions", _append_csv(options.get("spark.sql.extensions"), info.extensions)
        )
    return builder


def class_file_on_driver(spark: Any, name: str) -> Optional[tuple[int, str]]:
    """The class file major version of class ``name`` on a classic session's driver and
    where it is (a URL), read from the class file's first bytes without loading the class;
    None when the driver has no such class. (Loading a class file newer than the JVM kills
    py4j's thread on the JVM side, so a jar is looked at before any of its classes is used.)"""
    loader = _compat.jvm(spark).java.lang.Thread.currentThread().getContextClassLoader()
    url = loader.getResource(name.replace(".", "/") + ".class")
    if url is None:
        return None
    stream = url.openStream()
    try:
        head = [int(stream.read()) for _ in range(8)]
    finally:
        stream.close()
    if head[:4] != [0xCA, 0xFE, 0xBA, 0xBE]:
        return None
    return head[6] * 256 + head[7], str(url.toString())


def driver_class_problem(spark: Any) -> Optional[str]:
    """One line when the plugin jar on a classic session's driver has class files its JVM
    cannot load (a Java 17 jar on Java 8), naming both and the jar expected; else None."""
    found = class_file_on_driver(spark, ENTRY_OBJECT)
    if found is None:
        return None
    major, where = found
    system = _compat.jvm(spark).java.lang.System
    readable = int(float(str(system.getProperty("java.class.version"))))
    if major <= readable:
        return None
    name = where.split("!/", 1)[0].rsplit("/", 1)[-1]
    java = str(system.getProperty("java.version"))
    running = f"Spark {spark.version} / Scala {_compat.jvm_scala_version(spark)}"
    try:
        fits = jar_info(spark=str(spark.version), scala=_compat.jvm_scala_version(spark))
        ok = fits.class_file_major is None or fits.class_file_major <= readable
        expected = f"{fits.path.name}, the jar for {running}" if ok else f"a Java {major - 44} or newer JVM"
    except JarError:
        expected = f"a jar built for {running} with class files up to {readable}"
    return (
        f"the ubunye-spark jar {name} on the driver has class file {major} (Java {major - 44}), "
        f"but the driver JVM is Java {java} (class files up to {readable}); expected {expected}; "
        f"{FALLBACK_NOTE}"
    )


def loaded_jar(spark: Any) -> Optional[JarInfo]:
    """The plugin jar a classic session's driver has loaded (its BuildInfo), or None.

    Raises :class:`JarMismatchError` (:func:`driver_class_problem`'s line) when the
    driver's JVM is too old for the jar's class files.
    """
    problem = driver_class_problem(spark)
    if problem is not None:
        raise JarMismatchError(problem)
    try:
        entry = _compat.jvm_class(spark, ENTRY_OBJECT)
    except LookupError:
        return None
    doc = json.loads(str(entry.buildInfoJson()))
    spark_line, scala, version = str(doc["spark"]), str(doc["scala"]), str(doc["version"])
    name = f"ubunye-spark_{spark_line}_{scala}-{version}.jar"
    return JarInfo(Path(name), version, spark_line, scala)


def loaded_jar_problem(spark: Any) -> Optional[str]:
    """On a classic session: one line when the plugin jar its driver loaded cannot serve it
    (built for another Spark line or Scala version, both named; or class files the driver's
    JVM cannot load), else None (also on Spark Connect, or with no plugin jar loaded).

    The jar says what it was built for (its ``BuildInfo``, read by :func:`loaded_jar`), so a
    jar of another line put on ``spark.jars`` by hand is found even when it loaded and
    registered its functions through Spark's service loader.
    """
    if _compat.is_connect(spark):
        return None
    try:
        loaded = loaded_jar(spark)
    except JarMismatchError as exc:  # class files the driver's JVM cannot load
        return str(exc)
    except Exception:  # noqa: BLE001 - a BuildInfo that cannot be read is not ours to judge
        return None
    if loaded is None:
        return None
    return version_mismatch(loaded, str(spark.version), _compat.jvm_scala_version(spark))


def session_mismatch(spark: Any, jar: Optional[JarInfo] = None) -> Optional[str]:
    """Why the plugin cannot serve this session, as a message naming both versions, or None.

    Compares ``jar`` (default: the jar the driver has loaded, else the
    packaged one) with ``spark.version`` and, on a classic session, the JVM's
    Scala version.
    """
    scala = None if _compat.is_connect(spark) else _compat.jvm_scala_version(spark)
    info = jar
    if info is None and not _compat.is_connect(spark):
        info = loaded_jar(spark)
    if info is None:
        try:
            info = jar_info(spark=str(spark.version), scala=scala)
        except JarLineMissingError as exc:
            return str(exc)
    return version_mismatch(info, str(spark.version), scala)


def install(spark: Any, *, jar: Optional[JarInfo] = None, refresh: bool = True) -> None:
    """Register the rows-v1 SQL functions on a running classic session.

    For a session that started without ``spark.sql.extensions``; the jar must
    be on the driver classpath (``spark.jars`` / ``--jars``, see :func:`configure`
    with ``extensions=False``). Raises :class:`JarMismatchError` (naming both
    versions) for a jar built for another Spark/Scala line, :class:`JarError`
    when the jar is not loaded, and :class:`TypeError` on Spark Connect (set
    ``spark.sql.extensions`` on the Connect server instead). The session's facts
    (:func:`ubunye.spark.facts.facts`) are read again on their next use (``refresh``).
    """
    if _compat.is_connect(spark):
        raise TypeError(
            "ubunye.spark.install() needs a classic session; on Spark Connect start the "
            f"server with spark.jars=<ubunye.spark.jar_path()> and spark.sql.extensions={EXTENSIONS_CLASS}"
        )
    problem = session_mismatch(spark, jar)
    if problem is not None:
        raise JarMismatchError(problem)
    info = jar if jar is not None else loaded_jar(spark)
    entry_name = info.install if info is not None else INSTALL_ENTRY
    owner, _, method = entry_name.rpartition(".")
    try:
        entry = _compat.jvm_class(spark, owner)
    except LookupError:
        raise JarError(
            "the ubunye-spark jar is not on this session's driver classpath: start the session "
            "with ubunye.spark.configure(builder) or spark.jars=<ubunye.spark.jar_path()>"
        ) from None
    getattr(entry, method)(_compat.jsession(spark))
    if refresh:
        _compat.session_memo(spark).pop(FACTS_MEMO, None)
