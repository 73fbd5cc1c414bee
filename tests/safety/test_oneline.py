"""Traceback or hang probes (issue 19, "one line, never a traceback"): every bad input a user can
hand the CLI gets one ``error:`` line naming the file (and the key, where there is one) and
exit 2, within a timeout (a hang fails), and nothing already written changes.

``validate``/``config`` answer "is this task valid?": a bad config is their ``FAIL`` verdict
(one line per task, exit 1), not a usage error; every other command exits 2.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Callable, Union

import pytest

from harness import Result, Usecase, assert_one_line_error, assert_unchanged, cli, tree_digest

TIMEOUT = 60.0  # a probe that hangs fails (subprocess.TimeoutExpired)
TASK = "t"
BIG = 10 * 1024 * 1024 + 1  # one byte over the limit


def good_config(u: Usecase, out: str = "out/people") -> str:
    return (f"CONFIG:\n  inputs:\n    people: {{format: parquet, path: {json.dumps(str(u.root / 'data/people.parquet'))}}}\n"
            f"  outputs:\n    kept: {{format: parquet, path: {json.dumps(str(u.root / out))}}}\n")


PASS = "from ubunye import Task\n\n\nclass P(Task):\n    def transform(self, sources):\n        return {'kept': sources['people']}\n"
OUT_KEY = "CONFIG.outputs.kept.path"
IN_KEY = "CONFIG.inputs.people.path"


def templated(expr: str) -> Callable[[Usecase, Path], bytes]:
    """A good config whose output path is the template ``expr``."""
    return lambda u, outside: good_config(u, expr).encode()


def special(make: Callable[[Path], Path]) -> Callable[[Usecase, Path], Path]:
    """config.yaml a symbolic link to a special file made outside the usecase (a FIFO, a device)."""
    return lambda u, outside: make(outside)


def fifo(outside: Path, name: str = "fifo") -> Path:
    path = outside / name
    os.mkfifo(path)
    return path


def folder(outside: Path) -> Path:
    path = outside / "a-folder"
    path.mkdir()
    return path


def sparse(outside: Path, size: int = BIG) -> Path:
    path = outside / "big"
    with open(path, "wb") as handle:
        handle.truncate(size)
    return path


def secret_file(make: Callable[[Path], Path]) -> Callable[[Usecase, Path], bytes]:
    """A good config whose input path is ``secret://file/<what make builds>``."""
    def build(u: Usecase, outside: Path) -> bytes:
        return good_config(u).replace(json.dumps(str(u.root / "data/people.parquet")),
                                      json.dumps(f"secret://file/{make(outside)}")).encode()
    return build


def _write(outside: Path, name: str, data: bytes) -> Path:
    path = outside / name
    path.write_bytes(data)
    return path


BOMB = (b'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
        + b"".join(f"{n}: &{n} [{','.join(['*' + p] * 9)}]\n".encode() for p, n in zip("abcdefgh", "bcdefghi"))
        + b"CONFIG: *i\n")

Case = Union[bytes, Callable[[Usecase, Path], Union[bytes, Path]]]
# name -> (config.yaml's content or a builder, the key the line must name or None, a word it must say)
CONFIGS: dict[str, tuple[Case, Union[str, None], str]] = {
    "jinja_undefined_attribute": (templated("{{ nope.deeper }}"), OUT_KEY, "undefined"),
    "jinja_filter_raises": (templated("{{ 'abc' | format(1, 2) }}"), OUT_KEY, "TypeError"),
    "jinja_division_by_zero": (templated("{{ 1 / 0 }}"), OUT_KEY, "ZeroDivisionError"),
    "jinja_class_attribute": (templated("{{ task_dir.__class__ }}"), OUT_KEY, "sandbox"),
    "jinja_subclasses_walk": (templated("{{ ''.__class__.__mro__[1].__subclasses__() }}"), OUT_KEY, "sandbox"),
    "jinja_globals_walk": (templated("{{ lipsum.__globals__['os'].system('true') }}"), OUT_KEY, "sandbox"),
    "jinja_huge_repeat": (templated("{{ 'x' * 10**9 }}"), OUT_KEY, "refused"),
    "jinja_huge_width": (templated("{{ 'x' | center(10**9) }}"), OUT_KEY, "refused"),
    "jinja_huge_format": (templated("{{ '{:>999999999}'.format(1) }}"), OUT_KEY, "refused"),
    "jinja_growing_replace": (templated("{{ 'a' | replace('a', 'b' * 100000) | replace('b', 'c' * 100000) }}"),
                              OUT_KEY, "refused"),
    "jinja_nested_loops": (templated("{% for a in range(99999) %}{% for b in range(99999) %}{% endfor %}"
                                     "{% endfor %}"), OUT_KEY, "steps"),
    "jinja_recursive_macro": (templated("{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}"), OUT_KEY,
                              "RecursionError"),
    "yaml_list": (b"- CONFIG\n- inputs\n", None, "expected a mapping"),
    "yaml_scalar": (b"just text\n", None, "expected a mapping"),
    "yaml_empty": (b"", None, "empty"),
    "yaml_binary": (bytes(range(256)) * 4, None, "UTF-8"),
    "yaml_latin1": ("CONFIG:\n  inputs: {}\n  outputs: {kept: {format: parquet, path: caf\xe9}}\n".encode("latin-1"),
                    None, "not UTF-8 text (line 3)"),
    "yaml_python_tag": (b"CONFIG: !!python/object/apply:os.system ['touch PWNED']\n", None, "python/object"),
    "yaml_deep_flow": (b"CONFIG: " + b"[" * 5000 + b"]" * 5000 + b"\n", None, "nesting"),
    "yaml_deep_block": ("".join(" " * i + f"k{i}:\n" for i in range(150)).encode(), None, "nested deeper"),
    "yaml_alias_bomb": (BOMB, None, "aliases expand"),
    "yaml_recursive_alias": (b"CONFIG: &a [*a]\n", None, "recursive alias"),
    "config_over_10_mb": (special(sparse), None, "limit is 10 MB"),
    "config_is_fifo": (special(fifo), None, "FIFO"),
    "config_is_folder": (special(folder), None, "folder"),
    "config_is_dev_zero": (special(lambda outside: Path("/dev/zero")), None, "device"),
    "secret_file_missing": (secret_file(lambda outside: outside / "no-such-secret"), IN_KEY, "no secret file"),
    "secret_file_folder": (secret_file(folder), IN_KEY, "folder"),
    "secret_file_not_utf8": (secret_file(lambda outside: _write(outside, "s", b"\xffpw\xfe")), IN_KEY, "UTF-8"),
    "secret_file_fifo": (secret_file(fifo), IN_KEY, "FIFO"),
    "secret_file_dev_zero": (secret_file(lambda outside: Path("/dev/zero")), IN_KEY, "device"),
    "secret_file_over_10_mb": (secret_file(sparse), IN_KEY, "limit is 10 MB"),
}


def place(u: Usecase, outside: Path, case: Case, task: str = TASK) -> Path:
    """The task ``task`` with config.yaml as ``case`` says (bytes, or a link to a special file)."""
    folder_ = u.task(task, good_config(u), PASS)
    config = folder_ / "config.yaml"
    value = case(u, outside) if callable(case) else case
    config.unlink()
    if isinstance(value, Path):
        config.symlink_to(value)
    else:
        config.write_bytes(value)
    return config


@pytest.fixture()
def usecase(tmp_path: Path) -> Usecase:
    u = Usecase(tmp_path / "uc")
    u.parquet("people.parquet")
    (tmp_path / "outside").mkdir()
    return u


def naming(config: Path, key: Union[str, None], word: str) -> list[str]:
    return [str(config), word] + ([key] if key else [])


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_traceback_or_hang_run_refuses_a_bad_config_in_one_line(usecase: Usecase, name: str) -> None:
    case, key, word = CONFIGS[name]
    config = place(usecase, usecase.root.parent / "outside", case)
    before = tree_digest(usecase.root)
    result = usecase.run("-t", TASK, "--lineage", timeout=TIMEOUT)
    assert_one_line_error(result, naming=naming(config, key, word))
    assert_unchanged(before, tree_digest(usecase.root))  # nothing written: no output, no record, no PWNED
    assert not (usecase.root.parent / "PWNED").exists()


PLANNED = ("jinja_division_by_zero", "jinja_subclasses_walk", "yaml_latin1", "yaml_alias_bomb", "config_is_fifo",
           "secret_file_not_utf8")


@pytest.mark.parametrize("name", PLANNED)
def test_traceback_or_hang_plan_refuses_a_bad_config_in_one_line(usecase: Usecase, name: str) -> None:
    case, key, word = CONFIGS[name]
    config = place(usecase, usecase.root.parent / "outside", case)
    result = cli("plan", "-d", str(usecase.root), "-u", usecase.usecase, "-p", usecase.package, "-t", TASK,
                 timeout=TIMEOUT)
    assert_one_line_error(result, naming=naming(config, key, word))


@pytest.mark.parametrize("verb", ["validate", "config"])
def test_traceback_or_hang_validate_gives_one_fail_line_per_bad_config(usecase: Usecase, verb: str) -> None:
    outside = usecase.root.parent / "outside"
    configs = {}
    for i, name in enumerate(sorted(CONFIGS)):
        task_outside = outside / str(i)
        task_outside.mkdir()
        configs[name] = place(usecase, task_outside, CONFIGS[name][0], task=name)
    tasks = [arg for name in configs for arg in ("-t", name)]
    result = cli(verb, "-d", str(usecase.root), "-u", usecase.usecase, "-p", usecase.package, *tasks,
                 timeout=TIMEOUT)
    assert result.code == 1, str(result)
    assert "Traceback" not in result.text, str(result)
    lines = result.err.strip().splitlines()
    assert len(lines) == len(CONFIGS), str(result)  # one line each, none spread over several
    for name, config in configs.items():
        _, key, word = CONFIGS[name]
        (line,) = [line for line in lines if line.startswith(f"FAIL {usecase.usecase}/{usecase.package}/{name}: ")]
        assert all(w in line for w in naming(config, key, word)), line


def test_traceback_or_hang_task_dir_refuses_a_bad_config_in_one_line(usecase: Usecase) -> None:
    config = place(usecase, usecase.root.parent / "outside", CONFIGS["yaml_alias_bomb"][0])
    result = cli("--task-dir", str(config.parent), "--backend", "pandas", timeout=TIMEOUT)
    assert_one_line_error(result, naming=[str(config), "aliases expand"])


@pytest.mark.parametrize("name, content, word", [
    ("not_utf8", b"tasks: [t\xe9]\n", "UTF-8"),
    ("alias_bomb", BOMB.replace(b"CONFIG:", b"tasks:"), "aliases expand"),
    ("fifo", None, "FIFO"),
])
def test_traceback_or_hang_run_all_refuses_a_bad_pipeline_yaml(usecase: Usecase, name: str,
                                                               content: Union[bytes, None], word: str) -> None:
    usecase.task(TASK, good_config(usecase), PASS)
    pipeline = usecase.package_dir / "pipeline.yaml"
    if content is None:
        pipeline.symlink_to(fifo(usecase.root.parent / "outside"))
    else:
        pipeline.write_bytes(content)
    before = tree_digest(usecase.root)
    result = usecase.run("--all", "--lineage", timeout=TIMEOUT)
    assert_one_line_error(result, naming=[str(pipeline), word])
    assert_unchanged(before, tree_digest(usecase.root))


# --- what is already written stays ------------------------------------------------------------


@pytest.mark.parametrize("name", ["yaml_alias_bomb", "jinja_division_by_zero", "secret_file_fifo"])
def test_traceback_or_hang_a_bad_config_loses_nothing_already_written(usecase: Usecase, name: str) -> None:
    usecase.task(TASK, good_config(usecase), PASS)
    first = usecase.run("-t", TASK, "--lineage", timeout=TIMEOUT)
    assert first.code == 0, str(first)
    config = place(usecase, usecase.root.parent / "outside", CONFIGS[name][0])
    before = tree_digest(usecase.root, skip=[str(config.relative_to(usecase.root))])
    assert any(k.startswith("out/people/") for k in before) and any(k.startswith(".ubunye/lineage/") for k in before)
    result = usecase.run("-t", TASK, "--lineage", timeout=TIMEOUT)
    assert_one_line_error(result, naming=[str(config)])
    assert_unchanged(before, tree_digest(usecase.root, skip=[str(config.relative_to(usecase.root))]))
    assert [r["status"] for r in usecase.records(TASK)] == ["success"]


# --- records given by path --------------------------------------------------------------------

RECORDS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "dev_zero": (lambda d: Path("/dev/zero"), "device"),
    "folder": (folder, "folder"),
    "fifo": (fifo, "FIFO"),
    "sparse_1_gb": (lambda d: sparse(d, 1 << 30), "limit is 10 MB"),
    "missing": (lambda d: d / "no-such-record.json", "No such file"),
    "not_json": (lambda d: _write(d, "r.json", b"not json at all\n"), "not valid JSON"),
    "json_array": (lambda d: _write(d, "r.json", b"[1, 2, 3]\n"), "expected a JSON object"),
    "json_scalar": (lambda d: _write(d, "r.json", b"42\n"), "expected a JSON object"),
    "not_utf8": (lambda d: _write(d, "r.json", b'{"run_id": "\xff"}'), "UTF-8"),
    "deep_json": (lambda d: _write(d, "r.json", b"[" * 100000 + b"]" * 100000), "nested"),
    "wrong_types": (lambda d: _write(d, "r.json", json.dumps({"run_id": 5, "steps": "x"}).encode()), "run_id"),
    "wrong_inputs": (lambda d: _write(d, "r.json", json.dumps({"run_id": "r", "inputs": "x"}).encode()), "inputs"),
    "wrong_step": (lambda d: _write(d, "r.json", json.dumps({"run_id": "r", "outputs": [{"row_count": "many"}]}).encode()),
                   "row_count"),
}


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_traceback_or_hang_lineage_show_record_refuses_in_one_line(tmp_path: Path, name: str) -> None:
    make, word = RECORDS[name]
    record = make(tmp_path)
    result = cli("lineage", "show", "-d", str(tmp_path), "--record", str(record), timeout=TIMEOUT)
    assert_one_line_error(result, naming=[str(record), word])


def test_traceback_or_hang_lineage_compare_and_verify_records_refuse_in_one_line(tmp_path: Path) -> None:
    one = fifo(tmp_path)
    result = cli("lineage", "compare", "-d", str(tmp_path), "--record1", str(one), "--record2", "/dev/zero",
                 timeout=TIMEOUT)
    assert_one_line_error(result, naming=[str(one), "FIFO"])
    result = cli("lineage", "verify", "-d", str(tmp_path), "--record", "/dev/zero", timeout=TIMEOUT)
    assert_one_line_error(result, naming=["/dev/zero", "device"])


# --- a damaged record in the store --------------------------------------------------------------


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Usecase:
    """A usecase with two successful recorded runs of one task (copied by each probe)."""
    u = Usecase(tmp_path_factory.mktemp("recorded") / "uc")
    u.parquet("people.parquet")
    u.task(TASK, good_config(u), PASS)
    for _ in range(2):
        assert u.run("-t", TASK, "--lineage", timeout=TIMEOUT).code == 0
    return u


DAMAGE: dict[str, Callable[[Path], None]] = {
    "garbage": lambda p: p.write_bytes(b"\x00\xff garbage"),
    "wrong_types": lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "inputs": "x", "status": 7})),
    "deep": lambda p: p.write_bytes(b"[" * 100000 + b"]" * 100000),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_traceback_or_hang_a_damaged_newest_record_is_named(recorded: Usecase, tmp_path: Path, damage: str) -> None:
    u = Usecase(tmp_path / "uc")
    shutil.copytree(recorded.root, u.root, dirs_exist_ok=True, symlinks=True)
    files = sorted((u.lineage_dir / u.usecase / u.package / TASK).glob("*.json"),
                   key=lambda p: json.loads(p.read_text())["started_at"])
    newest = files[-1]
    DAMAGE[damage](newest)
    os.utime(newest)  # damaged now: it may be the newest run
    before = tree_digest(u.root)
    args = ["-d", str(u.root), "-u", u.usecase, "-p", u.package, "-t", TASK]
    compared = cli("lineage", "compare", *args, timeout=TIMEOUT)
    assert_one_line_error(compared, naming=[str(newest)])
    listed = cli("lineage", "list", *args, timeout=TIMEOUT)
    assert listed.code == 0 and "Traceback" not in listed.text, str(listed)
    (warning,) = listed.err.strip().splitlines()
    assert warning.startswith("warning:") and str(newest) in warning, str(listed)
    shown = cli("lineage", "show", *args, timeout=TIMEOUT)  # as list: the readable runs, a warning for it
    assert shown.code == 0 and "Traceback" not in shown.text, str(shown)
    (warning,) = shown.err.strip().splitlines()
    assert warning.startswith("warning:") and str(newest) in warning, str(shown)
    assert_unchanged(before, tree_digest(u.root))  # reading never repairs or removes


# --- ubunye hash ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name, make, word", [
    ("missing", lambda d: d / "nothing.parquet", "no such file"),
    ("dev_zero", lambda d: Path("/dev/zero"), "not a file or folder"),
    ("fifo", lambda d: fifo(d, "f.parquet"), "not a file or folder"),
])
def test_traceback_or_hang_hash_refuses_in_one_line(tmp_path: Path, name: str, make: Callable[[Path], Path],
                                                    word: str) -> None:
    path = make(tmp_path)
    result = cli("hash", str(path), timeout=TIMEOUT)
    assert_one_line_error(result, naming=[str(path), word])


def test_traceback_or_hang_hash_of_a_folder_holding_a_fifo_does_not_block(tmp_path: Path) -> None:
    fifo(tmp_path, "part-0.parquet")
    result: Result = cli("hash", str(tmp_path), timeout=TIMEOUT)
    assert_one_line_error(result, naming=[str(tmp_path)])


# --- a bug of ours is still one line ----------------------------------------------------------

import click  # noqa: E402


@click.command("boom")
def _boom_command() -> None:
    raise TypeError("an internal mistake")


def test_traceback_or_hang_an_unexpected_exception_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from ubunye.cli.app import cli as group, main

    monkeypatch.setattr(group, "commands", dict(group.commands))  # the group as found afterwards
    monkeypatch.setitem(group.lazy, "boom", f"{__name__}:_boom_command")
    monkeypatch.delenv("UBUNYE_TRACEBACK", raising=False)
    code = main(["boom"])
    err = capsys.readouterr().err
    assert_one_line_error(Result(code, "", err), code=1, naming=["internal error", "TypeError: an internal mistake"])
    monkeypatch.setenv("UBUNYE_TRACEBACK", "1")  # asked for: the traceback, for a bug report
    with pytest.raises(TypeError, match="an internal mistake"):
        main(["boom"])


def test_traceback_or_hang_the_limits_leave_ordinary_files_alone(tmp_path: Path) -> None:
    """Anchors and aliases of an ordinary size, 100 levels, a file of exactly the limit: accepted."""
    from ubunye.userfiles import MAX_BYTES, MAX_DEPTH, load_yaml, read_bytes

    shared = tmp_path / "shared.yaml"
    shared.write_text("base: &opts {header: true, sep: ';'}\na: *opts\nb: {<<: *opts, sep: ','}\n"
                      "many: &row [1, 2, 3]\nrows: [*row, *row, *row]\n")
    assert load_yaml(shared)["b"] == {"header": True, "sep": ","}
    deep = tmp_path / "deep.yaml"
    deep.write_text("".join(" " * i + f"k{i}:\n" for i in range(MAX_DEPTH - 2)) + " " * (MAX_DEPTH - 2) + "k: v\n")
    assert load_yaml(deep) is not None
    full = tmp_path / "full"
    full.write_bytes(b"x" * MAX_BYTES)
    assert len(read_bytes(full)) == MAX_BYTES


def test_traceback_or_hang_a_fifo_named_py_in_the_task_folder_does_not_block_the_run(usecase: Usecase) -> None:
    folder_ = usecase.task(TASK, good_config(usecase), PASS)
    (folder_ / "notes.py").symlink_to(fifo(usecase.root.parent / "outside"))  # never imported, never a file
    result = usecase.run("-t", TASK, "--lineage", timeout=TIMEOUT)
    assert result.code == 0 and "Traceback" not in result.text, str(result)
    (record,) = usecase.records(TASK)
    assert record["status"] == "success"
    assert record["code_hash"] is None  # the hash cannot cover it: none is claimed (as for an unreadable file)


@pytest.mark.parametrize("name", ["yaml_alias_bomb", "config_is_fifo", "jinja_subclasses_walk", "secret_file_not_utf8"])
def test_traceback_or_hang_run_task_raises_the_projects_config_error(usecase: Usecase, name: str) -> None:
    """The API: the project's own ConfigError naming file and key (what the CLI prints), nothing else."""
    from ubunye import run_task
    from ubunye.engine.errors import ConfigError

    case, key, word = CONFIGS[name]
    config = place(usecase, usecase.root.parent / "outside", case)
    with pytest.raises(ConfigError) as info:
        run_task(config.parent, backend="pandas", lineage=True)
    assert all(w in str(info.value) for w in naming(config, key, word)) and "\n" not in str(info.value)
    assert not usecase.lineage_dir.exists()


@pytest.mark.parametrize("flag", ["--var", "-dt"])
def test_traceback_or_hang_an_argument_that_is_not_utf8_is_refused_before_the_run(usecase: Usecase, flag: str) -> None:
    usecase.task(TASK, good_config(usecase), PASS)
    before = tree_digest(usecase.root)
    value = "x=" + b"\xff".decode("utf-8", "surrogateescape") if flag == "--var" else b"\xff".decode("utf-8", "surrogateescape")
    result = cli("run", *usecase.base_args(), "-t", TASK, "--lineage", flag, value, timeout=TIMEOUT,
                 env={"PYTHONIOENCODING": "utf-8:surrogateescape"})
    assert_one_line_error(result, naming=[flag, "not UTF-8"])
    assert_unchanged(before, tree_digest(usecase.root))  # no output written without its record
