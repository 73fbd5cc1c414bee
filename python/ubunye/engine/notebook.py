"""The notebook helper: one task run taken a step at a time.

.. code-block:: python

    nb = ubunye.notebook("usecases/shop/orders/clean", backend="pandas", lineage=True)
    sources = nb.read()            # inputs as native frames (expectations checked)
    outputs = nb.transform()       # the task's transform, or pass your own sources
    record = nb.write()            # expectations, writes, and the finished record

The record is as complete as ``run_task``'s: the same code hash, timings,
expectations and input/output hashes. A step that raises closes the run as
``error`` (recorded), and the exception propagates.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from ubunye.engine.execution import TaskExecution, TaskResult


class Notebook:
    """A :class:`TaskExecution` driven by hand."""

    def __init__(self, execution: TaskExecution) -> None:
        self.execution = execution
        self._started = False

    @property
    def run_id(self) -> str:
        return self.execution.run_id

    @property
    def result(self) -> TaskResult:
        return self.execution.result

    @property
    def config(self) -> Any:
        return self.execution.config

    def _start(self) -> None:
        if not self._started:
            self.execution.start()
            self._started = True
        if self.execution._finished:
            raise RuntimeError(f"run {self.run_id} of {self.execution.result.task_path} is already finished")

    def _guard(self, step: Any, *args: Any) -> Any:
        self._start()
        try:
            return step(*args)
        except KeyboardInterrupt as exc:
            self.execution.finish("interrupted", exc)
            raise
        except Exception as exc:
            self.execution.finish("error", exc)
            raise

    def read(self) -> dict[str, Any]:
        """Read every input; returns the frames by name."""
        return self._guard(self.execution.read)

    def transform(self, sources: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        """Run the task's transform (on ``sources``, or on the inputs read)."""
        return self._guard(self.execution.transform, sources)

    def write(self, outputs: Optional[Mapping[str, Any]] = None) -> TaskResult:
        """Check and write the outputs, then finish the run (and its record)."""
        self._guard(self.execution.write, outputs)
        return self.execution.finish("success")

    def run(self) -> TaskResult:
        """read, transform and write in one go."""
        self.read()
        self.transform()
        return self.write()
