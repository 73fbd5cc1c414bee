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
import re
import sys
from pathlib import Path
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
    return isinstance(value, (str, bytes, list, tuple))


def _check_arguments(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    for value in (*args, *kwargs.values()):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_ARGUMENT:
            raise TemplateBudget(f"a number larger than {MAX_ARGUMENT} given to a filter or call")


def _guarded(func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        _check_arguments(args[1:], kwargs)  # the first is the value filtered
        return func(*args, **kwargs)

    return guarded


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
            target = getattr(__obj, "__self__", None)
            if isinstance(target, str) and getattr(__obj, "__name__", "") in ("format", "format_map") \
                    and _HUGE_WIDTH.search(target):
                raise TemplateBudget("a format with a width of a million or more")
            return super().call(__context, __obj, *args, **kwargs)

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
