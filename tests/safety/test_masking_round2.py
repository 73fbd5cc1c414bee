"""Secret-leak probes, round 2 (issue 35): records of other writers republished unmasked, secret names
the heuristic missed (``dbpass``), lower-case percent-escapes, a short secret that rewrote every
recorded location, uncapped FAIL lines and a ``validate --json`` stdout that held more than its
document.

The probes run the real CLI in a real process (``harness``); the rules of the masker itself are
checked in this process (``Masker``), each beside the probe that found its leak.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest

from harness import PASS_CODE, Result, Usecase, assert_no_secret, cli, task_code

from ubunye.masking import MASK, Masker, is_secret_name

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "records" / "ubunye-engine-0.8.0"
OTHER_RUN = "13fcbf59-5ff4-431d-8b70-45b34752d22b"  # the latest run of shop/orders/clean, written by 0.8.0
WRITER_PW = "Wr1ter-Pw-5521"


def _config(uc: Usecase, src: Path, out: str = "o") -> str:
    return f"""
CONFIG:
  inputs:
    people: {{format: parquet, path: "{src}"}}
  outputs:
    out: {{format: parquet, path: "{uc.root / 'out' / out}", mode: overwrite}}
"""


def lineage(uc: Usecase, command: str, *args: str) -> Result:
    return cli("lineage", command, "-d", str(uc.root), "-u", "shop", "-p", "orders", *args)


# --- a record another program wrote: its error quotes its own secret-named variable ---------------------------


def _plant_other_writer(root: Path) -> Usecase:
    """The 0.8.0 store, one of its runs changed as a writer that masks nothing would leave it: a
    ``password`` variable as given, its value quoted in the run's error."""
    uc = Usecase(root)
    shutil.copytree(FIXTURES, uc.lineage_dir)
    path = uc.lineage_dir / "shop" / "orders" / "clean" / f"{OTHER_RUN}.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record["variables"] = {"dt": "2024-01-01", "password": WRITER_PW, "pin_pwd": "Qz7x"}
    record["status"] = "error"
    record["error"] = f"ConnectionError: login refused for etl with {WRITER_PW} (pin Qz7x)"
    path.write_text(json.dumps(record, indent=2), encoding="utf-8")
    return uc


@pytest.fixture(scope="module")
def other_writer(tmp_path_factory: pytest.TempPathFactory) -> Usecase:
    return _plant_other_writer(tmp_path_factory.mktemp("other"))


@pytest.mark.parametrize("args", [("show", "-t", "clean", "--run-id", OTHER_RUN),
                                  ("show", "-t", "clean", "--run-id", OTHER_RUN, "--json"),
                                  ("openlineage", "-t", "clean"), ("openlineage", "-t", "clean", "--json"),
                                  ("list", "-t", "clean", "--json"), ("compare", "-t", "clean", "--json")],
                         ids=["show", "show-json", "openlineage", "openlineage-json", "list-json", "compare-json"])
def test_secret_leak_other_writer_record_republished(other_writer: Usecase, args: tuple[str, ...]) -> None:
    result = lineage(other_writer, *args)
    assert result.code in (0, 1), str(result)
    assert OTHER_RUN[:8] in result.out or "login refused for etl with ***" in result.out, str(result)
    for secret in (WRITER_PW, "Qz7x"):
        assert_no_secret(secret, result)


def test_secret_leak_other_writer_record_error_masked_in_show(other_writer: Usecase) -> None:
    result = lineage(other_writer, "show", "-t", "clean", "--run-id", OTHER_RUN, "--json")
    assert result.code == 0, str(result)
    assert f"login refused for etl with {MASK} (pin {MASK})" in result.out, str(result)


def test_secret_leak_other_writer_record_in_the_report_page(other_writer: Usecase, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    result = lineage(other_writer, "report", "-o", str(page))
    assert result.code == 0 and page.is_file(), str(result)
    assert_no_secret(WRITER_PW, result, tmp_path)
    assert "login refused for etl with" in page.read_text(encoding="utf-8")


def test_secret_leak_sealed_record_of_an_earlier_build(tmp_path: Path) -> None:
    """A sealed record this package wrote before ``dbpass`` was a secret name: re-masked when read."""
    from ubunye.lineage.record import SEAL_FIELD, seal

    uc = Usecase(tmp_path)
    src = uc.parquet("people.parquet")
    uc.task("t", _config(uc, src))
    assert uc.run("-t", "t", "--lineage").code == 0
    path = next((uc.lineage_dir / "shop" / "orders" / "t").glob("*.json"))
    record = json.loads(path.read_text(encoding="utf-8"))
    record["variables"] = {"dbpass": "Old-Build-7741"}
    record["error"] = "a warning quoting Old-Build-7741"
    record[SEAL_FIELD] = seal(record)
    path.write_text(json.dumps(record), encoding="utf-8")
    for extra in ((), ("--json",)):
        result = lineage(uc, "show", "-t", "t", *extra)
        assert result.code == 0 and "a warning quoting ***" in result.out, str(result)
        assert_no_secret("Old-Build-7741", result)


def test_lying_record_own_records_read_back_as_written(tmp_path: Path) -> None:
    """Re-masking on load changes nothing in a record this package wrote: ``show`` prints it as stored."""
    uc = Usecase(tmp_path)
    src = uc.parquet("people.parquet")
    uc.task("t", _config(uc, src))
    assert uc.run("-t", "t", "--lineage", "--var", "api_token=Own-Tok-1190",
                  "--var", "source=postgresql://etl:Own-Pw-1191@db/x").code == 0
    stored = uc.records("t")[0]
    result = lineage(uc, "show", "-t", "t")
    assert result.code == 0 and json.loads(result.out) == stored, str(result)


# --- secret names: *pass* -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["dbpass", "DBPASS", "db_pass", "pass", "passwd", "pwd", "user_pass",
                                  "mypassword", "PassCode", "ldap-pass-word", "smtp.pass"])
def test_secret_name_pass(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["passenger_count", "passengers", "compass", "passed", "mode", "dt"])
def test_secret_name_not_a_secret(name: str) -> None:
    assert not is_secret_name(name)


def test_secret_leak_var_dbpass_in_fail_line_and_record(tmp_path: Path) -> None:
    uc = Usecase(tmp_path)
    src = uc.parquet("people.parquet")
    uc.task("t", _config(uc, src), task_code("raise ValueError('cannot log in with ' + self.variables['dbpass'])"))
    result = uc.run("-t", "t", "--lineage", "--var", "dbpass=Db-Pass-6612", "--var", "SMTPPASS=Smtp-Pass-6613")
    assert result.code == 1 and "cannot log in with ***" in result.err, str(result)
    for secret in ("Db-Pass-6612", "Smtp-Pass-6613"):
        assert_no_secret(secret, result, uc.lineage_dir)
    variables = uc.records("t")[0]["variables"]
    assert (variables["dbpass"], variables["SMTPPASS"]) == (MASK, MASK)


# --- percent-escapes in either case ---------------------------------------------------------------------------


@pytest.mark.parametrize("secret", ["tok/3n", "Tk/9931:secret@x"])
def test_secret_leak_lower_case_percent_escape(secret: str) -> None:
    masker = Masker([secret])
    for form in (quote(secret, safe=""), quote(secret, safe="").lower().replace("tk", "Tk").replace("x", "x")):
        shown = masker.text(f"sent {form} to the server")
        assert shown == f"sent {MASK} to the server", (form, shown)
    mixed = quote(secret, safe="").replace("%2F", "%2f")
    assert masker.text(f"sent {mixed}") == f"sent {MASK}"


def test_secret_leak_lower_case_percent_escape_in_a_run(tmp_path: Path) -> None:
    uc = Usecase(tmp_path)
    src = uc.parquet("people.parquet")
    body = "from urllib.parse import quote\nraise ValueError('GET /login?u=' + quote(self.variables['api_token'], safe='').lower())"
    uc.task("t", _config(uc, src), task_code(body))
    result = uc.run("-t", "t", "--lineage", "--var", "api_token=tok/3n-pct-5510")
    assert result.code == 1 and "FAIL" in result.err, str(result)
    assert_no_secret("tok%2f3n-pct-5510", result, uc.lineage_dir)


# --- a short secret: masked where it stands alone, never inside a path -----------------------------------------


@pytest.mark.parametrize("text, shown", [
    ("password=data", "password=***"),
    ("user:data@host", "user:***@host"),
    ("login refused: data was wrong", "login refused: *** was wrong"),
    ("the pin was data.", "the pin was ***."),
    ("'data'", "'***'"),
    ("/tmp/x/data/people.csv", "/tmp/x/data/people.csv"),
    ("/tmp/x/data", "/tmp/x/data"),
    ("s3a://bucket/data/x.parquet", "s3a://bucket/data/x.parquet"),
    ("C:\\work\\data\\x.csv", "C:\\work\\data\\x.csv"),
    ("data.csv", "data.csv"),
    ("x.data", "x.data"),
    ("dataset x_data data-x data2", "dataset x_data data-x data2"),
    ("sqlplus etl/data@db", "sqlplus etl/***@db"),  # user/password@host: after a / but no path part
    ("'first line\\ndata'", "'first line\\n***'"),  # a repr: after an escaped newline, not a word
    ("tab\\tdata\\rdata", "tab\\t***\\r***"),
])
def test_short_secret_masked_as_a_whole_token_only(text: str, shown: str) -> None:
    assert Masker(["data"]).text(text) == shown


def test_long_secret_masked_anywhere() -> None:
    masker = Masker(["Vt-9931-secret"])
    assert masker.text("/data/Vt-9931-secret/x and xVt-9931-secretx") == "/data/***/x and x***x"


def test_lying_record_short_secret_keeps_locations_and_verify(tmp_path: Path) -> None:
    """``--var password=data`` with the input under ``<usecase>/data/``: the record keeps the real
    location, and ``verify`` finds every step (it called the input ``missing``)."""
    uc = Usecase(tmp_path)
    src = uc.parquet("people.parquet")
    assert "/data/" in str(src)
    uc.task("t", _config(uc, src))
    result = uc.run("-t", "t", "--lineage", "--var", "password=data")
    assert result.code == 0, str(result)
    record = uc.records("t")[0]
    assert record["inputs"][0]["location"] == str(src) and record["variables"]["password"] == MASK
    verified = lineage(uc, "verify", "-t", "t")
    assert verified.code == 0 and "missing" not in verified.out, str(verified)


# --- FAIL lines are capped ------------------------------------------------------------------------------------


def test_fail_line_capped_record_keeps_the_error(tmp_path: Path) -> None:
    uc = Usecase(tmp_path)
    src = uc.parquet("people.parquet")
    uc.task("t", _config(uc, src), task_code("raise ValueError('x' * 50000 + ' Cap-Pw-8821 end')"))
    result = uc.run("-t", "t", "--lineage", "--var", "cap_password=Cap-Pw-8821")
    assert result.code == 1, str(result)
    lines = result.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("FAIL shop/orders/t: "), str(result)[:3000]
    assert len(lines[0]) <= 2000 and "characters cut" in lines[0], lines[0][-200:]
    error = uc.records("t")[0]["error"]
    assert error.startswith("ValueError: xxxx") and error.endswith(" *** end"), error[-100:]  # whole, masked
    assert_no_secret("Cap-Pw-8821", result, uc.lineage_dir)


# --- validate --json: stdout holds its document only -------------------------------------------------------------


def test_validate_json_stdout_is_one_document(tmp_path: Path) -> None:
    uc = Usecase(tmp_path)
    src = uc.parquet("people.parquet")
    uc.task("t", _config(uc, src), "print('hello from import')\n" + PASS_CODE)
    result = cli("validate", "-d", str(uc.root), "-u", "shop", "-p", "orders", "-t", "t", "--json")
    assert result.code == 0, str(result)
    assert json.loads(result.out)["ok"] is True
    assert "hello from import" in result.err


# --- a variable named like a record field (status, sketch, environment) is still masked -------------------------


def test_secret_leak_var_named_like_a_record_field(tmp_path: Path) -> None:
    """``Masker.doc`` keeps the values of a record's own fields (``status``, ``sketch`` ...) as they are;
    a variable of that name is the user's, not the field: its password is masked in the record."""
    uc = Usecase(tmp_path)
    src = uc.parquet("people.parquet")
    uc.task("t", _config(uc, src))
    result = uc.run("-t", "t", "--lineage", "--var", "status=postgresql://etl:Stat-Pw-7712@db/x",
                    "--var", "sketch=https://h/x?token=Sk-Tok-7713", "--var", "run_id=Rid-Pw-7714")
    assert result.code == 0, str(result)
    variables = uc.records("t")[0]["variables"]
    assert variables["status"] == "postgresql://etl:***@db/x" and variables["sketch"] == "https://h/x?token=***"
    for secret in ("Stat-Pw-7712", "Sk-Tok-7713"):
        assert_no_secret(secret, result, uc.lineage_dir)


def test_secret_leak_other_writer_variable_named_like_a_record_field() -> None:
    from ubunye.lineage.record import RunRecord

    record = RunRecord.from_dict({"run_id": "r1", "variables": {"status": "postgresql://u:Fld-Pw-7715@h/db"}})
    assert record.variables["status"] == "postgresql://u:***@h/db"


def test_other_writer_with_thousands_of_secret_variables_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A forged record with 5,000 secret-named variables: every one shows ``***``, and the texts are
    masked with at most REREAD_VALUES of their values (the longest), not a 5,000-way pattern."""
    import ubunye.masking as masking
    from ubunye.lineage.record import RunRecord
    from ubunye.lineage.remask import REREAD_VALUES

    sizes: list[int] = []
    real = masking.Masker.doc

    def doc(self: Masker, obj: object, **kw: object) -> object:
        sizes.append(len(self.values()))
        return real(self, obj, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(masking.Masker, "doc", doc)
    variables = {f"pw_{i}": f"Many-Pw-{i:05d}" for i in range(5000)}
    record = RunRecord.from_dict({"run_id": "r1", "variables": variables, "error": "x Many-Pw-04999-long-one y"})
    assert set(record.variables.values()) == {MASK}
    assert sizes and max(sizes) <= REREAD_VALUES


def test_warning_line_capped(tmp_path: Path) -> None:
    uc = Usecase(tmp_path)
    src = uc.parquet("people.parquet")
    body = "import warnings\nwarnings.warn('w' * 100000)\nreturn {'out': sources['people']}"
    uc.task("t", _config(uc, src), task_code(body))
    result = uc.run("-t", "t", "--lineage")
    assert result.code == 0 and "wwww" in result.err, str(result)[:3000]
    assert max(len(line) for line in result.err.splitlines()) <= 2000, [len(x) for x in result.err.splitlines()]
