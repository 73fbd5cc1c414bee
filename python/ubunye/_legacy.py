"""Refuse ubunye-engine 0.8.0 modules that have no counterpart here, in one line.

A finder appended to ``sys.meta_path`` (so it is asked only when no real module
of that name exists) turns ``import ubunye.models.registry`` and the like into an
:class:`ImportError` saying what to use instead, rather than a bare
``No module named ...``.
"""
from __future__ import annotations

import sys
from importlib.abc import MetaPathFinder
from typing import Any, Optional, Sequence

_RUN = "run a task folder with `from ubunye import run_task` (it returns a TaskResult; .outputs holds the frames)"
_CLI = "the command line is `ubunye` (ubunye.cli.app:main), or python -m ubunye --task-dir DIR"
_RECORDS = "run records are ubunye.lineage (RunRecord, the store, the recorder)"
_PLUGINS = ("reader/writer/transform plugins are not supported: use the built-in formats in config.yaml "
            "and put logic in Task.transform")

# ubunye-engine 0.8.0 module -> what to use here. Its ubunye.api and ubunye.notebook exist here
# (ubunye/api.py, ubunye/notebook.py); its ubunye.core.interfaces gives Task.
REFUSED: dict[str, str] = {
    "ubunye._internal": "not part of this project",
    "ubunye.adapters": "frames are read and written by the built-in spark and pandas backends "
                       "(ubunye.engine.backends); hashes are ubunye.fingerprint",
    "ubunye.backends": "choose the backend with run_task(..., backend='spark'|'pandas', spark=session) "
                       "or ENGINE.backend",
    "ubunye.cli.backend_choice": _CLI,
    "ubunye.cli.deploy": _CLI,
    "ubunye.cli.doctor": _CLI,
    "ubunye.cli.export": _CLI,
    "ubunye.cli.gate": _CLI,
    "ubunye.cli.init": _CLI,
    "ubunye.cli.lineage": _CLI,
    "ubunye.cli.main": _CLI,
    "ubunye.cli.models": _CLI,
    "ubunye.cli.output": _CLI,
    "ubunye.cli.prove": _CLI,
    "ubunye.cli.scaffold": _CLI,
    "ubunye.cli.sync": _CLI,
    "ubunye.cli.test_cmd": _CLI,
    "ubunye.cli.variables": _CLI,
    "ubunye.config": "use ubunye.engine.config.load_config(task_dir, mode=..., dt=..., variables=...)",
    "ubunye.core.backends": "choose the backend with run_task(..., backend='spark'|'pandas') or ENGINE.backend",
    "ubunye.core.capabilities": "check a task against a backend with `ubunye validate --backend spark|pandas`",
    "ubunye.core.catalog": "set ENGINE.catalog / ENGINE.schema_name (or qualify table names) in config.yaml",
    "ubunye.core.errors": "errors are ubunye.UbunyeError (ubunye.engine.errors: ConfigError, ExpectationError, "
                          "...) and ubunye.engine.runner.TaskFailed",
    "ubunye.core.expectations": "write expectations in config.yaml (CONFIG.expectations); a run checks them",
    "ubunye.core.gate": "compare two runs with ubunye.lineage (`ubunye lineage compare`)",
    "ubunye.core.hooks": "hooks are not supported; the run record (ubunye.lineage) holds the run's evidence",
    "ubunye.core.planning": "use `ubunye plan` / `ubunye validate`",
    "ubunye.core.portability": "not part of this project",
    "ubunye.core.ports": "a task gets and returns native frames (Spark or pandas)",
    "ubunye.core.runs": _RUN,
    "ubunye.core.runtime": _RUN,
    "ubunye.core.secrets": "write secret://env/NAME or secret://file/PATH in config.yaml; the run resolves it",
    "ubunye.core.task_runner": _RUN,
    "ubunye.core.write_modes": "set an output's mode (overwrite, append, ignore, errorifexists) in config.yaml",
    "ubunye.deploy": "deployment is not part of this project; call `ubunye run` from your platform",
    "ubunye.interfaces": "the deploy, auth, lineage and model-registry protocols are not part of this project; "
                         + _RECORDS,
    "ubunye.lineage.content_hash": "hashes are ubunye.fingerprint (rows-v1)",
    "ubunye.lineage.delta_store": _RECORDS,
    "ubunye.lineage.focus": "model calls are not recorded here, so there are no FOCUS cost rows",
    "ubunye.lineage.hasher": "hashes are ubunye.fingerprint (rows-v1)",
    "ubunye.lineage.source_version": _RECORDS,
    "ubunye.lineage.storage": _RECORDS,
    "ubunye.llm": "LLM calls are not part of this project; call your model in Task.transform",
    "ubunye.mcp_server": "the MCP server is not part of this project",
    "ubunye.models": "the model registry is not part of this project; keep models in MLflow or your own store",
    "ubunye.orchestration": "DAG export is not part of this project; call `ubunye run` from your scheduler",
    "ubunye.plugins": _PLUGINS,
    "ubunye.proving": "the proving matrix is not part of this project; compare records with `ubunye lineage compare`",
    "ubunye.telemetry": "telemetry monitors are not part of this project; the run record (ubunye.lineage) "
                        "holds the run's timings and evidence",
}


def refusal(fullname: str) -> Optional[str]:
    """The one-line refusal for a 0.8.0 module (or a module under one), else None."""
    parts = fullname.split(".")
    for i in range(len(parts), 1, -1):
        name = ".".join(parts[:i])
        if name in REFUSED:
            return f"{fullname} is a ubunye-engine 0.8.0 module with no counterpart here: {REFUSED[name]}"
    return None


class LegacyFinder(MetaPathFinder):
    """Raises the refusal for a 0.8.0 module name that no real module answers."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]], target: Any = None) -> None:
        message = refusal(fullname) if fullname.startswith("ubunye.") else None
        if message is not None:
            raise ImportError(message, name=fullname)
        return None


def install() -> None:
    if not any(isinstance(f, LegacyFinder) for f in sys.meta_path):
        sys.meta_path.append(LegacyFinder())
