"""Rendering a config's strings with Jinja2, in a sandbox, every failure one :class:`ConfigError`.

A config value is the user's text, so its template runs in
:class:`jinja2.sandbox.SandboxedEnvironment` (no ``__class__``/``__subclasses__`` walks, no
unsafe calls: a ``SecurityError``), with ``StrictUndefined`` (an unknown name is an error), and
within budgets, so a template can neither hang a run nor eat the machine's memory:

- ``*``, ``**`` and ``%`` are checked before they run (a text or list longer than
  :data:`MAX_TEXT`, an exponent making a number longer than :data:`MAX_BITS` bits, a
  ``%``-format with a huge width);
- a filter or a call given a number larger than :data:`MAX_ARGUMENT` (a width, a count) is
  refused (``range`` is already limited by the sandbox);
- the Python lines a template runs are counted (:data:`MAX_STEPS`), so nested loops stop;
- a rendered value longer than :data:`MAX_TEXT` is refused.

Any other exception a template raises (a filter's ``TypeError``, ``1/0``) is the same one-line
:class:`ConfigError` naming the file and the key.
"""
from __future__ import annotations

import functools
import itertools
import re
import sys
from pathlib import Path
from collections.abc import Iterator
from typing import Any, Callable, Mapping

from ubunye.engine.errors import ConfigError

MAX_TEXT = 1_000_000  # characters (or items) a template may build or render
MAX_BITS = 100_000  # size of a number ``**`` may build
MAX_ARGUMENT = 100_000  # a number given to a filter or a call (width, count)
MAX_STEPS = 2_000_000  # Python lines run while rendering one value
_HUGE_WIDTH = re.compile(r"\d{6,}")  # a format width or precision of a million or more


class TemplateBudget(Exception):
    """A template that would run too long or build too much (raised inside the render)."""


class EnvVars(dict):
    """``{{ env.NAME }}``: the process environment; an unset name is an error naming it."""


def _undefined_class() -> type:
    import jinja2

    class Undefined(jinja2.StrictUndefined):
        """StrictUndefined (``default`` still works) whose error names an unset environment variable."""

        @property
        def _undefined_message(self) -> str:  # jinja2's hook for the error text
            if isinstance(self._undefined_obj, EnvVars) and isinstance(self._undefined_name, str):
                return f"environment variable {self._undefined_name} is not set"
            return super()._undefined_message

    return Undefined


def _sized(value: Any) -> bool:
    return isinstance(value, (str, bytes, list, tuple, range, dict, set, frozenset))


def _bounded(value: Any) -> Any:
    """An iterator (``map``, ``select``) made a list, at most MAX_TEXT items, so its size is known."""
    if not isinstance(value, Iterator):
        return value
    items = list(itertools.islice(value, MAX_TEXT + 1))
    if len(items) > MAX_TEXT:
        raise TemplateBudget(f"a sequence of more than {MAX_TEXT} items")
    return items


def _check_arguments(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    for value in (*args, *kwargs.values()):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_ARGUMENT:
            raise TemplateBudget(f"a number larger than {MAX_ARGUMENT} given to a filter or call")


def _check_growth(value: Any, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    """A filter or method given a text or list may repeat it once per item of ``value``
    (``replace``, ``join``): their sizes multiplied must stay within MAX_TEXT."""
    if not _sized(value):
        return
    for arg in (*args, *kwargs.values()):
        if _sized(arg) and len(arg) > 1 and len(value) * len(arg) > MAX_TEXT:
            raise TemplateBudget(f"a filter or call would build more than {MAX_TEXT} characters or items")


def _checked_result(out: Any) -> Any:
    if _sized(out) and len(out) > MAX_TEXT:
        raise TemplateBudget(f"a filter or call built more than {MAX_TEXT} characters or items")
    return out


def _guarded(func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        first = next((i for i, a in enumerate(args) if not _is_runtime(a)), len(args))  # after env/context
        if first < len(args):
            args = (*args[:first], _bounded(args[first]), *args[first + 1:])
            _check_arguments(args[first + 1:], kwargs)
            _check_growth(args[first], args[first + 1:], kwargs)
        return _checked_result(func(*args, **kwargs))

    return guarded


def _is_runtime(value: Any) -> bool:
    from jinja2 import Environment
    from jinja2.runtime import Context
    from jinja2.nodes import EvalContext

    return isinstance(value, (Environment, Context, EvalContext))


@functools.lru_cache(maxsize=1)
def environment() -> Any:
    """The one sandboxed environment every config string is rendered in."""
    import jinja2
    from jinja2.sandbox import SandboxedEnvironment

    class Sandbox(SandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**", "%"})

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            if operator == "*":
                for seq, count in ((left, right), (right, left)):
                    if _sized(seq) and isinstance(count, int) and len(seq) * count > MAX_TEXT:
                        raise TemplateBudget(f"'*' would build more than {MAX_TEXT} characters or items")
            elif operator == "**":
                if isinstance(left, int) and isinstance(right, int) and abs(left) > 1 and \
                        right * max(abs(left).bit_length(), 1) > MAX_BITS:
                    raise TemplateBudget(f"'**' would build a number of more than {MAX_BITS} bits")
            elif operator == "%" and isinstance(left, str) and _HUGE_WIDTH.search(left):
                raise TemplateBudget("a '%' format with a width of a million or more")
            return super().call_binop(context, operator, left, right)

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
            _check_arguments(args, kwargs)
            # the method's own object (the sandbox wraps str.format; __wrapped__ is the bound method)
            target = getattr(getattr(__obj, "__wrapped__", __obj), "__self__", None)
            if isinstance(target, str) and getattr(__obj, "__name__", "") in ("format", "format_map") \
                    and _HUGE_WIDTH.search(target):
                raise TemplateBudget("a format with a width of a million or more")
            _check_growth(target, args, kwargs)
            return _checked_result(super().call(__context, __obj, *args, **kwargs))

    env = Sandbox(undefined=_undefined_class(), keep_trailing_newline=True)
    env.filters = {name: _guarded(f) for name, f in env.filters.items()}
    env.globals["range"] = _guarded(env.globals["range"])
    del jinja2
    return env


class _Steps:
    """A trace function counting the Python lines a render runs; past MAX_STEPS it stops it."""

    def __init__(self) -> None:
        self.left = MAX_STEPS

    def __call__(self, frame: Any, event: str, arg: Any) -> Any:
        self.left -= 1
        if self.left < 0:
            raise TemplateBudget(f"it runs more than {MAX_STEPS} steps (a loop too long)")
        return self


def render_text(source: str, variables: Mapping[str, Any]) -> str:
    """One template, rendered within the budgets; raises what the template raises."""
    template = environment().from_string(source)
    previous = sys.gettrace()
    sys.settrace(_Steps())
    try:
        out = template.render(**variables)
    finally:
        sys.settrace(previous)
    if len(out) > MAX_TEXT:
        raise TemplateBudget(f"it renders more than {MAX_TEXT} characters")
    return out


def render(doc: Any, variables: Mapping[str, Any], file: Path, key: str = "") -> Any:
    """Render every string of ``doc``; any failure is a :class:`ConfigError` naming the key."""
    import jinja2

    def walk(node: Any, where: str) -> Any:
        if isinstance(node, str):
            if "{{" not in node and "{%" not in node and "{#" not in node:
                return node
            try:
                return render_text(node, variables)
            except jinja2.UndefinedError as exc:
                raise ConfigError(file, where or None, f"template {node!r}: {exc.message}") from None
            except jinja2.exceptions.SecurityError as exc:
                raise ConfigError(file, where or None, f"template {node!r}: refused by the sandbox: {exc}") from None
            except jinja2.TemplateError as exc:
                raise ConfigError(file, where or None, f"template {node!r}: {exc}") from None
            except TemplateBudget as exc:
                raise ConfigError(file, where or None, f"template {node!r}: refused: {exc}") from None
            except (Exception, RecursionError, MemoryError) as exc:  # 1/0, a filter's TypeError ...
                raise ConfigError(file, where or None,
                                  f"template {node!r}: {type(exc).__name__}: {exc}") from None
        if isinstance(node, dict):
            return {k: walk(v, f"{where}.{k}" if where else str(k)) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, f"{where}[{i}]") for i, v in enumerate(node)]
        return node

    return walk(doc, key)
