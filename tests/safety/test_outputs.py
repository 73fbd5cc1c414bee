"""Outputs that cannot destroy: data-loss and escape probes (issue 19).

Each probe is a small task folder run through the CLI on pandas (a real process), the
working directory the usecase folder's parent, the whole tree (usecase, data, cwd)
hashed before and after.

- refused: ``run`` says it in one ``error:`` line naming config.yaml and the key (exit 2),
  nothing anywhere changes, and ``validate`` and ``plan`` refuse the same config;
- allowed: the run succeeds, only its declared outputs and the store change, and
  ``lineage verify`` exits 0;
- a failing write (disk full mid-write) leaves the previous output as it was.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import pyarrow.parquet as pq
import pytest

from harness import PEOPLE, Result, Usecase, assert_no_secret, assert_one_line_error, assert_unchanged, \
    task_code, tree_digest

ONE_OUT = """
CONFIG:
  inputs:
    people: {{format: parquet, path: "{src}"}}
  outputs:
    clean: {{format: {fmt}, path: "{out}", mode: {mode}{extra}}}
"""
TWO_OUT = """
CONFIG:
  inputs:
    people: {{format: parquet, path: "{src}"}}
  outputs:
    clean: {{format: parquet, path: "{out}"}}
    other: {{format: parquet, path: "{other}"}}
"""
TWO_CODE = task_code("""
frame = sources["people"]
return {"clean": frame, "other": frame}
""")
QUARANTINE = """
CONFIG:
  inputs:
    people: {{format: parquet, path: "{src}"}}
  outputs:
    clean: {{format: parquet, path: "{out}"}}
    rejected: {{format: parquet, path: "{other}"}}
  expectations:
    clean:
      rules:
        - not_null: name
          severity: quarantine
      quarantine: rejected
"""
TABLES = """
CONFIG:
  inputs:
    people: {{format: table, table: "{src}"}}
  outputs:
    clean: {{format: table, table: "{out}", mode: {mode}}}
"""
ONE_CODE = task_code('return {"clean": sources["people"]}')


@dataclass
class Probe:
    """``out``/``src``/``other`` may hold ``R`` (the usecase folder), ``T`` (its parent, the
    working directory) and ``D`` (``R/data``); ``setup`` plants extra files or links."""

    out: str
    src: str = "D/people.parquet"
    fmt: str = "parquet"
    mode: str = "overwrite"
    extra: str = ""
    config: str = ONE_OUT
    other: str = "R/elsewhere"
    args: tuple[str, ...] = ()
    setup: Optional[Callable[[Path, Path], None]] = None
    key: str = "CONFIG.outputs.clean"
    cwd: str = "T"
    env: Optional[dict[str, str]] = None
    check_validate: bool = True  # validate and plan see the config only (not --lineage-dir)


def expand(text: str, root: Path, top: Path) -> str:
    """``D/`` -> the data folder, a lone ``R`` or ``T`` before ``/`` or the end -> its folder."""
    text = re.sub(r"(?<![\w.])D/", lambda _: f"{root}/data/", text)
    return re.sub(r"(?<![\w.])([RT])(?=/|$|\")", lambda m: str(root if m.group(1) == "R" else top), text)


def build(tmp_path: Path, probe: Probe) -> tuple[Usecase, str]:
    top = tmp_path
    uc = Usecase(top / "uc")
    uc.parquet("people.parquet")
    (uc.root / "data" / "parts").mkdir()
    pq.write_table(PEOPLE, uc.root / "data" / "parts" / "part-0.parquet")
    fill = {k: expand(getattr(probe, k), uc.root, top) for k in ("out", "src", "other")}
    code = TWO_CODE if probe.config in (TWO_OUT,) else ONE_CODE
    config = probe.config.format(fmt=probe.fmt, mode=probe.mode, extra=probe.extra, **fill)
    uc.task("clean", expand(config, uc.root, top), code)
    if probe.setup is not None:
        probe.setup(uc.root, top)
    return uc, str(uc.package_dir / "clean" / "config.yaml")


def link(name: str, target: str) -> Callable[[Path, Path], None]:
    def make(root: Path, top: Path) -> None:
        os.symlink(expand(target, root, top), top / name)
    return make


def planted(rel: str, text: str = "x = 1\n") -> Callable[[Path, Path], None]:
    def make(root: Path, top: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return make


def both(*makers: Callable[[Path, Path], None]) -> Callable[[Path, Path], None]:
    def make(root: Path, top: Path) -> None:
        for m in makers:
            m(root, top)
    return make


REFUSED = {
    # empty and blank locations (Path("") is the working directory)
    "empty path after templates": Probe(out=""),
    "blank path after templates": Probe(out="   "),
    "empty input path": Probe(out="R/out", src="", key="CONFIG.inputs.people"),
    # the usecase, its code, its store
    "the usecase folder": Probe(out="R"),
    "the usecase folder with a trailing slash": Probe(out="R/"),
    "the usecase folder as a file: URL": Probe(out="file://R"),
    "the usecase code folder": Probe(out="R/shop"),
    "the package folder": Probe(out="R/shop/orders"),
    "the task folder": Probe(out="R/shop/orders/clean"),
    "the task folder through ..": Probe(out="R/data/../shop/orders/clean"),
    "a parent of the task folder through .. twice": Probe(out="R/shop/orders/clean/../.."),
    "the usecase's .ubunye": Probe(out="R/.ubunye"),
    "the store": Probe(out="R/.ubunye/lineage"),
    "inside the store": Probe(out="R/.ubunye/lineage/shop/orders"),
    "a relative path to the usecase folder": Probe(out="."),
    "a relative path to the store": Probe(out=".ubunye"),
    "a relative .. above the usecase": Probe(out=".."),
    "the store given by --lineage-dir": Probe(out="T/records", args=("--lineage", "--lineage-dir", "T/records"),
                                              check_validate=False),
    "inside the store given by --lineage-dir": Probe(out="T/records/x", check_validate=False,
                                                     args=("--lineage", "--lineage-dir", "T/records")),
    "the config's base_dir": Probe(out="T/recs", config=ONE_OUT + "  monitors: [{{type: lineage, params: "
                                   "{{base_dir: T/recs}}}}]\n"),
    # the filesystem around it
    "the root folder": Probe(out="/"),
    "the working directory holding the usecase": Probe(out="T"),
    "the working directory not holding the usecase": Probe(out="T/elsewhere", cwd="T/elsewhere"),
    "the home folder": Probe(out="T/home", env={"HOME": "T/home"}),
    # inputs: equal, containing, inside, whatever the spelling
    "the input file": Probe(out="D/people.parquet"),
    "the input file as a file: URL": Probe(out="file://D/people.parquet"),
    "the input file as file: without slashes": Probe(out="file:D/people.parquet"),
    "the input with a trailing slash": Probe(out="D/people.parquet/"),
    "the input through a/../": Probe(out="D/nothing/../people.parquet"),
    "the input with a doubled slash": Probe(out="R//data//people.parquet"),
    "a folder holding the input": Probe(out="R/data"),
    "a relative folder holding the input": Probe(out="data"),
    "inside the input folder": Probe(out="D/parts/new", src="D/parts"),
    "the input folder, append": Probe(out="D/parts", src="D/parts", mode="append"),
    "the input folder, ignore": Probe(out="D/parts", src="D/parts", mode="ignore"),
    "the input folder, errorifexists": Probe(out="D/parts", src="D/parts", mode="errorifexists"),
    "the input folder, partitioned": Probe(out="D/parts", src="D/parts", extra=", partition_by: [name]"),
    "the input as a Delta table by path": Probe(out="D/parts", src="D/parts", fmt="delta"),
    "the folder a glob input reads": Probe(out="D/out", src="D/*.parquet"),
    "a symlink to the input folder": Probe(out="T/outlink", src="D/parts", setup=link("outlink", "D/parts")),
    "inside the input through a symlinked parent": Probe(out="T/rlink/data/parts/x", src="D/parts",
                                                          setup=link("rlink", "R")),
    "the task code's parent through a symlink": Probe(out="T/codelink", setup=link("codelink", "R/shop")),
    # outputs on each other
    "two outputs at one folder": Probe(out="R/out/a", other="R/out/a", config=TWO_OUT, key="CONFIG.outputs.other"),
    "an output inside another": Probe(out="R/out/a/b", other="R/out/a", config=TWO_OUT, key="CONFIG.outputs.other"),
    "an output holding another": Probe(out="R/out", other="R/out/a", config=TWO_OUT, key="CONFIG.outputs.other"),
    "the quarantine inside the clean output": Probe(out="R/out/clean", other="R/out/clean/rejected",
                                                    config=QUARANTINE, key="CONFIG.outputs.rejected"),
    "the clean output inside the quarantine": Probe(out="R/out/rej/clean", other="R/out/rej",
                                                    config=QUARANTINE, key="CONFIG.outputs.rejected"),
    # task code elsewhere
    "a folder holding other task code": Probe(out="R/lib", setup=planted("lib/helpers.py")),
    "another task's folder": Probe(out="R/shop/orders/other", setup=planted("shop/orders/other/config.yaml")),
    # URLs and tables
    "s3a output inside the s3 input": Probe(out="s3a://bucket/in/x", src="s3://bucket/in"),
    "s3n output over the s3 input, userinfo dropped": Probe(out="s3n://AKIAX:s3cr3t-Pw@bucket/in",
                                                           src="s3://bucket/in/"),
    "a table by the input's name in other case": Probe(out="Main.Shop.People", src="main.shop.people",
                                                       config=TABLES, key="CONFIG.outputs.clean.table"),
    "a table by the input's name, back-quoted": Probe(out="`main`.`shop`.`people`", src="main.shop.people",
                                                      config=TABLES, key="CONFIG.outputs.clean.table"),
    "a table unqualified, the input qualified": Probe(out="people", src="main.shop.people", mode="append",
                                                      config=TABLES, key="CONFIG.outputs.clean.table"),
    "a secret key holding / in the userinfo": Probe(out="s3a://AKIAX:s3cr3t-Pw/9x@bucket/in/y", src="s3://bucket/in"),
    "hdfs with the host in another case": Probe(out="hdfs://NN:8020/lake/in", src="hdfs://nn:8020/lake/in/p"),
}


def in_process(*args: str, cwd: Path, env: Optional[dict[str, str]] = None) -> Result:
    """``ubunye ARGS`` in this process (click's runner), in ``cwd`` with ``env``: for the
    commands that only read (validate, plan, lineage verify), so the probes stay cheap;
    ``run`` always goes through a real process (``Usecase.run``)."""
    from click.testing import CliRunner

    from ubunye.cli.app import cli as group

    old = os.getcwd()
    os.chdir(cwd)
    try:
        done = CliRunner().invoke(group, list(args), env=env)
    finally:
        os.chdir(old)
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exc_info
    return Result(done.exit_code, done.stdout, done.stderr, list(args))


def _refuse_check(tmp_path: Path, probe: Probe) -> None:
    uc, config = build(tmp_path, probe)
    env = {k: expand(v, uc.root, tmp_path) for k, v in (probe.env or {}).items()}
    for v in env.values():
        Path(v).mkdir(parents=True, exist_ok=True)
    cwd = Path(expand(probe.cwd, uc.root, tmp_path))
    cwd.mkdir(parents=True, exist_ok=True)
    args = tuple(expand(a, uc.root, tmp_path) if a.startswith("T/") else a for a in probe.args)
    before = tree_digest(tmp_path)
    result = uc.run("-t", "clean", *args, cwd=cwd, env=env)
    assert_one_line_error(result, code=2, naming=[config, probe.key])
    assert_unchanged(before, tree_digest(tmp_path))
    assert_no_secret("s3cr3t-Pw", result)
    if not probe.check_validate:
        return
    said = in_process("validate", *uc.base_args()[:6], "-t", "clean", cwd=cwd, env=env)
    assert said.code == 1 and f"{config}: {probe.key}" in said.err and "Traceback" not in said.text, str(said)
    planned = in_process("plan", *uc.base_args()[:6], "-t", "clean", cwd=cwd, env=env)
    assert planned.code != 0 and f"{config}: {probe.key}" in planned.err, str(planned)
    assert "Traceback" not in planned.text
    assert_unchanged(before, tree_digest(tmp_path))


@pytest.mark.parametrize("name", list(REFUSED))
def test_data_loss_an_output_that_could_destroy_is_refused_before_anything_runs(tmp_path: Path, name: str) -> None:
    _refuse_check(tmp_path, REFUSED[name])


def test_data_loss_an_empty_var_never_deletes_the_working_directory(tmp_path: Path) -> None:
    """The reported case: ``path: "{{ out }}"`` with ``--var out=`` (today: rmtree of cwd)."""
    uc = Usecase(tmp_path / "uc")
    uc.parquet("people.parquet")
    config = ONE_OUT.format(src=f"{uc.root}/data/people.parquet", out="{{ out }}", fmt="parquet",
                            mode="overwrite", extra="")
    uc.task("clean", config, ONE_CODE)
    (tmp_path / "keep.txt").write_text("mine")
    before = tree_digest(tmp_path)
    for var in ("out=", "out= "):
        result = uc.run("-t", "clean", "--var", var, cwd=tmp_path)
        assert_one_line_error(result, naming=["config.yaml", "CONFIG.outputs.clean.path", "empty"])
        said = in_process("validate", *uc.base_args()[:6], "-t", "clean", "--var", var, cwd=tmp_path)
        assert said.code == 1 and "CONFIG.outputs.clean.path: empty" in said.err, str(said)
    assert_unchanged(before, tree_digest(tmp_path))


# --- allowed: only the declared outputs change, and the record tells the truth ---------------


def _old_output(rel: str) -> Callable[[Path, Path], None]:
    def make(r: Path, top: Path) -> None:
        folder = r / rel
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(PEOPLE.slice(0, 1), folder / "part-old.parquet")
    return make


ALLOWED = {
    "a new folder beside the data": (Probe(out="R/out"), ["uc/out"]),
    "an old output replaced": (Probe(out="R/out", setup=_old_output("out")), ["uc/out"]),
    "a relative path is the usecase folder's, not the cwd's": (Probe(out="out"), ["uc/out"]),
    "a data folder inside the task folder (0.8.0)": (Probe(out="R/shop/orders/clean/out"),
                                                     ["uc/shop/orders/clean/out"]),
    "a sibling whose name extends the input's": (Probe(out="D/people.parquet2"), ["uc/data/people.parquet2"]),
    "a case-different folder is another folder": (Probe(out="R/Data/out"), ["uc/Data"]),
    "partitioned": (Probe(out="R/out", extra=", partition_by: [name]"), ["uc/out"]),
    "append to a new folder": (Probe(out="R/out", mode="append"), ["uc/out"]),
    "errorifexists on a new folder": (Probe(out="R/out", mode="errorifexists"), ["uc/out"]),
    "a symlinked output written where it points": (Probe(out="T/outlink", setup=both(
        lambda r, t: (t / "real").mkdir(), link("outlink", "T/real"))), ["real"]),
    "quarantine beside the clean output": (Probe(out="R/out/clean", other="R/out/rejected", config=QUARANTINE),
                                           ["uc/out"]),
}


@pytest.mark.parametrize("name", list(ALLOWED))
def test_escape_an_allowed_output_changes_only_itself_and_verifies(tmp_path: Path, name: str) -> None:
    probe, declared = ALLOWED[name]
    uc, _ = build(tmp_path, probe)
    before = tree_digest(tmp_path, skip=declared + ["uc/.ubunye"])
    result = uc.run("-t", "clean", "--lineage", cwd=tmp_path)
    assert result.code == 0, str(result)
    assert_unchanged(before, tree_digest(tmp_path, skip=declared + ["uc/.ubunye"]))
    assert [p.name for p in tmp_path.iterdir() if ".ubunye-" in p.name] == []  # no staging folder left
    verified = in_process("lineage", "verify", "-d", str(uc.root), "-u", "shop", "-p", "orders", "-t", "clean",
                          cwd=tmp_path)
    assert verified.code == 0, str(verified)


def test_data_loss_append_keeps_the_old_parts_and_a_relative_path_never_lands_in_the_cwd(tmp_path: Path) -> None:
    probe = Probe(out="out", mode="append")
    uc, _ = build(tmp_path, probe)
    for _ in range(2):
        assert uc.run("-t", "clean", cwd=tmp_path).code == 0
    assert not (tmp_path / "out").exists()
    assert pq.read_table(uc.root / "out").num_rows == 2 * PEOPLE.num_rows


def test_data_loss_ignore_on_existing_data_leaves_it(tmp_path: Path) -> None:
    uc, _ = build(tmp_path, Probe(out="R/out", mode="ignore", setup=_old_output("out")))
    before = tree_digest(tmp_path, skip=["uc/.ubunye"])
    assert uc.run("-t", "clean", cwd=tmp_path).code == 0
    assert_unchanged(before, tree_digest(tmp_path, skip=["uc/.ubunye"]))


def test_data_loss_errorifexists_on_existing_data_fails_and_leaves_it(tmp_path: Path) -> None:
    uc, _ = build(tmp_path, Probe(out="R/out", mode="errorifexists", setup=_old_output("out")))
    before = tree_digest(tmp_path, skip=["uc/.ubunye"])
    result = uc.run("-t", "clean", cwd=tmp_path)
    assert result.code == 1 and "already exists (mode errorifexists)" in result.err, str(result)
    assert_unchanged(before, tree_digest(tmp_path, skip=["uc/.ubunye"]))


# --- a write that fails half way leaves the previous output in place ----------------------------

DISK_FULL = task_code("""
import errno
from ubunye.engine.backends import pandas_backend

real = pandas_backend.write_arrow
calls = []

def full(table, path, fmt):
    calls.append(path)
    if len(calls) > 1:  # the second part file: the disk is full half way through the write
        path.write_bytes(b"PAR1 half a file")
        raise OSError(errno.ENOSPC, "No space left on device")
    real(table, path, fmt)

pandas_backend.write_arrow = full
return {"clean": sources["people"]}
""")


@pytest.mark.parametrize("mode", ["overwrite", "append"])
def test_data_loss_a_disk_full_mid_write_leaves_the_old_output(tmp_path: Path, mode: str) -> None:
    uc = Usecase(tmp_path / "uc")
    uc.parquet("people.parquet")
    old = uc.root / "out"
    old.mkdir()
    pq.write_table(PEOPLE.slice(0, 1), old / "part-old.parquet")
    (old / "_SUCCESS").write_bytes(b"")
    config = ONE_OUT.format(src=f"{uc.root}/data/people.parquet", out=str(old), fmt="parquet", mode=mode,
                            extra=", partition_by: [id]")  # one part file per id: it fails on the second
    uc.task("clean", config, DISK_FULL)
    before = tree_digest(tmp_path, skip=["uc/.ubunye"])
    result = uc.run("-t", "clean", "--lineage", cwd=tmp_path)
    assert result.code == 1 and "No space left on device" in result.err, str(result)
    assert_unchanged(before, tree_digest(tmp_path, skip=["uc/.ubunye"]))
    assert [r["status"] for r in uc.records("clean")] == ["error"]


def test_escape_a_secret_in_a_refused_url_is_masked(tmp_path: Path) -> None:
    uc, config = build(tmp_path, Probe(out="s3a://AKIAX:s3cr3t-Pw@bucket/in", src="s3://bucket/in"))
    result = uc.run("-t", "clean", cwd=tmp_path)
    assert_one_line_error(result, naming=[config, "CONFIG.outputs.clean.path"])
    assert_no_secret("s3cr3t-Pw", result)
    said = in_process("validate", *uc.base_args()[:6], "-t", "clean", cwd=tmp_path)
    assert said.code == 1
    assert_no_secret("s3cr3t-Pw", said)
