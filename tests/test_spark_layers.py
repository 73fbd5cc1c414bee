"""The layers of the package run one way, and Spark's private APIs are read in one place.

Fast: no Spark session starts. Spark frames are stood in for by :class:`ArrowBackedFrame`,
which has the few DataFrame members the fallback uses and runs ``mapInArrow`` here.
"""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "ubunye"
COMPAT = PACKAGE / "spark" / "_compat"  # the one place: a package, split by concern

# private attributes of pyspark / py4j objects (py4j handles are all "_j..."; a frame's
# "_sc", a builder's "_options", the task context's "_taskContext", the gateway ...)
PRIVATE = re.compile(
    r"^_(j[A-Za-z]\w*|sc|options|taskContext|gateway|active_spark_context|instantiatedSession|activeSession)$"
)


def _sources() -> Iterator[tuple[Path, ast.AST]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    assert len(paths) > 10, f"the package's modules are not under {PACKAGE}"  # a loop over nothing proves nothing
    for path in paths:
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def private_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, name)`` of every private pyspark/py4j attribute read in ``tree``
    (``x._jvm``, and ``getattr(x, "_jvm")`` / ``hasattr`` by name). ``self._x`` is a
    module's own state, not pyspark's."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and PRIVATE.match(node.attr):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append((node.lineno, node.attr))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) > 1
              and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
              and PRIVATE.match(node.args[1].value)):
            found.append((node.lineno, node.args[1].value))
    return found


def test_private_pyspark_attributes_are_read_only_in_compat() -> None:
    outside, inside = [], []
    for path, tree in _sources():
        found = [f"{path.relative_to(PACKAGE)}:{line} {name}" for line, name in private_reads(tree)]
        (inside if COMPAT in path.parents else outside).extend(found)
    assert outside == [], f"private pyspark/py4j attributes read outside spark/_compat/: {outside}"
    assert len(inside) > 10  # the scan sees the reads where they are (not a scan of nothing)
    split = {path.name for path in COMPAT.glob("*.py")}
    assert {"sessions.py", "lines.py", "observing.py", "plans.py"} <= split


def test_the_private_attribute_scan_finds_each_form() -> None:
    code = (
        "a = spark.sparkContext._jvm\n"
        "b = builder._options.get('x')\n"
        "c = getattr(tc.TaskContext, '_taskContext', None)\n"
        "d = frame._jdf\n"
        "e = self._options\n"
    )
    assert sorted(private_reads(ast.parse(code))) == [(1, "_jvm"), (2, "_options"), (3, "_taskContext"), (4, "_jdf")]


def static_imports(tree: ast.AST) -> list[str]:
    """Every module named by an import statement in ``tree`` (at any depth)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            names.append(node.module)
            names.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_hashing_imports_nothing_from_spark() -> None:
    upward = [
        f"{path.relative_to(PACKAGE)}: {name}"
        for path, tree in _sources() if path.parent.name == "hashing"
        for name in static_imports(tree)
        if name == "ubunye.spark" or name.startswith("ubunye.spark.")
    ]
    assert upward == [], f"ubunye.hashing imports from ubunye.spark: {upward}"


def test_the_hashing_modules_import_each_other_in_one_direction() -> None:
    """No loop among the modules of ubunye.hashing (imports at any depth, as drawn from the code)."""
    graph: dict[str, set[str]] = {}
    for path, tree in _sources():
        if path.parent.name == "hashing":
            here = f"ubunye.hashing.{path.stem}"
            graph[here] = {n for n in static_imports(tree) if n.startswith("ubunye.hashing.")}
    modules = set(graph)
    graph = {m: {n if n in modules else n.rsplit(".", 1)[0] for n in names} & modules - {m}
             for m, names in graph.items()}
    loops: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        for nxt in sorted(graph[module]):
            if nxt in path:
                loops.append(path[path.index(nxt):] + [nxt])
            elif len(path) < len(graph):
                visit(nxt, path + [nxt])

    for start in sorted(graph):
        visit(start, [start])
    assert loops == [], f"import loop in ubunye.hashing: {' -> '.join(loops[0])}"


def _fresh(code: str) -> Any:
    """Run ``code`` in a fresh interpreter (nothing imported yet); its last stdout line as JSON."""
    env_path = str(PACKAGE.parent)
    out = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {env_path!r})\n{code}"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_spark_submodules_are_attributes_of_the_package() -> None:
    seen = _fresh(
        "import json, ubunye.spark\n"
        "print(json.dumps([callable(ubunye.spark.observations.attach), callable(ubunye.spark.observations.read),\n"
        "                  callable(ubunye.spark.observe.SumsObserver), 'pyspark' in sys.modules]))"
    )
    assert seen == [True, True, True, False]  # and importing them loads no pyspark


def test_an_unknown_spark_attribute_still_raises() -> None:
    import ubunye.spark

    with pytest.raises(AttributeError, match="no_such_thing"):
        ubunye.spark.no_such_thing  # noqa: B018


# --- a stand-in for a Spark frame ------------------------------------------------------

class ArrowBackedFrame:
    """The members of a pyspark DataFrame the fallback uses, over a pyarrow table;
    ``mapInArrow`` runs its function here (or raises ``fail``)."""

    __module__ = "pyspark.sql.classic.dataframe"  # what makes it a Spark frame to ubunye

    def __init__(self, table: Any, fail: BaseException | None = None) -> None:
        self.table, self.fail, self.sparkSession = table, fail, None

    @property
    def columns(self) -> list[str]:
        return list(self.table.column_names)

    @property
    def schema(self) -> Any:
        from pyspark.sql import types as T

        kinds = {"int64": T.LongType(), "string": T.StringType()}
        return T.StructType([T.StructField(f.name, kinds[str(f.type)]) for f in self.table.schema])

    def toDF(self, *names: str) -> "ArrowBackedFrame":  # noqa: N802 - pyspark's name
        return ArrowBackedFrame(self.table.rename_columns(list(names)), self.fail)

    def mapInArrow(self, func: Callable[..., Any], schema: str) -> Any:  # noqa: N802
        frame = self

        class Mapped:
            def collect(self) -> list[dict[str, Any]]:
                if frame.fail is not None:
                    raise frame.fail
                out = []
                for batch in func(iter(frame.table.to_batches(max_chunksize=2))):
                    out.extend(batch.to_pylist())
                return out

        return Mapped()


ArrowBackedFrame.__name__ = ArrowBackedFrame.__qualname__ = "DataFrame"


def test_fingerprint_of_a_spark_frame_without_importing_ubunye_spark() -> None:
    """The hashing layer imports the package that registers Spark frames by itself."""
    seen = _fresh(
        "import json, pyarrow as pa\n"
        "sys.path.insert(0, %r)\n"
        "from test_spark_layers import ArrowBackedFrame\n"
        "import ubunye\n"
        "table = pa.table({'id': [1, 2, 3], 's': ['a', None, 'c']})\n"
        "before = 'ubunye.spark' in sys.modules\n"
        "spark_fp = ubunye.fingerprint(ArrowBackedFrame(table), engine='spark-sql')\n"
        "kinds = ubunye.canonical_kinds(ArrowBackedFrame(table))\n"
        "arrow_fp = ubunye.fingerprint(table)\n"
        "print(json.dumps([before, 'ubunye.spark' in sys.modules, spark_fp.engine, spark_fp.data_hash,\n"
        "                  arrow_fp.data_hash, kinds]))" % str(Path(__file__).parent)
    )
    before, after, engine, spark_hash, arrow_hash, kinds = seen
    assert (before, after, engine) == (False, True, "spark-sql")
    assert spark_hash is not None and spark_hash == arrow_hash
    assert kinds == [["id", "int64"], ["s", "string"]]


# --- the fallback's worker failures ----------------------------------------------------

WORKER_TRACEBACK = """An exception was thrown from the Python worker. Please see the stack trace below.
Traceback (most recent call last):
  File "/x/pyspark.zip/pyspark/worker.py", line 3369, in main
    func, profiler, deserializer, serializer = read_udfs(pickleSer, infile, eval_type)
  File "/x/pyspark.zip/pyspark/sql/pandas/types.py", line 98, in to_arrow_type
    import pyarrow as pa
ModuleNotFoundError: No module named '{module}'

JVM stacktrace:
org.apache.spark.api.python.PythonException: ...
"""


@pytest.mark.parametrize("module", ["pyarrow", "ubunye", "ubunye.spark"])
def test_a_worker_without_ubunye_or_pyarrow_is_one_line_naming_the_settings(module: str) -> None:
    import pyarrow as pa

    from ubunye.spark.fingerprint import fingerprint_spark

    failure = RuntimeError(WORKER_TRACEBACK.format(module=module))
    fp = fingerprint_spark(ArrowBackedFrame(pa.table({"id": [1]}), failure), engine="spark-sql")
    assert fp.data_hash is None and fp.schema_hash is not None
    error = str(fp.error)
    assert "\n" not in error and "Traceback" not in error
    assert error.startswith(f"WorkerImportError: Spark's Python workers cannot import {module.split('.')[0]}")
    assert "PYSPARK_PYTHON" in error and "spark.pyspark.python" in error


def test_other_worker_failures_keep_their_own_message() -> None:
    import pyarrow as pa

    from ubunye.spark.fingerprint import fingerprint_spark

    failure = RuntimeError(WORKER_TRACEBACK.format(module="numpy").replace("ModuleNotFound", "Import"))
    fp = fingerprint_spark(ArrowBackedFrame(pa.table({"id": [1]}), failure), engine="spark-sql")
    assert fp.error is not None and fp.error.startswith("RuntimeError: An exception was thrown")
    assert "PYSPARK_PYTHON" not in fp.error


# --- the task probe the Spark layer registers ------------------------------------------

def test_a_spark_task_context_is_seen_through_the_registered_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    from pyspark.taskcontext import TaskContext

    from ubunye.hashing.parallel import in_spark_worker

    assert in_spark_worker() is False
    monkeypatch.setattr(TaskContext, "get", classmethod(lambda cls: object()))
    assert in_spark_worker() is True


def test_cli_commands_print_only_through_render() -> None:
    """Every text a command prints passes the masking path: cli/commands/* call render's
    echo/warn/fail/emit_json/json_document, never click.echo, click.secho, print or a stream's write."""
    found = []
    for path, tree in _sources():
        if path.parent.name != "commands" or path.parent.parent.name != "cli":
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            owner = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
            if (name == "print" and owner == "") or (owner == "click" and name in ("echo", "secho")) or (
                    name in ("write", "writelines") and owner.endswith(("stdout", "stderr"))):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {ast.unparse(func)}")
    assert found == [], f"printed around ubunye.cli.render (unmasked): {found}"
