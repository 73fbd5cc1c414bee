"""The ``ubunye`` click application.

Commands are imported only when they are called, so ``ubunye lineage list``
starts without importing pandas, pyarrow or pyspark.
"""
from __future__ import annotations

import sys
from importlib import import_module
from typing import Any, Optional

import click

from ubunye._version import __version__
from ubunye.cli.commands.refused import REFUSED

# verb -> "module:attribute" of the click command or group
COMMANDS: dict[str, str] = {
    "hash": "ubunye.cli.commands.hash:hash_command",
    "run": "ubunye.cli.commands.run:run_command",
    "lineage": "ubunye.cli.commands.lineage:lineage_group",
    "spark": "ubunye.cli.commands.spark:spark_group",
    "validate": "ubunye.cli.commands.validate:validate_command",
    "config": "ubunye.cli.commands.validate:validate_command",  # ubunye-engine 0.8.0's name for validate
    "plan": "ubunye.cli.commands.plan:plan_command",
    "version": "ubunye.cli.commands.version:version_command",
    "doctor": "ubunye.cli.commands.doctor:doctor_command",
    # ubunye-engine 0.8.0 commands refused in one line saying what to use instead
    **{name: f"ubunye.cli.commands.refused:{name}_command" for name in REFUSED},
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def __init__(self, *args: Any, lazy: Optional[dict[str, str]] = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> Optional[click.Command]:
        if cmd_name in self.lazy:
            module, _, attr = self.lazy[cmd_name].partition(":")
            command = getattr(import_module(module), attr)
            self.add_command(command, cmd_name)
            del self.lazy[cmd_name]
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ubunye")
def cli() -> None:
    """Ubunye: run records and rows-v1 content hashes for data pipelines."""


def wants_task_dir(argv: list[str]) -> bool:
    """``ubunye --task-dir DIR ...`` (options only, no command): one task folder, as
    ubunye-engine 0.8.0's ``python -m ubunye --task-dir`` scripts call it."""
    return bool(argv) and argv[0].startswith("-") and any(
        arg == "--task-dir" or arg.startswith("--task-dir=") for arg in argv)


def one_line_warnings() -> None:
    """The engine's own warnings (a config key it ignores, say) as one ``warning:`` line on
    stderr, without Python's file, line and source line; other libraries' keep their form."""
    import warnings

    from ubunye.cli.render import capped
    from ubunye.engine.errors import ConfigDeprecationWarning
    from ubunye.masking import mask

    shown = warnings.formatwarning

    def formatwarning(message, category, filename, lineno, line=None):  # type: ignore[no-untyped-def]
        if issubclass(category, ConfigDeprecationWarning):
            return capped(mask(f"warning: {' '.join(str(message).split())}")) + "\n"
        return capped(mask(shown(message, category, filename, lineno, line)))  # masked, each line capped

    warnings.formatwarning = formatwarning


def main(argv: Optional[list[str]] = None) -> int:
    """Console-script entry point; returns the exit code."""
    from ubunye.masking import install_log_filter

    one_line_warnings()
    install_log_filter()  # every log line of ubunye and py4j passes the masking path
    try:
        if wants_task_dir(sys.argv[1:] if argv is None else argv):
            from ubunye.cli.commands.task_dir import main as task_dir_main

            return task_dir_main(argv)
        cli.main(args=argv, prog_name="ubunye", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except Exception as exc:  # a bug of ours: still one line (UBUNYE_TRACEBACK=1 shows where)
        return internal_error(exc)
    return 0


TRACEBACK_ENV = "UBUNYE_TRACEBACK"
EXIT_INTERNAL = 1


def internal_error(exc: Exception) -> int:
    """An exception no command turned into its own line: one ``error:`` line naming it, exit 1
    (an errno: ``<path>: <reason>``, exit 2); the traceback only when ``UBUNYE_TRACEBACK=1`` asks
    for it."""
    import os

    from ubunye.cli.render import fail
    from ubunye.userfiles import errno_text

    if os.environ.get(TRACEBACK_ENV) == "1":
        raise exc
    try:
        if isinstance(exc, OSError):  # the machine said no (a loop of links, a full disk): not a bug of ours
            fail(errno_text(exc))
        fail(f"internal error (please report it; {TRACEBACK_ENV}=1 shows where): {type(exc).__name__}: {exc}",
             code=EXIT_INTERNAL)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else EXIT_INTERNAL
    return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
