"""A Databricks cluster init script that picks the plugin jar for the cluster's own runtime.

:func:`init_script` writes a bash script for a folder on a Unity Catalog volume that holds
every packaged jar (``<folder>/jars/``, put there once by ``ubunye spark init-script``). On
the cluster, before Spark starts, the script reads the runtime's Spark line and Scala
version from its own jars (``/databricks/jars``: the ``spark-core``/``spark-sql`` and
``scala-library`` jar names), else from ``$DATABRICKS_RUNTIME_VERSION`` and the runtime
table (:mod:`ubunye.spark.databricks`), and installs into ``/databricks/jars`` exactly the
files of this package for that pair: the plugin jar and, where the package has one, the
OpenLineage listener's extension jar (:mod:`ubunye.spark.ol_jar`, in ``<folder>/jars/openlineage/``).
The script names each file and its sha256 (:func:`shipped_jars`), so another release's jar on
the same volume is never installed (with ``0.9.0`` and ``0.10.0`` there it installs its own,
whichever name sorts last). Every file is copied to a private folder and its digest checked
before any is installed; when no jar fits, or a file is missing or its digest differs, the
script prints one line naming the runtime and the file and exits 1, which fails the cluster
start.

Not checked on a Databricks cluster (none is reachable from this project): the file names
in ``/databricks/jars``. The script accepts the Apache names (``spark-core_2.12-3.5.0.jar``,
``scala-library-2.12.18.jar``) and the Maven-tree names Databricks uses
(``...org.apache.spark__spark-core_2.12__3.5.0.jar``), and falls back to the runtime table.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from ubunye.spark.databricks import runtimes
from ubunye.spark.runtime import line_of

DEST = "/databricks/jars"
# Where a cluster takes the script, as the CLI's hint and docs/databricks.md name it (one text).
CLUSTER_SETTING = "Compute > your cluster > Edit > Advanced options > Init scripts, source Volumes"


def runtime_cases() -> str:
    """The ``case`` arms mapping ``$DATABRICKS_RUNTIME_VERSION`` to ``spark_line scalas``."""
    arms = []
    for r in runtimes():
        version = r.runtime.split()[0]  # "15.4"
        arms.append(f'    {version}|{version}.*) echo "{line_of(r.spark)} {" ".join(r.scala)}" ;;')
    return "\n".join(arms)


SCRIPT = r"""#!/bin/bash
# Databricks cluster init script written by `ubunye spark init-script` (ubunye @VERSION@).
# Installs into @DEST@, before Spark starts, the ubunye-spark jar of ubunye @VERSION@ for this
# cluster's Spark line and Scala version (and its OpenLineage extension jar) from @JARS@,
# each file named below and checked by its sha256; fails the cluster start, in one line naming
# the runtime and the file, when no jar fits or a file is missing or differs.
set -euo pipefail
jars=@JARS@
dest=${UBUNYE_JARS_DEST:-@DEST@}
own=${UBUNYE_RUNTIME_JARS:-@DEST@}  # the runtime's own jars
runtime=${DATABRICKS_RUNTIME_VERSION:-unknown}

# The runtime table (python/ubunye/spark/databricks_runtimes.json): Spark line, Scala images.
table() {
  case "$1" in
@CASES@
    *) echo "" ;;
  esac
}

# The files of ubunye @VERSION@ for a Spark line and Scala version (relative to $jars), each with its sha256.
wanted() {
  case "$1" in
@WANTED@
    *) ;;
  esac
}

spark="" scala=""
names=$(ls -1 "$own" 2>/dev/null || true)
spark=$(grep -oE 'spark-(core|sql)_2\.1[0-9][-_]+[0-9]+\.[0-9]+' <<< "$names" | head -n 1 | grep -oE '[0-9]+\.[0-9]+$' || true)
scala=$(grep -oE 'scala-library[-_]+2\.1[0-9]' <<< "$names" | head -n 1 | grep -oE '2\.1[0-9]$' || true)
known=$(table "$runtime")
if [ -z "$spark" ] && [ -n "$known" ]; then spark=${known%% *}; fi
if [ -z "$scala" ] && [ -n "$known" ] && [ "$(wc -w <<< "$known")" -eq 2 ]; then scala=${known##* }; fi

here="ubunye init script: Databricks Runtime $runtime (Spark ${spark:-unknown}, Scala ${scala:-unknown})"
want=""
if [ -n "$spark" ] && [ -n "$scala" ]; then want=$(wanted "${spark}_${scala}"); fi
if [ -z "$want" ]; then
  echo "$here: no ubunye-spark jar of ubunye @VERSION@ fits (it has jars for Spark/Scala @LINES@)" >&2
  exit 1
fi
if ! command -v sha256sum > /dev/null 2>&1; then
  echo "$here: sha256sum is not on PATH, so the jars in $jars cannot be checked; nothing installed" >&2
  exit 1
fi
again="run \`ubunye spark init-script --volume ${jars%/jars}\` with ubunye @VERSION@ again"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
while read -r name sum; do  # each file copied, then its copy checked: what is checked is what is installed
  if [ ! -f "$jars/$name" ]; then
    echo "$here: $jars/$name is missing; nothing installed ($again)" >&2
    exit 1
  fi
  cp "$jars/$name" "$stage/"
  got=$(sha256sum < "$stage/${name##*/}" | cut -d ' ' -f 1)
  if [ "$got" != "$sum" ]; then
    echo "$here: $jars/$name has sha256 $got, not $sum (the file of ubunye @VERSION@); nothing installed ($again)" >&2
    exit 1
  fi
done <<< "$want"
while read -r name sum; do cp "$stage/${name##*/}" "$dest/"; done <<< "$want"
echo "$here: installed $(while read -r name sum; do printf '%s ' "${name##*/}"; done <<< "$want")into $dest"
"""


NAME = re.compile(r"(openlineage/)?[A-Za-z0-9][A-Za-z0-9._+-]*\.jar")
LINE = re.compile(r"[0-9]+\.[0-9]+_[0-9]+\.[0-9]+")


@dataclass(frozen=True)
class Shipped:
    """One file the init script installs: the Spark line and Scala version it is for
    (``"3.5_2.12"``), its name relative to the volume's ``jars/`` folder, its sha256 (hex)."""

    line: str
    name: str
    sha256: str


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def shipped_jars(plugins: Optional[Sequence[object]] = None, extensions: Optional[Sequence[object]] = None) -> list[Shipped]:
    """The package's plugin jars (:func:`ubunye.spark.jar.available_jars`) and OpenLineage
    extension jars (:func:`ubunye.spark.ol_jar.extension_jars`, under ``openlineage/``), each with
    its digest, as :func:`ubunye.spark.jar.copy_jars` lays them out on a volume."""
    from ubunye.spark import jar, ol_jar

    found: list[Shipped] = []
    for info in (jar.available_jars() if plugins is None else plugins):
        found.append(Shipped(info.line, info.path.name, _sha256(info.path)))  # type: ignore[attr-defined]
    for ext in (ol_jar.extension_jars() if extensions is None else extensions):
        found.append(Shipped(ext.line, f"openlineage/{ext.path.name}", _sha256(ext.path)))  # type: ignore[attr-defined]
    return found


def wanted_cases(jars: Sequence[Shipped]) -> str:
    """The ``case`` arms of ``wanted``: per line of a plugin jar, its files and their digests.
    Raises ValueError for a name or line the script could not carry as plain text, or two
    plugin jars of one line."""
    plugins: dict[str, list[Shipped]] = {}
    for item in jars:
        if not NAME.fullmatch(item.name) or not LINE.fullmatch(item.line) or not re.fullmatch(r"[0-9a-f]{64}", item.sha256):
            raise ValueError(f"jar {item.name!r} (line {item.line!r}): not a name, line and sha256 an init script can carry")
        if not item.name.startswith("openlineage/"):
            if item.line in plugins:
                raise ValueError(f"two plugin jars for {item.line}: {plugins[item.line][0].name} and {item.name}")
            plugins[item.line] = [item]
    for item in jars:
        if item.name.startswith("openlineage/") and item.line in plugins:
            plugins[item.line].append(item)
    arms = []
    for line, items in plugins.items():
        files = " ".join(f"'{i.name} {i.sha256}'" for i in items)
        arms.append(f"    {line}) printf '%s\\n' {files} ;;")
    return "\n".join(arms)


SEAL = "# ubunye seal (the rest of this file, unedited): sha256 "


def init_script(jars_folder: str, version: str, jars: Sequence[Shipped]) -> str:
    """The init script's text for ``jars`` (:func:`shipped_jars`) in ``jars_folder`` (a path on
    the cluster: ``/Volumes/...``); its second line seals the rest, so :func:`is_unedited` tells
    it from an edited script. Raises :class:`~ubunye.spark.jar.JarNotFoundError` when ``jars``
    holds no plugin jar."""
    from ubunye.spark.jar import NO_JARS_HINT, JarNotFoundError

    quoted = "'" + jars_folder.replace("'", "'\\''") + "'"
    wanted = wanted_cases(jars)
    if not wanted:
        raise JarNotFoundError(f"no ubunye-spark jar to name in an init script (it would fit no cluster): {NO_JARS_HINT}")
    lines = ", ".join(sorted({j.line.replace("_", "/") for j in jars if not j.name.startswith("openlineage/")}))
    text = (SCRIPT.replace("@VERSION@", version).replace("@JARS@", quoted).replace("@LINES@", lines)
            .replace("@DEST@", DEST).replace("@CASES@", runtime_cases()).replace("@WANTED@", wanted))
    first, rest = text.split("\n", 1)
    return f"{first}\n{SEAL}{hashlib.sha256(rest.encode('utf-8')).hexdigest()}\n{rest}"


def is_unedited(data: bytes) -> bool:
    """Whether ``data`` is an init script as :func:`init_script` wrote it (its seal matches the
    rest): ``ubunye spark init-script`` replaces only such a file without ``--force``."""
    parts = data.split(b"\n", 2)
    if len(parts) < 3 or not parts[1].startswith(SEAL.encode("utf-8")):
        return False
    return parts[1][len(SEAL):].decode("ascii", "replace") == hashlib.sha256(parts[2]).hexdigest()
