"""Run by integration/test_openlineage_demo.py: the demo pipeline (examples/shop/orders, as
scripts/demo runs it) on Spark, in a JVM of its own whose session runs the OpenLineage Spark
listener (file transport). ``ubunye.spark.configure`` puts the plugin jar and the listener
extension jar of the session's line on it; ``ubunye run --all`` then uses that session. The
task configs' ``monitors: [{type: openlineage}]`` entry sends each run's START and end event
through the official client (its ``OPENLINEAGE__TRANSPORT__*`` configuration, given by the test).
Then ``summarise`` is broken and run again: its end is a FAIL.

    python ol_demo_run.py USECASE_DIR DATA_DIR OUT_DIR EVENTS_FILE LISTENER_JAR
"""
from __future__ import annotations

import re
import sys
from pathlib import Path


def break_task(task: Path) -> None:
    """Make a task's transform raise first thing (the demo's failing task)."""
    code = (task / "transformations.py").read_text()
    broken = re.sub(r"(\n    def transform\(self[^\n]*:\n)", r"\1        raise ValueError('summarise broke on purpose')\n",
                    code, count=1)
    assert broken != code, code
    (task / "transformations.py").write_text(broken)


def run_args(usecase: Path, data: Path, out: Path, backend: str, *tasks: str) -> list[str]:
    """``ubunye run`` of the demo pipeline (every task, or ``tasks``) as scripts/demo runs it."""
    which = [a for t in tasks for a in ("-t", t)] or ["--all"]
    return ["run", "-d", str(usecase), "-u", "shop", "-p", "orders", *which, "--backend", backend, "--lineage",
            "--var", f"data={data}", "--var", f"out={out}"]


def main(usecase: Path, data: Path, out: Path, events: Path, listener: str) -> int:
    from ol_listener_run import listener_builder, start

    from ubunye.cli.app import main as ubunye_main
    from ubunye.engine.backends.spark_session import PROLEPTIC_CALENDAR

    builder = listener_builder("ubunye-openlineage-demo", out, events, listener, "demo")
    for key, value in {"spark.sql.session.timeZone": "UTC", **PROLEPTIC_CALENDAR}.items():
        builder = builder.config(key, value)
    spark = start(builder)
    try:
        if ubunye_main(run_args(usecase, data, out, "spark")) != 0:
            return 1
        break_task(usecase / "shop" / "orders" / "summarise")
        if ubunye_main(run_args(usecase, data, out, "spark", "summarise")) == 0:
            return 3  # the broken task must fail
    finally:
        spark.stop()  # drains the listener bus: every event is in the file
    return 0

if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]), sys.argv[5]))
