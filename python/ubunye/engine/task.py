"""The ``Task`` base class that a task folder's ``transformations.py`` subclasses.

.. code-block:: python

    from ubunye import Task

    class Clean(Task):
        def transform(self, sources):
            people = sources["people"]          # a Spark or pandas DataFrame
            return {"adults": people[people["age"] >= 18]}

The engine creates the task (passing ``config``, the rendered config.yaml as a
dict, when the class's ``__init__`` takes it, as ubunye-engine 0.8.0 did; it is
``self.config`` either way) and then sets ``params`` (the
config's ``CONFIG.transform.params``), ``backend`` (``"spark"`` or ``"pandas"``),
``spark`` (the session, on Spark), ``variables`` (the template variables) and
``task_dir`` before calling :meth:`setup` and :meth:`transform`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional


class Task:
    """Base class of a task's transformation."""

    params: Mapping[str, Any] = {}
    backend: str = ""
    spark: Any = None
    variables: Mapping[str, Any] = {}
    task_dir: Optional[Path] = None
    config: Mapping[str, Any] = {}  # the rendered config.yaml (MODEL, VERSION, ENGINE, CONFIG)

    def __init__(self, config: Optional[Mapping[str, Any]] = None) -> None:
        self.config = dict(config or {})

    def bind(
        self,
        *,
        params: Mapping[str, Any],
        backend: str,
        spark: Any = None,
        variables: Optional[Mapping[str, Any]] = None,
        task_dir: Optional[Path] = None,
    ) -> "Task":
        """Attach the run's settings (called by the engine before :meth:`setup`)."""
        self.params = dict(params)
        self.backend = backend
        self.spark = spark
        self.variables = dict(variables or {})
        self.task_dir = task_dir
        return self

    def setup(self) -> None:
        """Optional hook, called once before :meth:`transform`."""

    def transform(self, sources: dict[str, Any]) -> dict[str, Any]:
        """Turn the inputs (native frames by name) into the outputs (by name)."""
        raise NotImplementedError(f"{type(self).__name__} must define transform(self, sources) -> dict")
