"""Secret-leak probes: a planted secret never reaches a terminal, a record, an event or an exception.

Each probe plants one secret (a URL or JDBC password, a query parameter, a token, a ``--var``,
a ``secret://env`` or ``secret://file`` value, a text raised by task code) and runs the real CLI
in a real process (``Usecase.run``), then searches every output stream and every file the run
wrote (``assert_no_secret``). The forms are planted where the engine quotes them: an output
``mode`` (a config error quoting the value: ``validate``, ``validate --json``, ``run``) and an input
location (``plan``). Runs that share a usecase share one process per command (module fixtures).
"""
from __future__ import annotations

import json
import os
import traceback
from pathlib import Path

import pytest

from harness import Result, Usecase, assert_no_secret, cli, task_code

# (probe id, the text planted, the secret it carries); every one is a leak on ff7be60 or an issue-26 survivor
FORMS = [
    ("url-password-with-slash-at-colon", "s3a://AKIAIOSFODNN7:wJalr/XUtn@FEMI:K7MD@bucket/x", "wJalr/XUtn@FEMI:K7MD"),
    ("url-empty-user", "redis://:Rd1s-pw-only@cache.internal:6379/0", "Rd1s-pw-only"),
    ("oracle-thin", "jdbc:oracle:thin:scott/T1ger@pass@//db.internal:1521/ORCL", "T1ger@pass"),
    ("sqlserver-braces", "jdbc:sqlserver://db:1433;user=sa;password={p;a}}ss=w0rd};encrypt=true", "ss=w0rd"),
    ("postgres-query", "jdbc:postgresql://db:5432/shop?user=etl&password=pg-Secr3t-77&ssl=true", "pg-Secr3t-77"),
    ("mysql-user-password", "jdbc:mysql://db:3306/shop?user=etl&password=my-S3cr3t-41", "my-S3cr3t-41"),
    ("query-api_key", "https://api.example/v1?api_key=ak-0918-secret&limit=5", "ak-0918-secret"),
    ("query-apikey", "https://api.example/v1?apikey=ak2-0918-secret", "ak2-0918-secret"),
    ("query-token", "https://api.example/v1?token=tk-5531-secret", "tk-5531-secret"),
    ("query-access_token", "https://api.example/v1?x=1&access_token=at-7781-secret", "at-7781-secret"),
    ("query-sig", "https://acct.blob.example/c/f.csv?sv=2022&sig=SiG0v3rs3cr3t&se=2030", "SiG0v3rs3cr3t"),
    ("query-signature", "https://acct.blob.example/c?signature=SgN-4410-secret", "SgN-4410-secret"),
    ("query-password", "https://h.example/feed?password=qp-2291-secret", "qp-2291-secret"),
    ("query-secret", "https://h.example/feed?secret=qs-8812-secret", "qs-8812-secret"),
    ("amz-signature", "https://b.s3.example/k?X-Amz-Signature=9f86d081884c7d65&X-Amz-Date=1", "9f86d081884c7d65"),
    ("amz-credential", "https://b.s3.example/k?X-Amz-Credential=AKIAXMPL%2F20261202%2Fs3", "AKIAXMPL%2F20261202"),
]
FORM_IDS = [f[0] for f in FORMS]

PEOPLE_CONFIG = """
MODEL: etl
VERSION: "1.0"
CONFIG:
  inputs:
    people:
      format: parquet
      path: {input}
  outputs:
    out:
      format: parquet
      path: {output}
      mode: {mode}
"""


def config(uc: Usecase, *, input: str | None = None, output: str | None = None, mode: str = "overwrite") -> str:
    return PEOPLE_CONFIG.format(input=json.dumps(input or str(uc.root / "data" / "people.parquet")),
                                output=json.dumps(output or str(uc.root / "out" / "people")), mode=json.dumps(mode))


def cli_in(uc: Usecase, command: str, *args: str, **kw: object) -> Result:
    return cli(command, "-d", str(uc.root), "-u", uc.usecase, "-p", uc.package, *args, **kw)  # type: ignore[arg-type]


def written(uc: Usecase) -> list[Path]:
    """The folders a run writes: the store and the outputs."""
    return [uc.lineage_dir, uc.root / "out"]


# --- each form in a config error quoting the value (validate, validate --json, run) ---------------------------


@pytest.fixture(scope="module")
def quoted(tmp_path_factory: pytest.TempPathFactory) -> Usecase:
    uc = Usecase(tmp_path_factory.mktemp("quoted"))
    uc.parquet("people.parquet")
    for name, text, _ in FORMS:
        uc.task(name.replace("-", "_"), config(uc, mode=text))
    return uc


@pytest.fixture(scope="module")
def validated(quoted: Usecase) -> Result:
    return cli_in(quoted, "validate", "--all")


@pytest.fixture(scope="module")
def validated_json(quoted: Usecase) -> Result:
    return cli_in(quoted, "validate", "--all", "--json")


@pytest.mark.parametrize("name, text, secret", FORMS, ids=FORM_IDS)
def test_secret_leak_validate_config_error_quoting(validated: Result, name: str, text: str, secret: str) -> None:
    assert validated.code == 1 and f"FAIL shop/orders/{name.replace('-', '_')}: " in validated.err, str(validated)
    assert_no_secret(secret, validated)


@pytest.mark.parametrize("name, text, secret", FORMS, ids=FORM_IDS)
def test_secret_leak_validate_json_config_error_quoting(validated_json: Result, name: str, text: str,
                                                        secret: str) -> None:
    document = json.loads(validated_json.out)
    task = next(t for t in document["tasks"] if t["task"] == name.replace("-", "_"))
    assert not task["ok"] and "***" in task["problems"][0]
    assert_no_secret(secret, validated_json)


# --- each form as an input location (plan prints every location) ----------------------------------------------


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Usecase, Result]:
    uc = Usecase(tmp_path_factory.mktemp("planned"))
    names = []
    for name, text, _ in FORMS:
        names.append(name.replace("-", "_"))
        uc.task(names[-1], config(uc, input=text, output=str(uc.root / "out" / names[-1])))
    args = [arg for n in names for arg in ("-t", n)]
    return uc, cli_in(uc, "plan", *args)


@pytest.mark.parametrize("name, text, secret", FORMS, ids=FORM_IDS)
def test_secret_leak_plan_input_location(planned: tuple[Usecase, Result], name: str, text: str, secret: str) -> None:
    _, result = planned
    assert f"--- Task: shop/orders/{name.replace('-', '_')} ---" in result.out, str(result)
    assert_no_secret(secret, result)


# --- where the secret comes from: --var, secret://env, secret://file -------------------------------------------


def test_secret_leak_var_in_a_location_run_and_record(tmp_path: Path) -> None:
    uc = Usecase(tmp_path)
    uc.task("t", config(uc, input="/data/{{ api_token }}/missing.parquet"))
    result = uc.run("-t", "t", "--lineage", "--var", "api_token=Vt-9931-secret")
    assert result.code == 1 and "FAIL" in result.err
    assert_no_secret("Vt-9931-secret", result, *written(uc))
    assert uc.records("t")[0]["variables"]["api_token"] == "***"


def test_secret_leak_var_in_plan_and_validate(tmp_path: Path) -> None:
    uc = Usecase(tmp_path)
    uc.task("t", config(uc, input="/data/{{ db_password }}/in.parquet", mode="{{ db_password }}"))
    for command in ("plan", "validate"):
        result = cli_in(uc, command, "-t", "t", "--var", "db_password=Pl4n-pw-0042")
        assert result.code == (2 if command == "plan" else 1), str(result)  # a bad config: plan 2, validate's FAIL 1
        assert_no_secret("Pl4n-pw-0042", result)


def test_secret_leak_secret_env_in_validate_json_plan_and_run(tmp_path: Path) -> None:
    uc = Usecase(tmp_path)
    uc.task("t", config(uc, input="secret://env/PROBE_SECRET_IN", mode="secret://env/PROBE_SECRET_MODE"))
    env = {"PROBE_SECRET_IN": "/vault/Env-Sec-5521/people.parquet", "PROBE_SECRET_MODE": "Env-Mode-7730"}
    results = [cli_in(uc, "validate", "-t", "t", "--json", env=env), cli_in(uc, "plan", "-t", "t", env=env),
               uc.run("-t", "t", "--lineage", env=env)]
    for result, code in zip(results, (1, 2, 2)):  # a bad config: validate's FAIL 1, plan's and run's error: 2
        assert result.code == code, str(result)
        for secret in ("Env-Sec-5521", "Env-Mode-7730"):
            assert_no_secret(secret, result, *written(uc))


def test_secret_leak_secret_file_value_in_run_fail_line_and_record(tmp_path: Path) -> None:
    uc = Usecase(tmp_path)
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "dsn").write_text("postgresql://etl:F1le-pw-3318@db/shop\n", encoding="utf-8")
    uc.task("t", config(uc, input=f"secret://file/{vault / 'dsn'}"))
    result = uc.run("-t", "t", "--lineage")
    assert result.code == 1 and "FAIL" in result.err, str(result)
    assert_no_secret("F1le-pw-3318", result, *written(uc))
    assert_no_secret("postgresql://etl:F1le", result, *written(uc))


def test_secret_leak_secret_file_multi_line_value_raised_by_task(tmp_path: Path) -> None:
    uc = Usecase(tmp_path)
    vault = tmp_path / "vault"
    vault.mkdir()
    key = "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEF\nAASCBKcwggSjAgEAAoIBAQC7\n-----END KEY-----"
    (vault / "key.pem").write_text(key + "\n", encoding="utf-8")
    code = task_code(f"raise ValueError('cannot parse ' + open({str(vault / 'key.pem')!r}).read())")
    uc.parquet("people.parquet")
    reference = json.dumps(f"secret://file/{vault / 'key.pem'}")
    uc.task("t", config(uc) + f"      options: {{private_key: {reference}}}\n", code)
    result = uc.run("-t", "t", "--lineage")
    assert result.code == 1 and "FAIL" in result.err, str(result)
    for line in ("MIIEvQIBADANBgkqhkiG9w0BAQEF", "AASCBKcwggSjAgEAAoIBAQC7"):
        assert_no_secret(line, result, *written(uc))


# --- texts raised by task code: one run raises them all, each probe looks for one -------------------------------

RAISED = {  # probe id -> (the --var planted, the secret)
    "var-in-message": ("db_password=Ex-Msg-8812", "Ex-Msg-8812"),
    "repr-with-quotes-and-backslash": ("conn_secret=it's \"R3pr\" \\pw", 'R3pr'),  # its repr form leaked
    "multi-line-first": ("private_key=Mline-first-7781\nMline-second-7782", "Mline-first-7781"),
    "multi-line-second": ("private_key=Mline-first-7781\nMline-second-7782", "Mline-second-7782"),
    "four-characters": ("pin_password=Qz7x", "Qz7x"),
}
RAISED_BODY = """
class Conn:
    def __init__(self, pw):
        self.pw = pw
    def __repr__(self):
        return f"Conn(password={self.pw!r}, extra={[self.pw]!r})"
v = self.variables
raise ValueError(
    "login refused for " + v["db_password"] + "; " + repr({"conn": Conn(v["conn_secret"])}) + "; key:\\n"
    + v["private_key"] + "\\npin was " + v["pin_password"] + "! sent Authorization: Bearer eyJhbG.c2VjcmV0.Zx9"
    + " and Authorization: Basic ZXRsOmh1bnRlcjI= to " + " ".join(FORMS))
"""


@pytest.fixture(scope="module")
def raised(tmp_path_factory: pytest.TempPathFactory) -> tuple[Usecase, Result]:
    uc = Usecase(tmp_path_factory.mktemp("raised"))
    uc.parquet("people.parquet")
    forms = json.dumps([text for _, text, _ in FORMS])
    uc.task("t", config(uc), task_code(f"FORMS = {forms}\n" + RAISED_BODY))
    args = [arg for var, _ in dict.fromkeys(RAISED.values()) for arg in ("--var", var)]
    return uc, uc.run("-t", "t", "--lineage", *args)


def test_raised_run_fails_in_one_line(raised: tuple[Usecase, Result]) -> None:
    uc, result = raised
    assert result.code == 1 and len(result.err.strip().splitlines()) == 1, str(result)
    assert "ValueError: login refused for ***" in result.err and "pin was ***!" in result.err, str(result)
    assert "Bearer ***" in result.err and uc.records("t")[0]["status"] == "error"


@pytest.mark.parametrize("var, secret", list(RAISED.values()), ids=list(RAISED))
def test_secret_leak_raised_by_task_code(raised: tuple[Usecase, Result], var: str, secret: str) -> None:
    uc, result = raised
    assert_no_secret(secret, result, *written(uc))


@pytest.mark.parametrize("secret", ["eyJhbG.c2VjcmV0.Zx9", "ZXRsOmh1bnRlcjI="], ids=["bearer", "basic"])
def test_secret_leak_raised_token_unknown_to_the_run(raised: tuple[Usecase, Result], secret: str) -> None:
    uc, result = raised
    assert_no_secret(secret, result, *written(uc))


@pytest.mark.parametrize("name, text, secret", FORMS, ids=FORM_IDS)
def test_secret_leak_run_fail_line_and_record_raised_form(raised: tuple[Usecase, Result], name: str, text: str,
                                                         secret: str) -> None:
    uc, result = raised
    assert_no_secret(secret, result, *written(uc))


def test_secret_leak_four_character_secret_keeps_ids_and_seal(raised: tuple[Usecase, Result]) -> None:
    uc, _ = raised
    record = uc.records("t")[0]
    assert len(record["run_id"]) == 36 and record["seal"].startswith("sha256:") and len(record["seal"]) == 71
    assert record["variables"]["pin_password"] == "***"


def test_secret_leak_transform_error_names_an_output_with_a_jdbc_password(tmp_path: Path) -> None:
    uc = Usecase(tmp_path)
    uc.parquet("people.parquet")
    uc.task("t", config(uc), task_code(
        "return {'out': sources['people'], 'jdbc:oracle:thin:etl/Orc-Out-5510@db:1521/X': sources['people']}"))
    result = uc.run("-t", "t", "--lineage")
    assert result.code == 1 and "not an output in config.yaml" in result.err, str(result)
    assert_no_secret("Orc-Out-5510", result, *written(uc))


# --- a successful run that logs and warns a secret; its record; every lineage command on it ----------------------

LOGS_AND_WARNS = """
import logging
import warnings
logging.getLogger("ubunye.task").error("connecting with %s", self.variables["api_secret"])
warnings.warn("retrying with token " + self.variables["api_secret"])
return {"out": sources["people"]}
"""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Usecase, Result]:
    uc = Usecase(tmp_path_factory.mktemp("recorded"))
    uc.parquet("people.parquet")
    uc.task("t", config(uc), task_code(LOGS_AND_WARNS))
    result = uc.run("-t", "t", "--lineage", "--var", "api_secret=Rec-Key-4471",
                    "--var", "source=postgresql://etl:Rec-Url-4472@db/shop")
    return uc, result


SUCCESS_SECRETS = ("Rec-Key-4471", "Rec-Url-4472")


def test_secret_leak_log_line_of_task_code_on_an_ubunye_logger(recorded: tuple[Usecase, Result]) -> None:
    uc, result = recorded
    assert result.code == 0 and "connecting with ***" in result.err, str(result)
    assert_no_secret("Rec-Key-4471", result)


def test_secret_leak_warning_of_task_code(recorded: tuple[Usecase, Result]) -> None:
    uc, result = recorded
    assert result.code == 0 and "retrying with token ***" in result.err, str(result)
    assert_no_secret("Rec-Key-4471", result)


def test_secret_leak_successful_run_record_file(recorded: tuple[Usecase, Result]) -> None:
    uc, result = recorded
    assert result.code == 0, str(result)
    record = uc.records("t")[0]
    assert record["variables"]["api_secret"] == "***"
    assert record["variables"]["source"] == "postgresql://etl:***@db/shop"
    for secret in SUCCESS_SECRETS:
        assert_no_secret(secret, result, *written(uc))


@pytest.mark.parametrize("args", [("show", "-t", "t"), ("show", "-t", "t", "--json"), ("list", "-t", "t"),
                                  ("openlineage",), ("openlineage", "--json")],
                         ids=["show", "show-json", "list", "openlineage", "openlineage-json"])
def test_secret_leak_lineage_commands(recorded: tuple[Usecase, Result], args: tuple[str, ...]) -> None:
    uc, _ = recorded
    result = cli("lineage", args[0], "-d", str(uc.root), "-u", uc.usecase, "-p", uc.package, *args[1:])
    assert result.code == 0, str(result)
    for secret in SUCCESS_SECRETS:
        assert_no_secret(secret, result)
    if args[:2] == ("show", "-t") and "--json" not in args:  # the record as stored: masking spoiled nothing
        from ubunye.lineage.record import RunRecord

        shown = RunRecord.from_dict(json.loads(result.out))  # checks the seal
        assert shown.outputs[0].hash_pass and shown.outputs[0].storage_signature != "***"


def test_secret_leak_lineage_show_with_the_secret_planted_in_a_record(recorded: tuple[Usecase, Result],
                                                                     tmp_path: Path) -> None:
    """A record written by another tool (unmasked) shown with --record: the URL password is masked."""
    uc, _ = recorded
    planted = uc.records("t")[0]
    planted.pop("seal")
    planted["error"] = "failed at https://h/x?api_key=Plnt-Rec-0091 and postgresql://u:Plnt-Pw-0092@h/db"
    path = tmp_path / "other.json"
    path.write_text(json.dumps(planted), encoding="utf-8")
    for extra in ((), ("--json",)):
        result = cli("lineage", "show", "--record", str(path), *extra)
        assert result.code == 0, str(result)
        for secret in ("Plnt-Rec-0091", "Plnt-Pw-0092"):
            assert_no_secret(secret, result)


def test_secret_leak_openlineage_endpoint_api_key_in_post_error(recorded: tuple[Usecase, Result]) -> None:
    uc, _ = recorded
    url = "http://127.0.0.1:9/api/v1/lineage?api_key=Ol-Key-6674"  # the discard port: nothing listens
    result = cli("lineage", "openlineage", "-d", str(uc.root), "--send", env={"UBUNYE_OPENLINEAGE_URL": url},
                 timeout=60)
    assert result.code != 0 and "error:" in result.err, str(result)
    assert_no_secret("Ol-Key-6674", result)


def test_secret_leak_openlineage_endpoint_userinfo_in_post_error(recorded: tuple[Usecase, Result]) -> None:
    uc, _ = recorded
    url = "http://ol-user:Ol-Pw-6675@127.0.0.1:9/api/v1/lineage"
    result = cli("lineage", "openlineage", "-d", str(uc.root), "--send", env={"UBUNYE_OPENLINEAGE_URL": url},
                 timeout=60)
    assert result.code != 0, str(result)
    assert_no_secret("Ol-Pw-6675", result)


# --- the Python API: run_task's TaskFailed ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def task_failed(tmp_path_factory: pytest.TempPathFactory) -> BaseException:
    from ubunye import run_task

    uc = Usecase(tmp_path_factory.mktemp("api"))
    uc.parquet("people.parquet")
    body = """
    try:
        raise KeyError("inner " + self.variables["db_password"])
    except KeyError as exc:
        raise RuntimeError("outer with " + repr(self.variables)) from exc
    """
    task = uc.task("t", config(uc), task_code(body))
    variables = {"db_password": "Api-Pw-3390\nsecond-line-3391"}  # (a traceback shows the call's line)
    with pytest.raises(Exception) as info:
        run_task(task, backend="pandas", lineage=True, variables=variables)
    return info.value


@pytest.mark.parametrize("show", [str, repr, lambda e: "".join(traceback.format_exception(e)),
                                  lambda e: repr(getattr(e, "result", None))],
                         ids=["str", "repr", "format_exception", "result-repr"])
def test_secret_leak_api_task_failed(task_failed: BaseException, show: object) -> None:
    text = show(task_failed)  # type: ignore[operator]
    assert type(task_failed).__name__ == "TaskFailed" and "RuntimeError" in str(task_failed)
    for secret in ("Api-Pw-3390", "second-line-3391"):
        assert secret not in text, text


def test_secret_leak_api_config_error_quoting_a_secret_env_value(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from ubunye import run_task
    from ubunye.engine.errors import ConfigError

    uc = Usecase(tmp_path)
    task = uc.task("t", config(uc, mode="secret://env/PROBE_API_MODE"))
    monkeypatch.setenv("PROBE_API_MODE", "Api-Mode-5561")
    with pytest.raises(ConfigError) as info:
        run_task(task, backend="pandas")
    shown = str(info.value) + repr(info.value) + "".join(traceback.format_exception(info.value))
    assert "Api-Mode-5561" not in shown and "***" in shown
    assert os.environ["PROBE_API_MODE"] == "Api-Mode-5561"


def test_secret_leak_api_task_code_import_error_chained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """transformations.py fails on import quoting a secret://env value: TaskLoadError's text and the
    cause it chains (shown by a job log's traceback) are masked."""
    from ubunye import run_task
    from ubunye.engine.errors import TaskLoadError

    uc = Usecase(tmp_path)
    uc.parquet("people.parquet")
    monkeypatch.setenv("PROBE_IMPORT_TOKEN", "Imp-Tok-8830")
    code = "import os\nraise RuntimeError('no access with ' + os.environ['PROBE_IMPORT_TOKEN'])\n"
    task = uc.task("t", config(uc) + '      options: {token: "secret://env/PROBE_IMPORT_TOKEN"}\n', code)
    with pytest.raises(TaskLoadError) as info:
        run_task(task, backend="pandas")
    shown = str(info.value) + repr(info.value) + "".join(traceback.format_exception(info.value))
    assert "Imp-Tok-8830" not in shown and "no access with ***" in shown


def test_secret_leak_api_task_b_after_task_a_in_one_process(tmp_path: Path) -> None:
    """A notebook runs task A (a secret variable), then task B, whose error quotes A's secret."""
    from ubunye import run_task

    uc = Usecase(tmp_path)
    uc.parquet("people.parquet")
    a = uc.task("a", config(uc, output=str(uc.root / "out" / "a")), task_code('return {"out": sources["people"]}'))
    run_task(a, backend="pandas", variables={"api_token": "Nb-A-Token-2231"})
    b = uc.task("b", config(uc, output=str(uc.root / "out" / "b")),
                task_code("raise ValueError('copied from A: Nb-A-Token-2231')"))
    with pytest.raises(Exception) as info:
        run_task(b, backend="pandas", lineage=True)
    shown = str(info.value) + repr(info.value) + "".join(traceback.format_exception(info.value))
    assert type(info.value).__name__ == "TaskFailed" and "copied from A: ***" in shown
    assert_no_secret("Nb-A-Token-2231", None, uc.lineage_dir)


def test_secret_leak_log_line_in_a_library_run(tmp_path: Path) -> None:
    """run_task called from a notebook or a job (no CLI): the run's log lines are masked too."""
    import subprocess
    import sys

    from harness import cli_env

    uc = Usecase(tmp_path)
    uc.parquet("people.parquet")
    folder = uc.task("t", config(uc), task_code(LOGS_AND_WARNS))
    script = ("import logging, sys\nlogging.basicConfig(stream=sys.stderr)\nfrom ubunye import run_task\n"
              f"run_task({str(folder)!r}, backend='pandas', variables={{'api_secret': 'Lib-Key-4473'}})\n"
              "print('done')\n")
    proc = subprocess.run([sys.executable, "-c", script], env=cli_env(), text=True, capture_output=True, timeout=120)
    result = Result(proc.returncode, proc.stdout, proc.stderr)
    assert result.code == 0 and result.out == "done\n" and "connecting with ***" in result.err, str(result)
    assert_no_secret("Lib-Key-4473", result)


def test_secret_leak_hadoop_account_key_option_in_run(tmp_path: Path) -> None:
    """A writer option named as Hadoop names an Azure storage key (``fs.azure.account.key.<account>
    .dfs.core.windows.net``): the pandas backend refuses the option in a line that quotes it, which
    showed the key (the name's last segments are not ``..._key``)."""
    uc = Usecase(tmp_path)
    src = uc.parquet("people.parquet")
    uc.task("t", f"""
CONFIG:
  inputs:
    people: {{format: parquet, path: "{src}"}}
  outputs:
    out:
      format: csv
      path: "{uc.root / 'data' / 'out'}"
      options: {{fs.azure.account.key.acct.dfs.core.windows.net: "QXp1cmUta2V5LTc3MTI="}}
""")
    result = uc.run("-t", "t", "--lineage")
    assert result.code in (1, 2) and "fs.azure.account.key" in result.err, str(result)
    assert_no_secret("QXp1cmUta2V5LTc3MTI=", result, *written(uc))
