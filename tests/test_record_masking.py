"""Secrets never reach a record: locations, variables and error texts."""
from __future__ import annotations

import pytest

from ubunye.lineage.masking import (
    ERROR_LIMIT,
    format_error,
    is_secret_name,
    mask_error,
    mask_location,
    mask_variables,
)


@pytest.mark.parametrize(
    "location, secret",
    [
        ("s3a://AKIAEXAMPLE:wJalrXUtnFEMIK7MDENG@bucket/path/x.parquet", "wJalrXUtnFEMIK7MDENG"),
        ("postgresql://etl:Sup3rS3cret!@db.internal:5432/shop", "Sup3rS3cret!"),
        ("jdbc:postgresql://db:5432/shop?user=etl&password=hunter22&ssl=true", "hunter22"),
        ("jdbc:sqlserver://db:1433;databaseName=shop;user=etl;password=p4ssw0rd;encrypt=true", "p4ssw0rd"),
        ("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=bXlrZXk+/abc==;EndpointSuffix=x", "bXlrZXk+/abc=="),
        ("https://acct.blob.example/c/f.csv?sv=2022-11-02&sig=AbC%2Bdef123&se=2030", "AbC%2Bdef123"),
        ("https://api.example/v1/rows?api_key=k-123456&limit=5", "k-123456"),
        ("Driver={X};Server=db;UID=etl;PWD=pwd-value-9;", "pwd-value-9"),
        ("abfss://c@acct.dfs.example/p?token=eyJhbGciOiJI", "eyJhbGciOiJI"),
    ],
)
def test_location_never_carries_a_password(location: str, secret: str) -> None:
    masked = mask_location(location)
    assert masked is not None
    assert secret not in masked
    assert "***" in masked


def test_plain_locations_are_left_alone() -> None:
    for location in ("/data/pipelines/shop/orders/clean/data/people.csv", "s3://bucket/a=1/b=2/part-0.parquet",
                     "jdbc:postgresql://db:5432/shop?user=etl&ssl=true", "catalog.schema.table"):
        assert mask_location(location) == location
    assert mask_location(None) is None


def test_user_name_is_kept_only_the_password_goes() -> None:
    assert mask_location("postgresql://etl:pw@db/shop") == "postgresql://etl:***@db/shop"


@pytest.mark.parametrize("name", ["password", "db_password", "DB_PASS", "apiKey", "api_key", "secret",
                                  "client_secret", "aws_secret_access_key", "token", "github_token",
                                  "storageAccountKey", "auth", "sas_key", "key", "pwd", "privateKey"])
def test_secret_looking_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["dt", "dtf", "mode", "partition_key", "keys", "monkey", "author", "path",
                                  "passenger_count", "compass"])
def test_ordinary_names(name: str) -> None:
    assert not is_secret_name(name)


def test_variables_with_secret_names_become_stars_and_urls_are_masked() -> None:
    variables = {"dt": "2024-01-02", "mode": "DEV", "db_password": "hunter22", "limit": 5,
                 "source": "postgresql://etl:hunter22@db/shop", "opts": {"token": "t0ken-xyz", "n": 1}}
    masked = mask_variables(variables)
    assert masked == {"dt": "2024-01-02", "mode": "DEV", "db_password": "***", "limit": 5,
                      "source": "postgresql://etl:***@db/shop", "opts": {"token": "***", "n": 1}}
    assert variables["db_password"] == "hunter22"  # the caller's dict is not changed


def test_error_texts_are_masked_and_name_the_type() -> None:
    exc = ConnectionError("cannot reach postgresql://etl:hunter22@db/shop (password=hunter22)")
    text = format_error(exc)
    assert text.startswith("ConnectionError: cannot reach postgresql://etl:***@db/shop")
    assert "hunter22" not in text


def test_values_of_secret_variables_are_scrubbed_from_errors() -> None:
    text = mask_error("login failed for etl with 'Zk29-x!q' at db", secrets=["Zk29-x!q"])
    assert text == "login failed for etl with '***' at db"


def test_error_texts_are_capped() -> None:
    long = "ValueError: " + "x" * (ERROR_LIMIT * 3)
    capped = mask_error(long)
    assert capped is not None
    assert len(capped) == ERROR_LIMIT
    assert capped.startswith("ValueError: xxx") and capped.endswith("[truncated]")
    assert mask_error("short") == "short"
    assert len(format_error(RuntimeError("y" * 10_000), limit=100)) == 100


# --- the one masking path (ubunye.masking) -------------------------------------------------------
import json  # noqa: E402
import logging  # noqa: E402
import threading  # noqa: E402
import traceback  # noqa: E402

from ubunye.masking import HASH_KEYS, MASK, Masker, active, current, install_log_filter, mask, process  # noqa: E402


@pytest.mark.parametrize(
    "text, secret, kept",
    [
        # URL userinfo up to the last @ before the host: the password holds / @ :
        ("s3a://AKIAIOSFODNN7:wJalr/XUtn@FEMI:K7MD@bucket/path/x.parquet", "wJalr/XUtn@FEMI:K7MD", "@bucket/path"),
        ("redis://:Pw0rd-only@cache.internal:6379/0", "Pw0rd-only", "redis://:***@cache"),  # empty user
        ("jdbc:oracle:thin:scott/T1ger@pass@//db.internal:1521/ORCL", "T1ger@pass", "scott/***@//db.internal"),
        ("jdbc:oracle:thin:scott/Tig3r@db.internal:1521:ORCL", "Tig3r", "jdbc:oracle:thin:scott/"),
        ("jdbc:sqlserver://db:1433;user=sa;password={p;a}}ss=w0rd};encrypt=true", "ss=w0rd", ";encrypt=true"),
        ("jdbc:sqlserver://db:1433;user=sa;password={p;a}}ss=w0rd};encrypt=true", "{p;a", ";encrypt=true"),
        ("jdbc:postgresql://db:5432/shop?user=etl&password=pg-Secr3t&ssl=true", "pg-Secr3t", "&ssl=true"),
        ("jdbc:mysql://db:3306/shop?user=etl&password=my$ecr3t", "my$ecr3t", "user=etl"),
        ("jdbc:mysql://etl:myS3cr3t@db:3306/shop", "myS3cr3t", "@db:3306"),
        ("https://h/v?apikey=ak-1234567", "ak-1234567", "https://h/v?"),
        ("https://h/v?access_token=at-1234567&x=1", "at-1234567", "&x=1"),
        ("https://b.s3.example/k?X-Amz-Credential=AKIA%2F2026%2Fs3&X-Amz-Signature=f00dfeed99&X-Amz-Date=1",
         "f00dfeed99", "X-Amz-Date=1"),
        ("https://b.s3.example/k?X-Amz-Credential=AKIA%2F2026%2Fs3&X-Amz-Signature=f00dfeed99", "AKIA%2F2026", "?"),
        ("https://acct.blob/c?signature=SiG-value-1&sp=r", "SiG-value-1", "&sp=r"),
        ("https://h/v?secret=sh-value-2&password=pw-value-3", "sh-value-2", "https://h/v?"),
        ("Authorization: Bearer eyJ0eXAi.abc-DEF_1", "eyJ0eXAi.abc-DEF_1", "Authorization: Bearer ***"),
        ("curl -H 'Authorization: bearer abcd'", "abcd", "bearer ***"),
        ("Authorization: Basic ZXRsOmh1bnRlcjI=", "ZXRsOmh1bnRlcjI=", "Basic ***"),  # base64 of etl:hunter2
        ("{'password': 'dict-repr-pw', 'user': 'etl'}", "dict-repr-pw", "'user': 'etl'"),
        ('{"api_key": "json-key-9", "n": 1}', "json-key-9", '"n": 1'),
    ],
)
def test_each_form_is_masked_and_the_rest_kept(text: str, secret: str, kept: str) -> None:
    masked = Masker().text(text)
    assert secret not in masked
    assert MASK in masked and kept in masked


def test_basic_is_masked_only_as_a_credential() -> None:
    assert Masker().text("basic checks passed; Basic validation") == "basic checks passed; Basic validation"


@pytest.mark.parametrize("secret", ["Qz7x", "a/b@c:d", "multi\nline 'quoted' \"secret\" \\ value", "ünï-cødé-pw"])
def test_a_known_value_is_masked_raw_repr_json_collapsed_and_url_encoded(secret: str) -> None:
    from urllib.parse import quote

    masker = Masker([secret])
    forms = {secret, repr(secret), repr(repr(secret)), json.dumps(secret), json.dumps(secret, ensure_ascii=False),
             json.dumps(json.dumps(secret)), " ".join(secret.split()), quote(secret, safe=""), repr([{"x": secret}])}
    for form in forms:
        masked = masker.text(f"before {form} after")
        assert secret not in masked and " ".join(secret.split()) not in masked, (form, masked)
        assert masked.startswith("before ") and masked.endswith(" after")


def test_a_four_character_secret_is_masked_as_a_token_but_never_inside_a_digest_or_id() -> None:
    masker = Masker(["beef"])  # shorter than LONG: a token only (tests/safety/test_masking_round2.py)
    assert masker.text("pw=beef; xbeefx; beef") == "pw=***; xbeefx; ***"
    digest = "sha256:" + "0beef" * 12 + "abcd"
    run_id = "1beef234-0000-4000-8000-00000000beef"
    assert masker.text(f"{digest} {run_id}") == f"{digest} {run_id}"


def test_a_secret_shorter_than_four_is_masked_where_it_stands_alone() -> None:
    masker = Masker(["Q7", "p"])
    assert masker.text("pin Q7 at Q7x and (Q7)") == "pin *** at Q7x and (***)"
    assert masker.text("-t needs -u and -p; p=Q7-x") == "-t needs -u and -p; ***=Q7-x"


def test_each_line_of_a_multi_line_secret_is_masked_alone() -> None:
    key = "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\nAQEFAASCBKcwggSjAgEAAoIB\n-----END KEY-----"
    masked = Masker([key]).text("half printed: AQEFAASCBKcwggSjAgEAAoIB then cut")
    assert "AQEFAASCBKcwggSjAgEAAoIB" not in masked


def test_doc_masks_texts_and_secret_names_and_keeps_ids_and_hashes() -> None:
    masker = Masker(["beef"])
    doc = {"run_id": "beef-run", "data_hash": "sha256:beef", "seal": "sha256:beef", "error": "boom beef",
           "variables": {"db_password": 1234, "n": "beef", "flag": True},
           "inputs": [{"location": "postgresql://u:beef@h/db", "storage_signature": "beef:1"}]}
    out = masker.doc(doc)
    assert out["run_id"] == "beef-run" and out["data_hash"] == "sha256:beef" and out["seal"] == "sha256:beef"
    assert out["inputs"][0]["storage_signature"] == "beef:1"
    assert out["error"] == "boom ***" and out["variables"] == {"db_password": MASK, "n": MASK, "flag": True}
    assert out["inputs"][0]["location"] == "postgresql://u:***@h/db"
    assert {"run_id", "seal", "data_hash"} <= HASH_KEYS


def test_a_run_masker_learns_variables_and_locations_and_teaches_the_process() -> None:
    masker = Masker.for_run({"api_token": "tok-Run-A-1", "src": "postgresql://u:loc-Pw-A@h/db", "n": 3})
    with active(masker):
        assert current() is masker
        assert mask("x tok-Run-A-1 loc-Pw-A") == "x *** ***"
    assert current() is process()
    assert mask("later: tok-Run-A-1 and loc-Pw-A") == "later: *** and ***"  # task B of the same notebook


def test_a_thread_of_a_run_masks_what_the_run_learned() -> None:
    masker = Masker.for_run({})
    seen: list[str] = []
    with active(masker):
        masker.add("thread-secret-77")
        worker = threading.Thread(target=lambda: seen.append(mask("t: thread-secret-77")))
        worker.start()
        worker.join()
    assert seen == ["t: ***"]


def test_values_given_to_a_masker_stay_its_own() -> None:
    Masker(["only-mine-5521"]).text("x")
    assert process().text("only-mine-5521") == "only-mine-5521"


def test_log_records_of_ubunye_and_py4j_loggers_are_masked(caplog: pytest.LogCaptureFixture) -> None:
    install_log_filter()
    process().add("log-secret-4410")
    with caplog.at_level(logging.INFO):
        logging.getLogger("ubunye.lineage").error("cannot write %s", "log-secret-4410")
        logging.getLogger("py4j.clientserver").info("sent token=tk-in-log-1")
        try:
            raise ValueError("boom log-secret-4410")
        except ValueError:
            logging.getLogger("ubunye.x").exception("failed")
    text = caplog.text + "".join(r.exc_text or "" for r in caplog.records)
    assert "log-secret-4410" not in text and "tk-in-log-1" not in text
    assert "cannot write ***" in caplog.text


def test_engine_and_lineage_errors_are_masked_when_made() -> None:
    from ubunye.engine.errors import ConfigError, EngineError
    from ubunye.lineage.errors import RecordWriteError
    from ubunye.lineage.openlineage import PostError

    process().add("made-secret-3301")
    assert "made-secret-3301" not in str(EngineError("x made-secret-3301"))
    error = ConfigError("c.yaml", "CONFIG.inputs.a.mode", "got 'made-secret-3301'")
    assert "made-secret-3301" not in str(error) + error.reason + repr(error)
    assert "made-secret-3301" not in str(RecordWriteError("/r", "made-secret-3301"))
    assert "k-77" not in str(PostError("could not send to http://h/?api_key=k-77"))


def _failed_result(error: BaseException) -> object:
    from ubunye.engine.result import TaskResult

    return TaskResult(task_path="u/p/t", run_id="r", status="error", error=error, raised_at="transformations.py:3")


def test_task_failed_masks_its_text_and_chains_a_masked_copy_of_a_secret_cause() -> None:
    from ubunye.engine.runner import MaskedCause, failed

    process().add("cause-secret-2209")
    try:
        raise KeyError("inner cause-secret-2209")
    except KeyError as inner:
        try:
            raise RuntimeError("outer, plain") from inner
        except RuntimeError as outer:
            error = outer
    exc = failed(_failed_result(error))  # type: ignore[arg-type]
    shown = "".join(traceback.format_exception(exc)) + str(exc) + repr(exc) + repr(exc.result)
    assert "cause-secret-2209" not in shown
    assert isinstance(exc.__cause__, MaskedCause) and exc.__cause__.__traceback__ is None
    plain = failed(_failed_result(ValueError("nothing to hide")))  # type: ignore[arg-type]
    assert isinstance(plain.__cause__, ValueError)  # unchanged by masking: the original, with its frames


def test_task_result_reason_is_masked_after_collapsing() -> None:
    process().add("two\nline-secret-6")
    result = _failed_result(ValueError("got two\nline-secret-6"))
    assert "line-secret-6" not in result.reason()  # type: ignore[attr-defined]


def test_a_known_value_is_masked_before_a_rule_can_cut_it_in_two() -> None:
    secret = "it's \"R3pr\" \\pw"  # password=... would stop at the escaped quote of its repr
    masked = Masker([secret]).text(f"Conn(password={secret!r}, extra={[secret]!r})")
    assert "R3pr" not in masked and masked == "Conn(password=***, extra=['***'])"


def test_loading_a_config_teaches_the_masker_its_passwords_and_secret_settings(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ubunye.engine.config import load_config

    task = tmp_path / "u" / "p" / "t"
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(
        "CONFIG:\n  inputs:\n    a: {format: parquet, path: 's3a://AK:Cfg-Url-Pw/1@bucket/a'}\n"
        "  outputs:\n    b: {format: parquet, path: /tmp/b, options: {token: Cfg-Opt-Tok}}\n"
        "ENGINE:\n  spark_conf: {spark.hadoop.fs.s3a.secret.key: Cfg-S3-Secret}\n", encoding="utf-8")
    load_config(task, variables={"db_pass": "Cfg-Var-Pw", "n": "1"})
    shown = mask("Cfg-Url-Pw/1 Cfg-Opt-Tok Cfg-S3-Secret Cfg-Var-Pw 1")
    assert shown == "*** *** *** *** 1"


def test_a_short_number_under_a_secret_looking_name_is_not_learned() -> None:
    masker = Masker.for_run({"sig_figs": 3, "pin_password": 123456})
    assert masker.text("3 rows, pin 123456") == "3 rows, pin ***"


def test_a_printed_record_keeps_its_own_fields_whose_names_look_secret() -> None:
    text = '{"hash_pass": "materialised", "storage_signature": "size=4;mtime=5", "api_key": "k-1"}'
    assert Masker().text(text) == '{"hash_pass": "materialised", "storage_signature": "size=4;mtime=5", "api_key": "***"}'
    assert Masker().text("hash_pass=reused storage_signature=abc token=t-1") == (
        "hash_pass=reused storage_signature=abc token=***")
