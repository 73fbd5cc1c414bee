"""Data loss, escape and traceback probes (issue 35): the files the CLI writes itself.

``ubunye lineage report -o``, ``ubunye spark init-script`` and ``ubunye spark jars --to`` write
through one helper (:mod:`ubunye.userwrites`): never inside the record store, never through a
symbolic link, an existing file replaced only when the command wrote it (or with ``--force``),
every refusal and errno one ``error:`` line naming the path, no temporary file left behind (the
notebook view's ``save`` follows the same rules). The report page is bounded (newest runs of each
task in full, the rest counted; at most so many bytes of records) and shows Unicode direction
controls escaped, as the terminal does. Every errno elsewhere (a store, a task folder, a record or
a data file that is a loop of links) is one line naming the path, never a traceback nor a silent
skip; ``ubunye hash`` reads and prints a folder named in another encoding.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness import Result, assert_one_line_error, cli, cli_env

from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.store import FileStore

H = "sha256:" + "1" * 64


def record(task: str, run: str, day: int, *, location: str = "/lake/out", usecase: str = "u") -> RunRecord:
    return RunRecord(run_id=run, task_path=f"{usecase}/p/{task}", usecase=usecase, package="p", task_name=task,
                     started_at=f"2026-11-{day:02d}T10:00:00+00:00", duration_sec=1.0, status="success",
                     backend="pandas",
                     outputs=[Step("out", "output", "parquet", location, 3, H, H, "rows-v1", hash_engine="arrow")])


def usecase_with_runs(root: Path, runs: int = 2, task: str = "t", location: str = "/lake/out") -> Path:
    """``root`` a usecase folder: a task folder (config.yaml, transformations.py) and ``runs`` records."""
    store = FileStore(root / ".ubunye" / "lineage")
    for i in range(runs):
        store.write(record(task, f"r{i:03d}", 1 + i % 28, location=location))
    code = root / "u" / "p" / task
    code.mkdir(parents=True)
    (code / "config.yaml").write_text("CONFIG: {}\n", encoding="utf-8")
    (code / "transformations.py").write_text("# the task's code\n", encoding="utf-8")
    return root


def report(root: Path, *args: str) -> Result:
    return cli("lineage", "report", "-d", str(root), *args)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def run_file(root: Path) -> Path:
    return root / ".ubunye" / "lineage" / "u" / "p" / "t" / "r000.json"


# --- report -o: data loss and escape ------------------------------------------------------------

def test_data_loss_report_onto_a_record_in_the_store_is_refused_even_with_force(tmp_path: Path) -> None:
    root = usecase_with_runs(tmp_path / "uc")
    victim = run_file(root)
    before = victim.read_bytes()
    for extra in ((), ("--force",)):
        done = report(root, "-o", str(victim), *extra)
        assert_one_line_error(done, naming=[str(victim), "store"])
        assert victim.read_bytes() == before
    listed = cli("lineage", "list", "-d", str(root), "--json")
    assert listed.code == 0 and "r000" in listed.out and "warning" not in listed.err, str(listed)


def test_escape_report_through_a_linked_folder_into_the_store_is_refused(tmp_path: Path) -> None:
    root = usecase_with_runs(tmp_path / "uc")
    link = tmp_path / "site"
    link.symlink_to(run_file(root).parent)
    done = report(root, "-o", str(link / "page.html"), "--force")
    assert_one_line_error(done, naming=[str(link / "page.html")])
    assert sorted(p.name for p in run_file(root).parent.iterdir() if p.is_file()) == ["r000.json", "r001.json"]


def test_data_loss_report_onto_the_tasks_config_or_code_is_refused_without_force(tmp_path: Path) -> None:
    root = usecase_with_runs(tmp_path / "uc")
    for name in ("config.yaml", "transformations.py"):
        victim = root / "u" / "p" / "t" / name
        before = victim.read_bytes()
        done = report(root, "-o", str(victim))
        assert_one_line_error(done, naming=[str(victim), "--force"])
        assert victim.read_bytes() == before and leftovers(victim.parent) == []
    forced = report(root, "-o", str(root / "u" / "p" / "t" / "config.yaml"), "--force")  # asked for: done
    assert forced.code == 0, str(forced)
    assert (root / "u" / "p" / "t" / "config.yaml").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_report_replaces_its_own_page_without_force(tmp_path: Path) -> None:
    root = usecase_with_runs(tmp_path / "uc")
    page = tmp_path / "out" / "report.html"
    for _ in range(2):
        done = report(root, "-o", str(page))
        assert done.code == 0, str(done)
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>") and leftovers(page.parent) == []
    assert page.stat().st_mode & 0o777 == 0o666 & ~current_umask()  # as open() makes a file


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("points_to", ["a file", "nothing", "a record in the store"])
def test_escape_report_onto_a_symbolic_link_is_refused_and_the_link_kept(tmp_path: Path, points_to: str) -> None:
    root = usecase_with_runs(tmp_path / "uc")
    target = {"a file": tmp_path / "victim.txt", "nothing": tmp_path / "nowhere",
              "a record in the store": run_file(root)}[points_to]
    if points_to == "a file":
        target.write_text("keep me\n", encoding="utf-8")
    before = target.read_bytes() if target.exists() else None
    link = tmp_path / "report.html"
    link.symlink_to(target)
    for extra in ((), ("--force",)):
        done = report(root, "-o", str(link), *extra)
        assert_one_line_error(done, naming=[str(link)])
        assert link.is_symlink() and os.readlink(link) == str(target)
    assert (target.read_bytes() if target.exists() else None) == before
    assert leftovers(tmp_path) == []


def test_report_refuses_its_output_before_reading_the_store(tmp_path: Path) -> None:
    root = usecase_with_runs(tmp_path / "uc")
    store = loop(tmp_path / "store")  # a store no one can read: reading it fails
    victim = root / "u" / "p" / "t" / "config.yaml"
    done = report(root, "--lineage-dir", str(store), "-o", str(victim))
    assert_one_line_error(done, naming=[str(victim), "--force"])


@pytest.mark.parametrize("usecase", ["missing", "a-file"])
def test_lying_result_report_of_a_store_that_is_not_there_is_no_empty_page(tmp_path: Path, usecase: str) -> None:
    root = tmp_path / usecase
    if usecase == "a-file":
        root.write_text("x", encoding="utf-8")
    page = tmp_path / "r.html"
    done = report(root, "-o", str(page))
    assert_one_line_error(done, naming=[str(root / ".ubunye" / "lineage")])
    assert not page.exists()


def test_escape_a_planted_temporary_link_is_never_written_through(tmp_path: Path) -> None:
    root = usecase_with_runs(tmp_path / "uc")
    victim = planted_link(tmp_path / "site" / ".report.html.tmp")  # the name the page's temp file once had
    done = report(root, "-o", str(tmp_path / "site" / "report.html"))
    assert done.code == 0, str(done)
    assert victim.read_text(encoding="utf-8") == "keep me\n"


@pytest.mark.parametrize("case", ["folder", "under-a-file", "name-too-long", "new-folders-then-too-long"])
def test_traceback_report_to_an_unwritable_place_is_one_line_and_leaves_nothing(tmp_path: Path, case: str) -> None:
    root = usecase_with_runs(tmp_path / "uc")
    where = tmp_path / "place"
    where.mkdir()
    (where / "file").write_text("x", encoding="utf-8")
    output = {"folder": where, "under-a-file": where / "file" / "r.html",
              "name-too-long": where / ("r" * 300 + ".html"),
              "new-folders-then-too-long": where / "new" / "deeper" / ("r" * 300 + ".html")}[case]
    done = report(root, "-o", str(output))
    assert_one_line_error(done, naming=[str(output)])
    assert "[Errno" not in done.err
    assert sorted(p.name for p in where.iterdir()) == ["file"]


def test_report_to_a_name_of_the_longest_length_a_folder_allows_is_written(tmp_path: Path) -> None:
    root = usecase_with_runs(tmp_path / "uc")
    page = tmp_path / "site" / ("r" * 250 + ".html")  # 255 bytes: NAME_MAX
    done = report(root, "-o", str(page))
    assert done.code == 0, str(done)
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>") and leftovers(page.parent) == []


# --- report page: bounded, direction controls escaped -------------------------------------------

def test_report_page_shows_the_newest_runs_of_each_task_in_full_and_counts_the_rest(tmp_path: Path) -> None:
    root = usecase_with_runs(tmp_path / "uc", runs=60)
    page = tmp_path / "r.html"
    done = report(root, "-o", str(page), "--json")
    assert done.code == 0, str(done)
    text = page.read_text(encoding="utf-8")
    assert text.count('<script type="application/json" data-record="') == 50
    assert "10 older runs" in text and json.loads(done.out)["runs"] == 60
    few = report(root, "-o", str(page), "--runs", "5")
    assert few.code == 0 and page.read_text(encoding="utf-8").count('<script type="application/json" data-record="') == 5, str(few)
    bad = report(root, "-o", str(page), "--runs", "0")
    assert bad.code == 2 and "Traceback" not in bad.err


def test_report_page_holds_at_most_its_budget_of_whole_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ubunye.lineage import report_model
    from ubunye.lineage.report_html import render_page

    root = usecase_with_runs(tmp_path / "uc", runs=5)
    store = FileStore(root / ".ubunye" / "lineage")
    one = len(next(iter(report_model.build_report(store).records.values())))
    monkeypatch.setattr(report_model, "RECORD_BYTES", 2 * one + 10)  # two records' worth (a forged store's are 10 MB)
    built = report_model.build_report(store)
    assert len(built.records) == 2 and built.run_count == 5 and len(built.tasks[0]["runs"]) == 5
    assert "3 runs' whole records left out" in render_page(built)


def test_report_shows_direction_controls_in_names_escaped(tmp_path: Path) -> None:
    controls = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
    root = usecase_with_runs(tmp_path / "uc", task="exe\u202etxt.sh", location=f"/lake/{controls}/out")
    page = tmp_path / "r.html"
    done = report(root, "-o", str(page))
    assert done.code == 0, str(done)
    text = page.read_text(encoding="utf-8")
    assert not any(c in text for c in controls)
    assert "exe\\u202etxt.sh" in text


def test_the_terminal_shows_direction_controls_in_names_escaped(tmp_path: Path) -> None:
    root = usecase_with_runs(tmp_path / "uc", task="exe\u202etxt.sh")
    shown = cli("lineage", "search", "-d", str(root))
    assert shown.code == 0 and "u/p/exe\\u202etxt.sh  r001" in shown.out and "\u202e" not in shown.out, str(shown)
    doc = cli("lineage", "show", "-d", str(root))  # JSON: the same value, the control as its \u escape
    assert doc.code == 0 and "\u202e" not in doc.out and json.loads(doc.out)["task_name"] == "exe\u202etxt.sh"


# --- spark init-script and spark jars ----------------------------------------------------------

FAKE_JARS = """
import sys
from pathlib import Path
from ubunye.spark import jar, ol_jar
folder = Path(sys.argv[1])
infos = [jar.JarInfo(folder / "ubunye-spark_3.5_2.12-0.jar", "0", "3.5", "2.12",
                     description=folder / "ubunye-spark_3.5_2.12-0.json")]
extensions = [ol_jar.ExtensionJar(folder / "ubunye-spark-openlineage_3.5_2.12-0.jar", "0", "3.5", "2.12", "1",
                                  description=folder / "ubunye-spark-openlineage_3.5_2.12-0.json")]
jar.available_jars = lambda *a, **k: infos
ol_jar.extension_jars = lambda *a, **k: extensions
from ubunye.cli.app import main
sys.exit(main(sys.argv[2:]))
"""


def spark(tmp_path: Path, *args: str) -> Result:
    """``ubunye spark ARGS`` in a fresh process whose package holds one fake jar and one fake
    OpenLineage extension jar (each with its JSON), whether or not this checkout's are built."""
    packaged = tmp_path / "packaged"
    if not packaged.exists():
        packaged.mkdir()
        for name in ("ubunye-spark_3.5_2.12-0", "ubunye-spark-openlineage_3.5_2.12-0"):
            (packaged / f"{name}.jar").write_bytes(b"jar bytes of " + name.encode())
            (packaged / f"{name}.json").write_text("{}", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", FAKE_JARS, str(packaged), "spark", *args], env=cli_env(),
                          capture_output=True, text=True, timeout=120)
    return Result(proc.returncode, proc.stdout, proc.stderr, list(args))


def test_data_loss_init_script_keeps_an_edited_script_without_force(tmp_path: Path) -> None:
    volume = tmp_path / "Volumes" / "main" / "tools"
    first = spark(tmp_path, "init-script", "--volume", str(volume))
    assert first.code == 0, str(first)
    again = spark(tmp_path, "init-script", "--volume", str(volume))  # its own, unedited: replaced
    assert again.code == 0, str(again)
    script = volume / "install-ubunye.sh"
    script.write_text(script.read_text(encoding="utf-8") + "echo the admin's line\n", encoding="utf-8")
    edited = script.read_bytes()
    done = spark(tmp_path, "init-script", "--volume", str(volume))
    assert_one_line_error(done, naming=[str(script), "--force"])
    assert script.read_bytes() == edited and leftovers(volume) == []
    forced = spark(tmp_path, "init-script", "--volume", str(volume), "--force")
    assert forced.code == 0 and b"admin" not in script.read_bytes(), str(forced)


def planted_link(link: Path) -> Path:
    """``link`` (its folder made) a symbolic link to a file beside its folder that must be kept."""
    link.parent.mkdir(parents=True, exist_ok=True)
    victim = link.parent.parent / "victim.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    link.symlink_to(victim)
    return victim


@pytest.mark.parametrize("name", ["tools\u202eexe", os.fsdecode(b"caf\xe9")])
def test_init_script_refuses_a_volume_name_its_script_cannot_carry(tmp_path: Path, name: str) -> None:
    done = spark(tmp_path, "init-script", "--volume", f"/Volumes/main/{name}", "--print")
    assert_one_line_error(done, naming=["--volume"])
    assert done.out == ""


def test_escape_init_script_never_writes_through_a_link(tmp_path: Path) -> None:
    volume = tmp_path / "vol"
    victim = planted_link(volume / "install-ubunye.sh")
    for extra in ((), ("--force",)):
        done = spark(tmp_path, "init-script", "--volume", str(volume), *extra)
        assert_one_line_error(done, naming=[str(volume / "install-ubunye.sh"), "symbolic link"])
    assert victim.read_text(encoding="utf-8") == "keep me\n"
    assert not (volume / "jars").exists()  # refused before any jar was copied


def test_escape_spark_jars_never_writes_through_a_link(tmp_path: Path) -> None:
    target = tmp_path / "to"
    victim = planted_link(target / "ubunye-spark_3.5_2.12-0.json")
    done = spark(tmp_path, "jars", "--to", str(target), "--force")
    assert_one_line_error(done, naming=["ubunye-spark_3.5_2.12-0.json", "symbolic link"])
    assert victim.read_text(encoding="utf-8") == "keep me\n"
    assert sorted(p.name for p in target.iterdir()) == ["ubunye-spark_3.5_2.12-0.json"]


# --- errno lines: a loop of links, a name in another encoding ---------------------------------

def loop(path: Path) -> Path:
    """``path`` a symbolic link to itself (every open of it fails with ELOOP)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(path.name)
    return path


@pytest.mark.parametrize("command", [["lineage", "list"], ["lineage", "search"], ["lineage", "openlineage"]])
def test_traceback_a_store_that_is_a_loop_of_links_is_one_line_naming_it(tmp_path: Path, command: list) -> None:
    store = loop(tmp_path / "uc" / ".ubunye" / "lineage")
    done = cli(*command, "-d", str(tmp_path / "uc"))
    assert_one_line_error(done, naming=[str(store), "symbolic links"])
    assert "[Errno" not in done.err


def test_lying_verdict_a_record_that_is_a_loop_of_links_is_a_damaged_record(tmp_path: Path) -> None:
    root = usecase_with_runs(tmp_path / "uc")
    broken = loop(run_file(root).parent / "zz.json")
    listed = cli("lineage", "list", "-d", str(root))  # the others listed, this one named in a warning
    assert listed.code == 0 and "r000" in listed.out and "r001" in listed.out, str(listed)
    assert [line for line in listed.err.splitlines() if line.strip()] == [
        f"warning: skipping unreadable run record {broken}: Too many levels of symbolic links"]
    verified = cli("lineage", "verify", "-d", str(root))  # it may be the latest run: never a verdict
    assert_one_line_error(verified, naming=[str(broken)])


def test_traceback_a_task_folder_that_is_a_loop_of_links_is_one_line_naming_it(tmp_path: Path) -> None:
    task = loop(tmp_path / "uc" / "shop" / "orders" / "t")
    for args in (["run", "-d", str(tmp_path / "uc"), "-u", "shop", "-p", "orders", "-t", "t"],
                 ["--task-dir", str(task)]):
        done = cli(*args)
        assert_one_line_error(done, naming=[str(task), "symbolic links"])
    checked = cli("validate", "-d", str(tmp_path / "uc"), "-u", "shop", "-p", "orders", "-t", "t")
    assert checked.code == 1 and "symbolic links" in checked.text, str(checked)


def test_traceback_hash_of_a_loop_of_links_says_so_in_one_line(tmp_path: Path) -> None:
    done = cli("hash", str(loop(tmp_path / "data")))
    assert_one_line_error(done, naming=[str(tmp_path / "data"), "symbolic links"])


@pytest.mark.parametrize("link", ["loop", "dangling"])
def test_lying_result_hash_never_leaves_out_a_data_file_it_cannot_follow(tmp_path: Path, link: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = tmp_path / "data"
    data.mkdir()
    pq.write_table(pa.table({"a": [1, 2]}), data / "part-0.parquet")
    bad = loop(data / "part-1.parquet") if link == "loop" else data / "part-1.parquet"
    if link == "dangling":
        bad.symlink_to(tmp_path / "gone.parquet")
    done = cli("hash", str(data))
    reason = "Too many levels of symbolic links" if link == "loop" else "No such file or directory"
    assert_one_line_error(done, naming=[str(bad), reason])


def test_hash_of_a_folder_named_in_another_encoding_works(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"a": [1, 2]}), tmp_path / "part.parquet")
    folder = os.path.join(os.fsencode(tmp_path), b"caf\xe9")  # Latin-1, not UTF-8
    os.mkdir(folder)
    os.rename(tmp_path / "part.parquet", os.path.join(folder, b"part.parquet"))
    done = cli("hash", os.fsdecode(folder), "--json")
    assert done.code == 0 and "Traceback" not in done.err, str(done)
    assert json.loads(done.out)["row_count"] == 2
    strict = cli("hash", os.fsdecode(folder), env={"PYTHONIOENCODING": "utf-8"})  # a desktop's en_US.UTF-8
    assert strict.code == 0 and "caf\\xe9" in strict.out and "Traceback" not in strict.err, str(strict)
    missing = cli("hash", os.fsdecode(folder) + "/nope", env={"PYTHONIOENCODING": "utf-8"})
    assert_one_line_error(missing, naming=["caf\\xe9/nope"])


def test_traceback_an_errno_no_command_caught_is_one_line_naming_the_path(capsys: pytest.CaptureFixture) -> None:
    import errno

    from ubunye.cli.app import internal_error

    code = internal_error(OSError(errno.ENOSPC, "No space left on device", "/full/disk/file"))
    err = capsys.readouterr().err
    assert code == 2 and err == "error: /full/disk/file: No space left on device\n"
    assert internal_error(OSError(errno.ENOSPC, "No space left on device")) == 2  # no path named: the reason
    assert capsys.readouterr().err == "error: No space left on device\n"


def test_a_mount_without_link_or_rename_still_gets_the_file_and_its_replacement(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    from ubunye import userwrites

    def unsupported(*args: object) -> None:
        raise OSError(errno.ENOSYS, "Function not implemented")

    monkeypatch.setattr(userwrites.os, "link", unsupported)
    monkeypatch.setattr(userwrites.os, "replace", unsupported)
    page = tmp_path / "vol" / "page.html"
    mine = lambda head: head.startswith(b"mine")  # noqa: E731
    assert userwrites.write_file(page, b"mine 1", own=mine) and page.read_bytes() == b"mine 1"
    assert userwrites.write_file(page, b"mine 2", own=mine) and page.read_bytes() == b"mine 2"
    assert not userwrites.write_file(page, b"mine 2", own=mine)  # the same bytes: nothing written
    assert leftovers(page.parent) == [] and sorted(p.name for p in page.parent.iterdir()) == ["page.html"]


@pytest.mark.parametrize("command", ["jars", "init-script"])
def test_data_loss_spark_jars_and_init_script_never_write_into_a_record_store(tmp_path: Path, command: str) -> None:
    root = usecase_with_runs(tmp_path / "uc")
    task = run_file(root).parent
    before = sorted(p.name for p in task.iterdir())
    args = ["--to", str(task)] if command == "jars" else ["--volume", str(task)]
    done = spark(tmp_path, command, *args, "--force")  # a .json beside the records would read as a damaged run
    assert_one_line_error(done, naming=[str(task), "store"])
    assert sorted(p.name for p in task.iterdir()) == before


def test_data_loss_spark_jars_never_write_into_a_store_of_another_name(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "records")  # --lineage-dir records: no default name, no index yet
    store.write(record("t", "r000", 1))
    task = tmp_path / "records" / "u" / "p" / "t"
    (task / "_started").mkdir()  # as every run's start record makes it
    done = spark(tmp_path, "jars", "--to", str(task), "--force")
    assert_one_line_error(done, naming=[str(task), "store"])
    assert sorted(p.name for p in task.iterdir() if p.name not in ("_chain", "_signed")) == ["_started", "r000.json"]


def test_data_loss_report_into_another_store_is_refused(tmp_path: Path) -> None:
    root = usecase_with_runs(tmp_path / "uc")
    other = usecase_with_runs(tmp_path / "other")  # its store is not the one read
    page = run_file(other).parent / "report.html"
    done = report(root, "-o", str(page), "--force")
    assert_one_line_error(done, naming=[str(page), "store"])
    assert not page.exists()


def test_escape_the_store_under_another_name_is_still_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bind mount or a case-insensitive file system spells the store's folder another way: its
    real path differs, its identity (device, inode) does not. (No bind mount can be made here: the
    identity of one folder is given to the other.)"""
    from ubunye import userwrites
    from ubunye.userfiles import UserFileError

    store, alias = tmp_path / "store", tmp_path / "alias"
    store.mkdir()
    alias.mkdir()
    same = userwrites._identity(str(store))
    original = userwrites._identity
    monkeypatch.setattr(userwrites, "_identity", lambda p: same if p == str(alias) else original(p))
    with pytest.raises(UserFileError, match="inside"):
        userwrites.check_not_protected(alias / "page.html", [store])
    userwrites.check_not_protected(tmp_path / "page.html", [store])  # beside it: fine


def test_data_loss_the_notebook_views_save_follows_the_same_rules(tmp_path: Path) -> None:
    import ubunye.lineage
    from ubunye.userfiles import UserFileError

    root = usecase_with_runs(tmp_path / "uc")
    view = ubunye.lineage.view(root)
    config = root / "u" / "p" / "t" / "config.yaml"
    for target in (config, run_file(root)):
        before = target.read_bytes()
        with pytest.raises(UserFileError):
            view.save(target)
        assert target.read_bytes() == before
    page = view.save(tmp_path / "page.html")
    assert view.save(page) == page  # its own page: replaced
    with pytest.raises(UserFileError, match="store"):
        view.save(run_file(root), force=True)


KILLED_WRITE = """
import os, signal, sys
from ubunye import userwrites
real = userwrites.os.fsync
def fsync(fd):  # the signal lands while the page is being written
    real(fd)
    os.kill(os.getpid(), signal.SIGTERM)
userwrites.os.fsync = fsync
from ubunye.cli.app import main
sys.exit(main(sys.argv[1:]))
"""


def test_traceback_a_signal_while_the_page_is_written_leaves_nothing_behind(tmp_path: Path) -> None:
    root = usecase_with_runs(tmp_path / "uc")
    page = tmp_path / "new" / "deeper" / "report.html"
    proc = subprocess.run([sys.executable, "-c", KILLED_WRITE, "lineage", "report", "-d", str(root), "-o", str(page)],
                          env=cli_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 128 + 15 and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "new").exists()  # no temporary file, no folder it made
