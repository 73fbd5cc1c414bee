"""Calling monitors written for any version of the monitor signature.

A monitor's ``task_end`` receives the newer evidence (``inputs``,
``expectations``, ``timings`` ...) only when its signature names those
parameters or takes ``**kwargs``; monitors written for the older signature
(``context, config, outputs, status, duration_sec``) keep working.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable


def accepted_kwargs(func: Callable[..., Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The subset of ``kwargs`` that ``func`` can take by keyword."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):  # builtins without a signature: pass everything
        return dict(kwargs)
    params = signature.parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return dict(kwargs)
    names = {
        p.name
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    }
    return {k: v for k, v in kwargs.items() if k in names}


def call_hook(monitor: Any, hook: str, **kwargs: Any) -> Any:
    """Call ``monitor.<hook>`` with the keyword arguments its signature accepts.

    Returns None when the monitor has no such hook.
    """
    func = getattr(monitor, hook, None)
    if func is None or not callable(func):
        return None
    return func(**accepted_kwargs(func, kwargs))


def call_task_start(monitor: Any, **kwargs: Any) -> Any:
    """``monitor.task_start(...)`` with the arguments it accepts."""
    return call_hook(monitor, "task_start", **kwargs)


def call_task_end(monitor: Any, **kwargs: Any) -> Any:
    """``monitor.task_end(...)`` with the arguments it accepts."""
    return call_hook(monitor, "task_end", **kwargs)
