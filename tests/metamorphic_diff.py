"""Metamorphic cases of ``lineage compare``, ``diff`` and ``diff --rows`` (issue 42), shared by
``tests/test_metamorphic_diff.py`` (pandas) and ``integration/test_metamorphic_diff_spark.py``.

A case is a small dataset and an edit script: row edits (update, insert, delete, duplicate,
rotate) of the input, its columns in another order, a column dropped from the input or by run B's
code, an output declared in one run only, a run whose code raises or whose strict check breaks, an
output folder shared by both runs or deleted after them. Both runs go through the real engine and CLI; :func:`check` holds the three commands to
an oracle computed here from the rows as edited (multisets of plain tuples), never from the code
under test. Exit codes: docs/safety.md "Verdicts and exit codes" (0 only when proven the same).
"""
from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from click.testing import CliRunner, Result
from hypothesis import strategies as st

from ubunye.cli.app import cli

COLUMNS = ("id", "name", "age")
NAMES = ("ann", "bob", "zoë", "de la")  # never a number, an empty text or a null word: read back as text
MAX_EXAMPLES = int(os.environ.get("UBUNYE_METAMORPHIC_EXAMPLES", "0") or 0)  # 0: each suite's own bound

Row = tuple[int, str, int]
# each output's check: the same rule (id_between) on two outputs, with other bounds
CHECKS = {"copy": (2, 9), "extra": (1, 6)}


@dataclass(frozen=True)
class Case:
    """One generated case: run A reads ``rows``; run B reads ``rows`` after ``edits``."""

    rows: tuple[Row, ...]
    edits: tuple[tuple[Any, ...], ...] = ()
    drop_column: Optional[str] = None  # "input": run B's csv has no column ``name``; "output": run B's code
    # drops it from output ``copy``
    extra_a: bool = False  # output ``extra`` (the ids of the rows of age 21 or more) declared in run A
    extra_b: bool = False  # ... in run B
    fail: Optional[str] = None  # "a", "b" or "ab": that run's (those runs') code raises
    reorder: bool = False  # run B's csv has its columns in another order: rows-v1 sorts them by name
    strict: bool = False  # the check of output ``extra`` stops a run it breaks (severity fail, not warn)
    shared: bool = False  # output ``copy`` is one folder both runs write (mode overwrite): run B's write
    # replaces the rows run A hashed
    gone: Optional[str] = None  # "a" or "b": that run's output ``copy`` deleted after both runs
    probe: int = 0  # which step ``diff --name`` is asked about

    def lost(self, side: str) -> bool:
        """Run ``side``'s rows of ``copy`` are no longer where its record says (asked when both runs
        wrote ``copy``): its folder deleted, or the shared folder rewritten by run B."""
        return self.gone == side or (self.shared and (self.gone is not None or side == "a"))

    def columns(self, side: str, name: str) -> tuple[str, ...]:
        """The columns of input or output ``name`` in run ``side``."""
        if name == "extra":
            return ("id",)
        dropped = side == "b" and self.drop_column in (("input",) if name == "people" else ("input", "output"))
        return tuple(c for c in COLUMNS if not (dropped and c == "name"))

    def raises(self, side: str) -> bool:
        """Run ``side``'s code raises (nothing checked, nothing written)."""
        return side in (self.fail or "")

    def failed(self, side: str) -> bool:
        """Run ``side`` fails: its code raises, or its strict check of ``extra`` is broken."""
        lo, hi = CHECKS["extra"]
        broken = any(not lo <= r[0] <= hi for r in self.frame(side, "extra"))
        return self.raises(side) or (self.strict and (self.extra_a if side == "a" else self.extra_b) and broken)

    @property
    def failing(self) -> str:
        """The runs that fail: "", "a", "b" or "ab"."""
        return "".join(side for side in "ab" if self.failed(side))

    def frame(self, side: str, name: str) -> list[Row]:
        """The rows of input or output ``name`` in run ``side`` (all columns)."""
        rows = list(self.rows) if side == "a" else self.rows_b()
        return [r for r in rows if r[2] >= 21] if name == "extra" else rows

    def rows_b(self) -> list[Row]:
        """The input of run B: ``rows`` with the row edits applied in turn (one row stays)."""
        out = list(self.rows)
        for op, index, *rest in self.edits:
            i = index % len(out)
            if op == "update":
                column, value = rest
                row = list(out[i])
                row[COLUMNS.index(column)] = value
                out[i] = (row[0], row[1], row[2])
            elif op == "insert":
                out.insert(i, rest[0])
            elif op == "delete" and len(out) > 1:
                del out[i]
            elif op == "duplicate":
                out.insert(i, out[i])
            elif op == "rotate":  # the same rows in another order: rows-v1 proves them the same
                out = out[i:] + out[:i]
        return out


rows_ = st.tuples(st.integers(1, 9), st.sampled_from(NAMES), st.integers(18, 22))
edit_ = st.one_of(
    st.tuples(st.just("update"), st.integers(0, 50), st.just("id"), st.integers(1, 9)),
    st.tuples(st.just("update"), st.integers(0, 50), st.just("name"), st.sampled_from(NAMES)),
    st.tuples(st.just("update"), st.integers(0, 50), st.just("age"), st.integers(18, 22)),
    st.tuples(st.just("insert"), st.integers(0, 50), rows_),
    st.tuples(st.just("delete"), st.integers(0, 50)),
    st.tuples(st.just("duplicate"), st.integers(0, 50)),
    st.tuples(st.just("rotate"), st.integers(0, 50)),
)
cases = st.builds(
    Case,
    rows=st.lists(rows_, min_size=1, max_size=6).map(tuple),
    edits=st.lists(edit_, max_size=4).map(tuple),
    drop_column=st.sampled_from([None, None, "input", "output"]),
    extra_a=st.booleans(),
    extra_b=st.booleans(),
    fail=st.sampled_from([None, None, None, "a", "b", "ab"]),
    reorder=st.booleans(),
    strict=st.booleans(),
    shared=st.booleans(),
    gone=st.sampled_from([None, None, "a", "b"]),
    probe=st.integers(0, 2),
)


# ---------------------------------------------------------------- running the two runs


def cli_run(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.stderr, result.stderr
    return result


def config(extra: bool, strict: bool = False, shared: bool = False) -> str:
    copy = "out/copy\", mode: overwrite" if shared else "out/{{ dt }}/copy\""
    outputs = f'    copy: {{format: parquet, path: "{{{{ task_dir }}}}/../../../{copy}}}\n'
    if extra:
        outputs += '    extra: {format: parquet, path: "{{ task_dir }}/../../../out/{{ dt }}/extra"}\n'
    return ("MODEL: etl\nVERSION: \"0.1.0\"\nCONFIG:\n  inputs:\n"
            '    people: {format: csv, path: "{{ task_dir }}/../../../data/{{ dt }}/people.csv",'
            ' options: {header: "true", inferSchema: "true"}}\n'
            "  outputs:\n" + outputs + "  expectations:\n" + "".join(
                f"    {name}:\n      - {{kind: between, column: id, min: {lo}, max: {hi}, "
                f"severity: {'fail' if strict and name == 'extra' else 'warn'}}}\n"
                for name, (lo, hi) in CHECKS.items() if name == "copy" or extra))


def code(drop: bool, extra: bool, fail: bool) -> str:
    body = ['        people = sources["people"]']
    if fail:
        body.append('        raise RuntimeError("the edit script fails this run")')
    copy = 'people[[c for c in people.columns if c != "name"]]' if drop else "people"
    body.append(f'        out = {{"copy": {copy}}}')
    if extra:
        body.append('        out["extra"] = people[people["age"] >= 21][["id"]]')
    body.append("        return out")
    return "from ubunye import Task\n\n\nclass Clean(Task):\n    def transform(self, sources):\n" + \
        "\n".join(body) + "\n"


def run_both(folder: Path, case: Case, backend: str, *extra_args: str) -> None:
    """Run A on ``case.rows``, run B on the edited rows (config and code as the case says)."""
    task = folder / "shop" / "orders" / "clean"
    task.mkdir(parents=True)
    sides = (("2024-01-01", "a", False, case.extra_a), ("2024-01-02", "b", case.drop_column == "output", case.extra_b))
    for dt, side, drop, extra in sides:
        (folder / "data" / dt).mkdir(parents=True)
        columns = case.columns(side, "people")[::-1 if side == "b" and case.reorder else 1]
        text = "".join(",".join(str(r[COLUMNS.index(c)]) for c in columns) + "\n"
                       for r in [COLUMNS, *case.frame(side, "people")])
        (folder / "data" / dt / "people.csv").write_text(text, encoding="utf-8")
        (task / "config.yaml").write_text(config(extra, case.strict, case.shared), encoding="utf-8")
        (task / "transformations.py").write_text(code(drop, extra, case.raises(side)), encoding="utf-8")
        ran = cli_run("run", "-d", str(folder), "-u", "shop", "-p", "orders", "-t", "clean", "--backend", backend,
                      "-dt", dt, "--lineage", *extra_args)
        assert ran.exit_code == (1 if case.failed(side) else 0), ran.stdout + ran.stderr
    if case.gone is not None:
        shutil.rmtree(folder / "out" / ("" if case.shared else sides[case.gone == "b"][0]) / "copy", ignore_errors=True)


def lineage(folder: Path, *args: str) -> Result:
    return cli_run("lineage", args[0], "-d", str(folder), "-u", "shop", "-p", "orders", "-t", "clean", *args[1:])


# ---------------------------------------------------------------- the oracle


@dataclass
class Expected:
    """What one input or output must be reported as."""

    in_a: bool
    in_b: bool
    removed: Counter = field(default_factory=Counter)  # rows (tuples of (column, text)) in A not B
    added: Counter = field(default_factory=Counter)
    rows_a: int = 0
    rows_b: int = 0
    schema_changed: bool = False
    written: bool = True  # False: an output of a run that failed (in the record, not written)

    @property
    def changed(self) -> bool:
        return bool(self.removed or self.added)

    @property
    def named(self) -> bool:
        """The records name these rows: no row's number of copies moved by two or more (a cell
        of count +-2 is never pure: docs/spec/rows-v1-localise.md, "Duplicates")."""
        return all(n == 1 for n in (*self.removed.values(), *self.added.values()))


def _plain(rows: list[Row], columns: tuple[str, ...]) -> Counter:
    return Counter(tuple((c, str(r[COLUMNS.index(c)])) for c in columns) for r in rows)


def oracle(case: Case) -> dict[tuple[str, str], Expected]:
    """Every input and output the two runs must report, from the edit script alone. A run that
    fails writes none of its outputs: its record lists each declared output as not written
    (:attr:`Expected.written` False), which proves nothing about it."""
    shapes = {("input", "people"): (True, True), ("output", "copy"): (True, True),
              ("output", "extra"): (case.extra_a, case.extra_b)}
    out = {}
    for (direction, name), (in_a, in_b) in shapes.items():
        if not (in_a or in_b):
            continue
        a, b = case.frame("a", name), case.frame("b", name)
        cols_a, cols_b = case.columns("a", name), case.columns("b", name)
        ma, mb = _plain(a, cols_a), _plain(b, cols_b)
        written = direction == "input" or not case.failing
        out[(direction, name)] = Expected(in_a, in_b, ma - mb, mb - ma, len(a), len(b), cols_a != cols_b, written)
    return out


def plain_row(row: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """A row printed by ``--rows`` as the oracle writes it (columns in order, values as text)."""
    return tuple((c, str(row[c])) for c in COLUMNS if c in row) + tuple(
        (c, str(v)) for c, v in row.items() if c not in COLUMNS)


def _summary(removed: int, added: int) -> str:
    return f"{removed} row{'s' if removed != 1 else ''} removed, {added} added"


def check(folder: Path, case: Case, *, every_pass: bool = True) -> None:
    """``compare``, ``diff`` and ``diff --rows`` report exactly the edit, with the table's exit codes;
    ``every_pass=False`` (Spark: each pass reads both runs' data) leaves out the text ``--rows`` and
    ``--key`` passes."""
    want = oracle(case)
    failed = bool(case.failing)
    same = not failed and not any(e.changed or e.schema_changed or e.in_a != e.in_b for e in want.values())

    compare = lineage(folder, "compare", "--json")
    assert compare.exit_code == (0 if same else 1), compare.stdout + compare.stderr
    doc = json.loads(compare.stdout)
    steps = {(s["direction"], s["name"]): s for s in doc["steps"]}
    assert set(want) <= set(steps), f"steps not reported: {set(want) - set(steps)}"
    assert doc["verdict"] == ("proven_same" if same else doc["verdict"]) and (same or doc["verdict"] != "proven_same")
    if failed:
        for side in case.failing.upper():
            assert any(f"run {side} did not succeed" in p for p in doc["problems"]), doc["problems"]
    for key, e in want.items():
        step = steps[key]
        if e.in_a != e.in_b:
            if key[0] == "output":  # an output written by one run only
                assert step["verdict"] == "missing", step
            continue
        if not e.written:  # never proven the same, whatever the other run wrote
            assert step["verdict"] != "unchanged" and step["data_hash"]["verdict"] != "unchanged", (key, step)
            continue
        assert (step["row_count"]["a"], step["row_count"]["b"]) == (e.rows_a, e.rows_b), (key, step)
        assert step["schema_hash"]["verdict"] == ("changed" if e.schema_changed else "unchanged"), (key, step)
        assert step["data_hash"]["verdict"] == ("changed" if e.changed else "unchanged"), (key, step)
    if not same and not failed:
        assert doc["verdict"] == "differs", doc
    checks = {e["name"]: e for e in doc["expectations"]}
    seen = set()
    for (_, name), e in want.items():
        lo, hi = CHECKS.get(name, (0, 0))
        sides = [(case.frame("a", name), e.in_a and not case.raises("a")),  # checked unless the code raised
                 (case.frame("b", name), e.in_b and not case.raises("b"))]
        failed_ = [sum(1 for r in rows if not lo <= r[0] <= hi) if ran else None for rows, ran in sides]
        if name not in CHECKS or failed_ == [None, None]:  # checked by no run that wrote it
            continue
        seen.add(f"{name}.id_between")
        got = checks[f"{name}.id_between"]
        assert got["output"] == name and [None if x is None else x["failed"] for x in (got["a"], got["b"])] == \
            failed_, (name, got, failed_)
        assert got["verdict"] == ("missing" if None in failed_ else "unchanged" if failed_[0] == failed_[1]
                                  and len(sides[0][0]) == len(sides[1][0]) else "changed"), (name, got)
    assert set(checks) == seen, checks

    diff = lineage(folder, "diff", "--json")
    assert diff.exit_code == (0 if same else 1), diff.stdout + diff.stderr
    ddoc = json.loads(diff.stdout)
    dsteps = {(s["direction"], s["name"]): s for s in ddoc["steps"]}
    assert set(want) <= set(dsteps), f"steps not in diff: {set(want) - set(dsteps)}"
    assert ddoc["proven_same"] is same and ddoc["verdict"] == doc["verdict"], ddoc
    swapped = lineage(folder, "diff", "--json", "--run-id1", ddoc["run_b"]["run_id"],
                      "--run-id2", ddoc["run_a"]["run_id"])  # B before A: removed and added swap, nothing else
    assert swapped.exit_code == diff.exit_code, swapped.stdout + swapped.stderr
    sdoc = json.loads(swapped.stdout)
    assert sorted((s["direction"], s["name"], s["data_hash"], sorted(s["removed"]), sorted(s["added"]))
                  for s in sdoc["steps"]) == sorted((s["direction"], s["name"], s["data_hash"], sorted(s["added"]),
                                                     sorted(s["removed"])) for s in ddoc["steps"]), (sdoc, ddoc)
    assert sdoc["verdict"] == ddoc["verdict"], (sdoc, ddoc)
    text = lineage(folder, "diff")
    assert text.exit_code == diff.exit_code, text.stdout + text.stderr
    wanted_rows: Counter = Counter()
    for key, e in want.items():
        step = dsteps[key]
        label = f"{key[0]} {key[1]!r}: "
        if e.in_a != e.in_b:
            if key[0] == "output":
                assert step["data_hash"] == "missing", step
                assert f"{label}data missing" in text.stdout, text.stdout
            continue
        if not e.written:  # not proven: named in the text, whatever else differs
            assert step["data_hash"] not in ("unchanged", "changed"), (key, step)
            assert label in text.stdout, (key, text.stdout)
            continue
        if not e.changed:
            assert step["data_hash"] == "unchanged" and label not in text.stdout, (key, step, text.stdout)
            continue
        assert step["data_hash"] == "changed", (key, step)
        if not e.named:  # docs/spec/rows-v1-localise.md: copies changed by two or more are not named
            assert step["complete"] is False and step["removed"] == step["added"] == [], (key, step)
            assert step["estimate"] >= 1 and f"{label}{step['summary']}" in text.stdout, (key, step, text.stdout)
            continue
        assert step["complete"] is True, (key, step)
        assert (len(step["removed"]), len(step["added"])) == (sum(e.removed.values()), sum(e.added.values())), \
            (key, step, e)
        assert f"{label}{_summary(sum(e.removed.values()), sum(e.added.values()))}" in text.stdout, text.stdout
        copy = key == ("output", "copy")  # a side of copy lost: its rows cannot be read
        if not (copy and case.lost("a")):
            wanted_rows.update({("-", key, r): n for r, n in e.removed.items()})
        if not (copy and case.lost("b")):
            wanted_rows.update({("+", key, r): n for r, n in e.added.items()})
    for side in case.failing.upper():
        assert f"run {side} did not succeed" in text.stdout, text.stdout
    if same:
        assert "no input or output differs" in text.stdout, text.stdout
    else:
        assert "no input or output differs" not in text.stdout, text.stdout

    rows = lineage(folder, "diff", "--rows", "--json")
    assert rows.exit_code == (0 if same else 1), rows.stdout + rows.stderr
    rdoc = json.loads(rows.stdout)
    got = Counter((r["sign"], (r["direction"], r["name"]), plain_row(r["row"])) for r in rdoc["rows"])
    assert got == wanted_rows, (got, wanted_rows)
    for key, e in want.items():
        noted = [n for n in rdoc["notes"] if n.startswith(f"{key[0]} {key[1]!r}:")]
        shown = e.written and e.in_a and e.in_b and e.changed and e.named
        lost = [side for side, part in (("a", e.removed), ("b", e.added))
                if shown and key == ("output", "copy") and case.lost(side) and part]
        if (e.in_a != e.in_b and key[0] == "output") or (e.changed and not e.named and e.written) or lost or \
                not e.written:
            assert len(noted) == max(1, len(lost)), (key, rdoc["notes"])  # said in a note, never passed over
            assert all(f"run {side.upper()}'s data is gone" in " ".join(noted) for side in lost), noted
        elif e.written and e.in_a and e.in_b:
            assert not noted, (key, rdoc["notes"])

    key = sorted(want)[case.probe % len(want)]  # one step alone: its own verdict, the runs' problems
    one = lineage(folder, "diff", "--name", key[1], "--json")
    e = want[key]
    alone = not failed and e.in_a == e.in_b and not e.changed and not e.schema_changed
    assert one.exit_code == (0 if alone else 1), (key, one.stdout + one.stderr)
    assert [(s["direction"], s["name"]) for s in json.loads(one.stdout)["steps"]] == [key]

    if not every_pass:
        return
    if failed:  # the text form says why nothing is proven, even beside the rows it prints
        said = lineage(folder, "diff", "--rows")
        assert said.exit_code == 1 and all(f"run {side} did not succeed" in said.stderr
                                           for side in case.failing.upper()), said.stdout + said.stderr
        for key, e in want.items():
            if not e.written and e.in_a == e.in_b:
                assert f"{key[0]} {key[1]!r}: no row to read" in said.stderr, (key, said.stderr)

    keyed = json.loads(lineage(folder, "diff", "--rows", "--key", "id", "--json").stdout)
    pairs = Counter()  # --key: every update is one removed and one added row of one id, nothing else moves
    for u in keyed["updates"]:
        assert u["before"]["id"] == u["after"]["id"] == u["key"]["id"], u
        assert u["changed"] == sorted(c for c in u["before"].keys() | u["after"].keys()
                                      if u["before"].get(c, ...) != u["after"].get(c, ...)) != [], u
        pairs.update({("-", (u["direction"], u["name"]), plain_row(u["before"])): 1,
                      ("+", (u["direction"], u["name"]), plain_row(u["after"])): 1})
    unpaired = Counter((r["sign"], (r["direction"], r["name"]), plain_row(r["row"])) for r in keyed["rows"])
    assert pairs + unpaired == wanted_rows, (pairs, unpaired, wanted_rows)
    for sign in "-+":  # a removed and an added row of one id are never both left unpaired
        ids = {((r["direction"], r["name"]), r["row"].get("id")) for r in keyed["rows"] if r["sign"] == sign}
        other = {((r["direction"], r["name"]), r["row"].get("id")) for r in keyed["rows"] if r["sign"] != sign}
        assert not ids & other, (ids & other, keyed)
