"""ubunye.spark.packages: a JVM resolving spark.jars.packages waits for another one's downloads.

Without the lock, two test processes starting Delta sessions on a fresh machine raced in
Ivy's shared cache and one failed with ``download failed: io.delta#delta-spark_2.12``.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from ubunye.spark import packages


class Builder:
    """Stands in for SparkSession.builder: its options, and what it saw when starting."""

    def __init__(self, options: dict[str, Any], marker: Path) -> None:
        self._options = options
        self.marker = marker
        self.saw_release: bool = False

    def getOrCreate(self) -> str:  # noqa: N802 - pyspark's name
        self.saw_release = self.marker.exists()
        return "session"


HOLDER = textwrap.dedent("""
    import fcntl, os, sys, time
    from pathlib import Path
    lock, ready, released, done = (Path(a) for a in sys.argv[1:5])

    def someone_waits(inode):  # a blocked flock request on the lock file ("->" in /proc/locks)
        for line in Path("/proc/locks").read_text().splitlines():
            fields = line.split()
            if "->" in fields and fields[-3].endswith(f":{inode}"):
                return True
        return False

    with open(lock, "a+") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        ready.write_text("held")
        inode = os.fstat(handle.fileno()).st_ino
        deadline = time.monotonic() + 60
        while not (someone_waits(inode) or done.exists()) and time.monotonic() < deadline:
            time.sleep(0.01)  # poll: until the other process waits on the lock, or the test is done
        released.write_text("released")
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
""")


def _hold(tmp_path: Path, ivy: Path) -> tuple[subprocess.Popen[bytes], Path, Path]:
    """A process holding the Ivy lock until another one waits for it (or ``done`` is written)."""
    ready, released, done = tmp_path / "ready", tmp_path / "released", tmp_path / "done"
    ivy.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(packages.lock_path(str(ivy))), str(ready),
                               str(released), str(done)])
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert holder.poll() is None, "the lock holder exited early"
        assert time.monotonic() < deadline, "the lock holder never took the lock"
        time.sleep(0.01)
    return holder, released, done


def test_a_session_with_packages_starts_only_after_the_other_resolver_is_done(tmp_path: Path) -> None:
    ivy = tmp_path / "ivy"
    holder, released, done = _hold(tmp_path, ivy)
    builder = Builder({"spark.jars.packages": "io.delta:delta-spark_2.12:3.3.3", "spark.jars.ivy": str(ivy)},
                      released)
    try:
        assert packages.get_or_create(builder) == "session"
    finally:
        done.write_text("done")
        holder.wait(timeout=90)
    assert builder.saw_release, "the JVM started while another process held the Ivy cache"


def test_a_session_without_packages_does_not_wait(tmp_path: Path) -> None:
    ivy = tmp_path / "ivy"
    holder, released, done = _hold(tmp_path, ivy)
    builder = Builder({"spark.jars.ivy": str(ivy)}, released)
    try:
        assert packages.get_or_create(builder) == "session"
        assert not builder.saw_release, "a session with no packages waited for the Ivy lock"
    finally:
        done.write_text("done")
        holder.wait(timeout=90)


def test_the_lock_lives_beside_the_ivy_cache_or_in_home(tmp_path: Path) -> None:
    assert packages.lock_path(str(tmp_path)) == tmp_path / packages.LOCK_NAME
    assert packages.lock_path(None) == Path.home() / packages.LOCK_NAME


def test_every_session_starter_of_the_package_goes_through_the_lock() -> None:
    """The engine, ``ubunye hash --engine spark`` and the selfcheck start sessions with packages."""
    root = Path(packages.__file__).resolve().parents[1]
    for module in ("engine/backends/spark_session.py", "spark/cli.py", "spark/selfcheck.py"):
        text = (root / module).read_text()
        assert "get_or_create(builder)" in text and ".getOrCreate()" not in text, module
