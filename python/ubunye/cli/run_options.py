"""Options shared by the commands that run or check task folders (``run``, ``validate``,
``--task-dir``), declared once so their spellings and help stay the same everywhere."""
from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

import click

from ubunye.lineage.store.blobs import DEFAULT_STORE

F = TypeVar("F", bound=Callable[..., Any])


def _apply(func: F, options: list[Callable[[F], F]]) -> F:
    for option in reversed(options):  # as stacked decorators: the first listed shows first
        func = option(func)
    return func


def template_options(func: F) -> F:
    """``-dt/--data-timestamp``, ``-dtf/--data-timestamp-format`` and ``--var``."""
    return _apply(func, [
        click.option("-dt", "--dt", "--data-timestamp", "dt", default=None, help="The run date (template variable dt)."),
        click.option("-dtf", "--dtf", "--data-timestamp-format", "dtf", default=None,
                     help="The run date format (template variable dtf)."),
        click.option("--var", "var_items", multiple=True, metavar="K=V", help="Extra template variable (repeatable)."),
    ])


def engine_options(func: F) -> F:
    """``--backend``, ``--hash-engine``, ``--lineage``, ``--lineage-dir`` and ``--rehash-inputs``.

    ``--lineage-dir`` implies ``--lineage`` (a store named is a record asked for): the command
    receives ``lineage=True`` and the folder; without either, ``lineage=False`` and the default
    folder."""

    @functools.wraps(func)
    def recording(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("lineage_dir") is None:
            kwargs["lineage_dir"] = DEFAULT_STORE
        else:
            kwargs["lineage"] = True
        return func(*args, **kwargs)

    return _apply(recording, [
        click.option("--backend", default=None, metavar="spark|pandas",
                     help="Backend (default: the config's ENGINE.backend, else spark)."),
        click.option("--hash-engine", type=click.Choice(["spark-native", "spark-sql"]), default=None,
                     help="Force a Spark hash engine (spark-sql: the mapInArrow fallback, no plugin jar)."),
        click.option("--lineage", is_flag=True, help="Write a run record per task."),
        click.option("--lineage-dir", default=None,
                     help=f"Where records go (implies --lineage; default {DEFAULT_STORE}), relative to the "
                          "usecase dir, or a store URL (s3://, gs://, abfss://, az://, an existing "
                          "/Volumes/<catalog>/<schema>/<volume>/...)."),
        click.option("--rehash-inputs", is_flag=True,
                     help="Hash every input, even one whose files an earlier record already proved."),
    ])


def deploy_mode_option(func: F) -> F:
    """0.8.0's ``--deploy-mode`` (only ``client`` is taken)."""
    return click.option("--deploy-mode", default=None, metavar="client",
                        help="Accepted for ubunye-engine 0.8.0 scripts: only client (Spark runs in this process).")(func)
