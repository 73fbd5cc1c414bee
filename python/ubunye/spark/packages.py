"""Starting a session whose ``spark.jars.packages`` Ivy resolves, one JVM at a time.

Spark resolves ``spark.jars.packages`` (Delta's jars from ``configure_spark_with_delta_pip``,
the plugin's Maven coordinates) into one Ivy cache shared by every JVM of the user
(``~/.ivy2``, ``~/.ivy2.5.2`` on Spark 4, or ``spark.jars.ivy``). Ivy takes no lock on it:
two JVMs downloading the same jar into an empty cache at once leave one of them with
``download failed: io.delta#delta-spark_2.12;3.3.3!delta-spark_2.12.jar`` and no session
(seen with two test processes on a fresh machine). :func:`get_or_create` holds a lock file
beside the cache while the JVM starts, so a second process waits for the first one's
downloads and then finds them cached. Sessions without packages start unlocked.
"""
from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import Any, Iterator, Optional

log = logging.getLogger("ubunye.spark")

LOCK_NAME = ".ubunye-packages.lock"


def lock_path(ivy: Optional[str] = None) -> Path:
    """The lock file for the Ivy cache ``ivy`` (``spark.jars.ivy``; default the user's home)."""
    return Path(ivy).expanduser() / LOCK_NAME if ivy else Path.home() / LOCK_NAME


@contextlib.contextmanager
def resolving(ivy: Optional[str] = None) -> Iterator[None]:
    """Hold the machine-wide lock of the Ivy cache ``ivy`` (a no-op where it cannot be taken)."""
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks; Ivy's race remains
        yield
        return
    path = lock_path(ivy)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+")  # noqa: SIM115 - held for the whole block
    except OSError as exc:  # a read-only home: start unlocked rather than not at all
        log.debug("no lock for Spark packages at %s (%s)", path, exc)
        yield
        return
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def get_or_create(builder: Any) -> Any:
    """``builder.getOrCreate()``, under :func:`resolving` when it sets ``spark.jars.packages``."""
    from ubunye.spark._compat import builder_options

    options = builder_options(builder)
    if not options.get("spark.jars.packages"):
        return builder.getOrCreate()
    with resolving(options.get("spark.jars.ivy")):
        return builder.getOrCreate()
