"""The notebook helper: one task run taken a step at a time.

.. code-block:: python

    nb = ubunye.notebook("usecases/shop/orders/clean", backend="pandas", lineage=True)
    sources = nb.read()            # inputs as native frames (expectations checked)
    outputs = nb.transform()       # the task's transform, or pass your own sources
    record = nb.write()            # expectations, writes, and the finished record

The record is as complete as ``run_task``'s: the same code hash, timings,
expectations and input/output hashes. A step that raises closes the run as
``error`` (recorded; ``SystemExit`` and any other ``BaseException`` too, a ``KeyboardInterrupt``
as ``interrupted``), and the exception propagates.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from ubunye.engine.execution import TaskExecution, TaskResult
from ubunye.masking import active


class Notebook:
    """A :class:`TaskExecution` driven by hand."""

    def __init__(self, execution: TaskExecution, *, handle_signals: bool = False) -> None:
        self.execution = execution
        self.handle_signals = handle_signals
        self._started = False
        self._closed = False

    @property
    def run_id(self) -> str:
        return self.execution.run_id

    @property
    def result(self) -> TaskResult:
        return self.execution.result

    @property
    def config(self) -> Any:
        return self.execution.config

    # ubunye-engine 0.8.0's NotebookContext names
    @property
    def task_name(self) -> str:
        """``usecase/package/task``."""
        return self.execution.result.task_path

    @property
    def config_dict(self) -> dict[str, Any]:
        """The rendered config.yaml as a dict (``secret://`` references left as written)."""
        return dict(self.execution.config.raw)

    @property
    def backend(self) -> str:
        """``"spark"`` or ``"pandas"``."""
        return str(self.execution.backend.name)

    @property
    def spark(self) -> Any:
        """The Spark session (None on pandas)."""
        return getattr(self.execution.backend, "spark", None)

    def close(self) -> None:
        """End a run left unfinished (recorded as ``interrupted``) and release the backend; idempotent."""
        if self._started and not self.execution._finished:
            self.execution.finish("interrupted")  # closes the backend it owns
        elif not self._started and not self._closed and self.execution._owns_backend:
            self.execution.backend.close()  # nothing ran: no record, the session is left as found
        self._closed = True

    def _start(self) -> None:
        if not self._started:
            self.execution.start()
            self._started = True
        if self.execution._finished:
            raise RuntimeError(f"run {self.run_id} of {self.execution.result.task_path} is already finished")

    def _guard(self, step: Any, *args: Any) -> Any:
        """Run one step; anything it raises (SystemExit too) ends the record (lineage/ending.py's one
        mapping) and propagates. ``ENGINE.timeout`` bounds each step; signals as ``handle_signals``."""
        from ubunye.lineage.ending import end_status, ending_signals, time_limit

        with active(self.execution.masker), ending_signals(self.handle_signals):
            try:
                self._start()  # the running record, before the clock starts
                self.execution.check_started()
                with time_limit(self.execution.config.engine.timeout):
                    return step(*args)
            except BaseException as exc:
                if not self.execution._finished:
                    self.execution.finish(end_status(exc), exc)
                raise

    def read(self) -> dict[str, Any]:
        """Read every input; returns the frames by name."""
        return self._guard(self.execution.read)

    def transform(self, sources: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        """Run the task's transform (on ``sources``, or on the inputs read)."""
        return self._guard(self.execution.transform, sources)

    def write(self, outputs: Optional[Mapping[str, Any]] = None) -> TaskResult:
        """Check and write the outputs, then finish the run (and its record). Outputs given here
        (not made by :meth:`transform`) are recorded as handed in (``"handed_in": true``)."""
        self._guard(self.execution.write, outputs)
        return self.execution.finish("success")

    def run(self) -> TaskResult:
        """read, transform and write in one go."""
        self.read()
        self.transform()
        return self.write()
