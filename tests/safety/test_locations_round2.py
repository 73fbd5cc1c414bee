"""Output locations, second round (issue 35): an output that is, holds or sits inside a file the
run reads or the project owns, a code scan that gives up, and output folders' permissions.

Each refused probe goes through ``test_outputs``' check: ``run`` says it in one ``error:`` line
naming config.yaml and the key (exit 2), nothing anywhere changes, and ``validate`` and ``plan``
refuse the same config. ``R`` is the usecase folder, ``T`` its parent (the working directory),
``D`` ``R/data``.
"""
from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Callable

import pyarrow.parquet as pq
import pytest

from harness import PEOPLE, Usecase, assert_one_line_error, assert_unchanged, task_code, tree_digest
from test_outputs import ONE_OUT, Probe, _refuse_check, both, build, expand, in_process, link, planted

TASK = "R/shop/orders/clean"
SECRET = ', options: {{token: "secret://file/{}"}}'


def secret(rel: str = "secrets/token") -> Callable[[Path, Path], None]:
    """A secret file ``T/<rel>`` (beside the usecase folder, as ``/run/secrets`` would be)."""
    def make(root: Path, top: Path) -> None:
        path = top / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("s3cr3t-Pw\n")
    return make


def file_at(rel: str, text: str = "id\n1\n") -> Callable[[Path, Path], None]:
    def make(root: Path, top: Path) -> None:
        path = Path(expand(rel, root, top))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return make


def a_usecase(rel: str) -> Callable[[Path, Path], None]:
    """Another usecase folder at ``R/<rel>``: a task's code and a record store."""
    def make(root: Path, top: Path) -> None:
        for file in ("shop/orders/t/config.yaml", "shop/orders/t/transformations.py",
                     ".ubunye/lineage/shop/orders/t/run-1.json"):
            (root / rel / file).parent.mkdir(parents=True, exist_ok=True)
            (root / rel / file).write_text("{}\n")
    return make


REFUSED = {
    # a file the project owns is never replaced by a folder of part files
    "the task's transformations.py": Probe(out="{{ task_dir }}/transformations.py"),
    "the task's config.yaml": Probe(out=f"{TASK}/config.yaml"),
    "a helper module beside the task": Probe(out=f"{TASK}/helpers.py", setup=planted("shop/orders/clean/helpers.py")),
    "the package's pipeline.yaml": Probe(out="R/shop/orders/pipeline.yaml",
                                         setup=planted("shop/orders/pipeline.yaml", "tasks: [clean]\n")),
    "transformations.py, append": Probe(out=f"{TASK}/transformations.py", mode="append"),
    "transformations.py, ignore": Probe(out=f"{TASK}/transformations.py", mode="ignore"),
    "transformations.py, errorifexists": Probe(out=f"{TASK}/transformations.py", mode="errorifexists"),
    "transformations.py, partitioned": Probe(out=f"{TASK}/transformations.py", extra=", partition_by: [name]"),
    "transformations.py as csv": Probe(out=f"{TASK}/transformations.py", fmt="csv"),
    # spellings of the same file
    "transformations.py through ..": Probe(out="R/data/../shop/orders/clean/transformations.py"),
    "transformations.py with a trailing slash": Probe(out=f"{TASK}/transformations.py/"),
    "transformations.py, relative": Probe(out="shop/orders/clean/transformations.py"),
    "transformations.py, relative through ..": Probe(out="data/../shop/orders/clean/./transformations.py"),
    "transformations.py as a file: URL": Probe(out=f"file://{TASK}/transformations.py"),
    "a symlink to transformations.py": Probe(out="T/codelink", setup=link("codelink", f"{TASK}/transformations.py")),
    "a symlink to config.yaml, through a symlinked folder": Probe(
        out="T/tasklink/config.yaml", setup=link("tasklink", TASK)),
    # any regular file: a write would replace it by a folder
    "a data file that is not an input": Probe(out="D/other.csv", setup=file_at("D/other.csv")),
    "a data file, append": Probe(out="D/other.csv", mode="append", setup=file_at("D/other.csv")),
    "a data file, ignore": Probe(out="D/other.csv", mode="ignore", setup=file_at("D/other.csv")),
    "a notes file in the working directory": Probe(out="T/notes.txt", setup=file_at("T/notes.txt")),
    # inside a file: no folder can be made there
    "inside config.yaml": Probe(out=f"{TASK}/config.yaml/out"),
    "inside a data file, deeper": Probe(out="D/other.csv/a/b", setup=file_at("D/other.csv")),
    # the files a secret://file of the same config reads
    "the secret file": Probe(out="T/secrets/token", extra=SECRET.format("T/secrets/token"), setup=secret()),
    "the folder holding the secret file": Probe(out="T/secrets", extra=SECRET.format("T/secrets/token"),
                                                setup=secret()),
    "the secret file reached through a symlink": Probe(
        out="T/secrets/token", extra=SECRET.format("T/tokenlink"),
        setup=both(secret(), link("tokenlink", "T/secrets/token"))),
    "the secret's real folder, the secret named through a symlink": Probe(
        out="T/secrets", extra=SECRET.format("T/tokenlink"),
        setup=both(secret(), link("tokenlink", "T/secrets/token"))),
    "the secret's folder through a symlink to it": Probe(
        out="T/dirlink", extra=SECRET.format("T/secrets/token"), setup=both(secret(), link("dirlink", "T/secrets"))),
    "the secret file, relative to the usecase folder": Probe(
        out="../secrets/token", extra=SECRET.format("T/secrets/token"), setup=secret()),
    "the secret file named relative to the working directory": Probe(
        out="T/secrets", extra=SECRET.format("secrets/token"), setup=secret()),
    # code named in another case is code (a case-insensitive file system imports it)
    "a folder holding HELPERS.PY": Probe(out="R/lib", setup=planted("lib/HELPERS.PY")),
    "a folder holding Config.YAML": Probe(out="R/lib", setup=planted("lib/task/Config.YAML")),
    "a folder holding a notebook": Probe(out="R/lib", setup=planted("lib/explore.ipynb", "{}")),
    "a folder holding a git checkout": Probe(out="R/lib", setup=planted("lib/.git/HEAD", "ref: refs/heads/main\n")),
    "inside a repository's .git folder": Probe(out="R/lib/.git/objects/out",
                                               setup=planted("lib/.git/HEAD", "ref: refs/heads/main\n")),
    # nested usecases: another usecase's store is not data
    "another usecase's store folder": Probe(out="R/inner/.ubunye", setup=a_usecase("inner")),
    "inside another usecase's store": Probe(out="R/inner/.ubunye/lineage/shop", setup=a_usecase("inner")),
    "a folder holding another usecase's store only": Probe(out="R/inner/.ubunye/..", setup=both(
        a_usecase("inner"), lambda r, t: shutil.rmtree(r / "inner" / "shop"))),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_data_loss_an_output_on_a_file_the_run_reads_or_owns_is_refused(tmp_path: Path, name: str) -> None:
    _refuse_check(tmp_path, REFUSED[name])


def test_data_loss_the_spark_backend_refuses_a_code_file_as_output_before_it_starts(tmp_path: Path) -> None:
    uc, config = build(tmp_path, Probe(out=f"{TASK}/transformations.py"))
    before = tree_digest(tmp_path)
    result = uc.run("-t", "clean", backend="spark", cwd=tmp_path)
    assert_one_line_error(result, code=2, naming=[config, "CONFIG.outputs.clean.path",
                                                  "not a folder of part files"])
    assert_unchanged(before, tree_digest(tmp_path))


def _many(folder: Path, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"part-{i:05d}.parquet").touch()


def test_data_loss_a_code_scan_that_cannot_finish_refuses(tmp_path: Path) -> None:
    """More than 20,000 entries below an output: another usecase's code among them is not assumed away."""
    from ubunye.engine.outputs import CODE_SCAN_LIMIT

    def plant(root: Path, top: Path) -> None:
        _many(root / "big", CODE_SCAN_LIMIT + 1)
        a_usecase("big/zz-other")(root, top)

    uc, config = build(tmp_path, Probe(out="R/big", setup=plant))
    before = tree_digest(tmp_path)
    result = uc.run("-t", "clean", cwd=tmp_path)
    assert_one_line_error(result, code=2, naming=[config, "CONFIG.outputs.clean.path", "cannot vouch for",
                                                  f"more than {CODE_SCAN_LIMIT:,} entries"])
    assert_unchanged(before, tree_digest(tmp_path))
    said = in_process("validate", *uc.base_args()[:6], "-t", "clean", cwd=tmp_path)
    assert said.code == 1 and "cannot vouch for" in said.err, str(said)


def test_escape_an_existing_data_folder_is_still_replaced(tmp_path: Path) -> None:
    """The new rules leave the ordinary case alone: a data folder (part files, _SUCCESS, a
    partition folder, hidden files) is replaced, and a new folder beside a file is made."""
    def old(root: Path, top: Path) -> None:
        (root / "out" / "name=a").mkdir(parents=True)
        pq.write_table(PEOPLE, root / "out" / "name=a" / "part-0.parquet")
        (root / "out" / "_SUCCESS").touch()
        (root / "out" / ".part-0.parquet.crc").touch()
    uc, _ = build(tmp_path, Probe(out="R/out", setup=old))
    assert uc.run("-t", "clean", cwd=tmp_path).code == 0
    assert pq.read_table(uc.root / "out").num_rows == PEOPLE.num_rows


@pytest.mark.parametrize("partitioned", [False, True])
def test_escape_pandas_output_folders_honour_the_umask(tmp_path: Path, partitioned: bool) -> None:
    """A downstream job's account reads what the run wrote: folders 0755 under umask 022 (as Spark's)."""
    uc, _ = build(tmp_path, Probe(out="R/out/deep", extra=", partition_by: [name]" if partitioned else ""))
    old = os.umask(0o022)
    try:
        assert uc.run("-t", "clean", cwd=tmp_path).code == 0
    finally:
        os.umask(old)
    folders = [uc.root / "out", uc.root / "out" / "deep", *(p for p in (uc.root / "out" / "deep").rglob("*")
                                                            if p.is_dir())]
    modes = {str(p.relative_to(uc.root)): oct(stat.S_IMODE(p.stat().st_mode)) for p in folders}
    assert set(modes.values()) == {"0o755"}, modes
    files = [p for p in (uc.root / "out").rglob("*") if p.is_file()]
    assert files and {oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == {"0o644"}


def test_escape_pandas_append_to_a_new_folder_honours_the_umask(tmp_path: Path) -> None:
    uc, _ = build(tmp_path, Probe(out="R/out", mode="append"))
    old = os.umask(0o027)
    try:
        assert uc.run("-t", "clean", cwd=tmp_path).code == 0
    finally:
        os.umask(old)
    assert oct(stat.S_IMODE((uc.root / "out").stat().st_mode)) == "0o750"


CASE_FOLDED = {
    "inside the input folder, spelled in another case": (Probe(out="R/DATA/Parts/new", src="D/parts"),
                                                        "is inside input 'people'"),
    "a folder holding the task, spelled in another case": (Probe(out="R/SHOP"), "contains the task folder"),
    "the store, spelled in another case": (Probe(out="R/.Ubunye/Lineage"), "is the location of the record store"),
}


@pytest.mark.parametrize("name", list(CASE_FOLDED))
def test_data_loss_on_a_case_insensitive_file_system_one_folder_in_two_spellings_is_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """macOS and Windows fold case: ``R/DATA`` is ``R/data``. Simulated here (every real name in
    this test's tree is lower case) by asking the file system for the lower-cased path."""
    from ubunye import locations

    probe, says = CASE_FOLDED[name]
    uc, config = build(tmp_path, probe)
    (uc.root / ".ubunye" / "lineage").mkdir(parents=True)
    def folded(path: str) -> object:
        try:
            found = os.stat(path.lower())
        except OSError:
            return None
        return found.st_dev, found.st_ino
    monkeypatch.setattr(locations, "_identity", folded, raising=False)
    said = in_process("validate", *uc.base_args()[:6], "-t", "clean", cwd=tmp_path)
    assert said.code == 1 and f"{config}: CONFIG.outputs.clean.path" in said.err and says in said.err, str(said)


def test_escape_a_folder_holding_jars_is_code(tmp_path: Path) -> None:
    _refuse_check(tmp_path, Probe(out="R/jars", setup=planted("jars/ubunye-spark_2.12.jar", "PK")))


SYSTEM = {
    # never run: on a checkout without the check the run would replace these folders
    "a top-level folder": ("/srv", {}),
    "a top-level folder from an empty env prefix": ("{{ env.UBUNYE_PROBE_BASE }}/srv", {"UBUNYE_PROBE_BASE": ""}),
    "a mount point": ("/dev/shm", {}),
}


@pytest.mark.parametrize("name", list(SYSTEM))
def test_data_loss_a_top_level_folder_or_a_mount_point_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  name: str) -> None:
    """Checked through validate and plan only (what ``run`` checks first, in this process)."""
    out, env = SYSTEM[name]
    if name == "a mount point" and not os.path.ismount(out):
        pytest.skip(f"{out} is not a mount point here")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    uc, config = build(tmp_path, Probe(out=out))
    said = in_process("validate", *uc.base_args()[:6], "-t", "clean", cwd=tmp_path)
    assert said.code == 1 and f"{config}: CONFIG.outputs.clean.path" in said.err, str(said)
    assert "top-level folder" in said.err or "mount point" in said.err, str(said)
    planned = in_process("plan", *uc.base_args()[:6], "-t", "clean", cwd=tmp_path)
    assert planned.code != 0 and f"{config}: CONFIG.outputs.clean.path" in planned.err, str(planned)


def test_data_loss_a_folder_holding_a_pipe_is_not_a_data_folder(tmp_path: Path) -> None:
    """A named pipe (as in ``/dev``) below an output: refused (tree_digest would block reading it)."""
    uc, config = build(tmp_path, Probe(out="R/spool"))
    (uc.root / "spool").mkdir()
    os.mkfifo(uc.root / "spool" / "in")
    result = uc.run("-t", "clean", cwd=tmp_path)
    assert_one_line_error(result, code=2, naming=[config, "CONFIG.outputs.clean.path", "not a file or folder"])
    assert stat.S_ISFIFO(os.lstat(uc.root / "spool" / "in").st_mode)


MAKES_A_FILE = task_code("""
from pathlib import Path
Path(self.config["CONFIG"]["outputs"]["clean"]["path"]).write_text("made by the task")
return {"clean": sources["people"]}
""")


def test_data_loss_a_file_made_at_the_output_path_by_task_code_is_not_replaced(tmp_path: Path) -> None:
    """The config check saw no file; the task made one there: the pandas writer refuses it (a failed run)."""
    uc = Usecase(tmp_path / "uc")
    uc.parquet("people.parquet")
    out = uc.root / "made.txt"
    uc.task("clean", ONE_OUT.format(src=uc.root / "data" / "people.parquet", out=out, fmt="parquet",
                                    mode="overwrite", extra=""), MAKES_A_FILE)
    result = uc.run("-t", "clean", "--lineage", cwd=tmp_path)
    assert result.code == 1 and "is a file" in result.err, str(result)
    assert out.read_text() == "made by the task"
    assert [r["status"] for r in uc.records("clean")] == ["error"]
