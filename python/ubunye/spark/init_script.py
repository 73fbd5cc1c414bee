"""A Databricks cluster init script that picks the plugin jar for the cluster's own runtime.

:func:`init_script` writes a bash script for a folder on a Unity Catalog volume that holds
every packaged jar (``<folder>/jars/``, put there once by ``ubunye spark init-script``). On
the cluster, before Spark starts, the script reads the runtime's Spark line and Scala
version from its own jars (``/databricks/jars``: the ``spark-core``/``spark-sql`` and
``scala-library`` jar names), else from ``$DATABRICKS_RUNTIME_VERSION`` and the runtime
table (:mod:`ubunye.spark.databricks`), copies the one jar for that pair into
``/databricks/jars`` and exits 0; when no jar fits it prints one line naming the runtime
and exits 1, which fails the cluster start.

Not checked on a Databricks cluster (none is reachable from this project): the file names
in ``/databricks/jars``. The script accepts the Apache names (``spark-core_2.12-3.5.0.jar``,
``scala-library-2.12.18.jar``) and the Maven-tree names Databricks uses
(``...org.apache.spark__spark-core_2.12__3.5.0.jar``), and falls back to the runtime table.
"""
from __future__ import annotations

import hashlib

from ubunye.spark.databricks import runtimes
from ubunye.spark.runtime import line_of

DEST = "/databricks/jars"


def runtime_cases() -> str:
    """The ``case`` arms mapping ``$DATABRICKS_RUNTIME_VERSION`` to ``spark_line scalas``."""
    arms = []
    for r in runtimes():
        version = r.runtime.split()[0]  # "15.4"
        arms.append(f'    {version}|{version}.*) echo "{line_of(r.spark)} {" ".join(r.scala)}" ;;')
    return "\n".join(arms)


SCRIPT = r"""#!/bin/bash
# Databricks cluster init script written by `ubunye spark init-script` (ubunye @VERSION@).
# Copies the ubunye-spark jar for this cluster's Spark line and Scala version from
# @JARS@ into @DEST@ before Spark starts; fails the cluster start, in one line naming
# the runtime, when none of the jars there fits.
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

spark="" scala=""
names=$(ls -1 "$own" 2>/dev/null || true)
spark=$(grep -oE 'spark-(core|sql)_2\.1[0-9][-_]+[0-9]+\.[0-9]+' <<< "$names" | head -n 1 | grep -oE '[0-9]+\.[0-9]+$' || true)
scala=$(grep -oE 'scala-library[-_]+2\.1[0-9]' <<< "$names" | head -n 1 | grep -oE '2\.1[0-9]$' || true)
known=$(table "$runtime")
if [ -z "$spark" ] && [ -n "$known" ]; then spark=${known%% *}; fi
if [ -z "$scala" ] && [ -n "$known" ] && [ "$(wc -w <<< "$known")" -eq 2 ]; then scala=${known##* }; fi

pick=""
if [ -n "$spark" ] && [ -n "$scala" ]; then
  for jar in "$jars"/ubunye-spark_"${spark}_${scala}"-*.jar; do [ -f "$jar" ] && pick=$jar; done
fi
if [ -z "$pick" ]; then
  have=$(cd "$jars" 2>/dev/null && ls -1 ubunye-spark_*.jar 2>/dev/null | tr '\n' ' ' || true)
  echo "ubunye init script: no ubunye-spark jar fits Databricks Runtime $runtime (Spark ${spark:-unknown}, Scala ${scala:-unknown}) in $jars (there: ${have:-nothing})" >&2
  exit 1
fi
cp "$pick" "$dest/"
echo "ubunye init script: Databricks Runtime $runtime (Spark $spark, Scala $scala): copied $(basename "$pick") to $dest"
"""


SEAL = "# ubunye seal (the rest of this file, unedited): sha256 "


def init_script(jars_folder: str, version: str) -> str:
    """The init script's text for jars in ``jars_folder`` (a path on the cluster: ``/Volumes/...``);
    its second line seals the rest, so :func:`is_unedited` tells it from an edited script."""
    quoted = "'" + jars_folder.replace("'", "'\\''") + "'"
    text = (SCRIPT.replace("@VERSION@", version).replace("@JARS@", quoted)
            .replace("@DEST@", DEST).replace("@CASES@", runtime_cases()))
    first, rest = text.split("\n", 1)
    return f"{first}\n{SEAL}{hashlib.sha256(rest.encode('utf-8')).hexdigest()}\n{rest}"


def is_unedited(data: bytes) -> bool:
    """Whether ``data`` is an init script as :func:`init_script` wrote it (its seal matches the
    rest): ``ubunye spark init-script`` replaces only such a file without ``--force``."""
    parts = data.split(b"\n", 2)
    if len(parts) < 3 or not parts[1].startswith(SEAL.encode("utf-8")):
        return False
    return parts[1][len(SEAL):].decode("ascii", "replace") == hashlib.sha256(parts[2]).hexdigest()
