"""The one masking path (ubunye.masking) rule by rule: the forms a known secret takes, the
passwords a location teaches, errors and their causes, and the log and warning hooks."""
from __future__ import annotations

import json
import logging
import sys
import warnings
from urllib.parse import quote, quote_plus

import pytest

from ubunye import masking
from ubunye.masking import MASK, Masker, MaskedError, is_secret_name, safe_cause


@pytest.mark.parametrize("name, secret", [
    ("dbPassphrase", True), ("githubAuth", True), ("clientKey", True), ("Storage-Key", True),
    ("x.sig", True), ("upload pw", True), ("signingKey", True),
    ("authorName", False), ("partitionKey", False), ("PKey", False), ("pwdless_mode", True),
])
def test_secret_names_are_split_on_case_changes_and_separators(name: str, secret: bool) -> None:
    is_secret_name.cache_clear()  # decided afresh, not remembered from another test
    assert is_secret_name(name) is secret


def test_secret_names_split_into_lowercase_segments() -> None:
    assert masking._segments("clientSecretKey") == ["client", "secret", "key"]
    assert masking._segments("A2B.c-d  e__f") == ["a2", "b", "c", "d", "e", "f"]
    assert masking._segments("HTTPHeader") == ["httpheader"]


@pytest.mark.parametrize("secret", ['it\'s-"quoted"-9', "back\\slash-9", "näive-sécret", "tab\tsep-9",
                                    "plus+and/slash 9", "pässwort\x01-9"])
def test_a_known_secret_is_masked_in_every_form_a_text_can_carry_it(secret: str) -> None:
    m = Masker([secret])
    r = repr(secret)[1:-1]
    forms = {
        "raw": secret, "repr": r, "repr with escaped single quotes": r.replace("'", "\\'"),
        "repr with escaped double quotes": r.replace('"', '\\"'), "repr of the repr": repr(r)[1:-1],
        "json": json.dumps(secret)[1:-1], "json utf-8": json.dumps(secret, ensure_ascii=False)[1:-1],
        "json in json": json.dumps(json.dumps(secret)[1:-1])[1:-1], "url-encoded": quote(secret, safe=""),
        "form-encoded": quote_plus(secret),
    }
    for how, form in forms.items():
        assert m.text(f"<{form}>") == f"<{MASK}>", how


def test_a_secret_is_masked_with_its_whitespace_collapsed() -> None:
    assert Masker(["two  spaced\twords"]).text("said two spaced words here") == f"said {MASK} here"


def test_each_line_of_a_multi_line_secret_of_eight_characters_or_more_is_masked() -> None:
    m = Masker(["line-one-x\r\n12345678\r\nshort7x"])
    assert m.text("a line-one-x b") == f"a {MASK} b"
    assert m.text("a 12345678 b") == f"a {MASK} b"  # exactly eight: masked
    assert m.text("a short7x b") == "a short7x b"  # seven: too common to mask alone
    assert Masker(["carriage-one\rcarriage-two"]).text("x carriage-two") == f"x {MASK}"
    assert m.text("[line-one-x\r\n12345678\r\nshort7x]") == f"[{MASK}]"  # the whole value too


def test_the_longest_known_secret_is_masked_whole() -> None:
    m = Masker(["abcd", "abcdefgh-long"])
    assert m.text("x abcdefgh-long y") == f"x {MASK} y"


def test_a_masker_masks_what_its_parent_knows() -> None:
    parent = Masker(["parent-secret-1"])
    child = Masker(["child-secret-2"], parent=parent)
    assert child.text("parent-secret-1 child-secret-2") == f"{MASK} {MASK}"
    assert parent.text("child-secret-2") == "child-secret-2"  # given to the child only


def test_none_and_blank_values_are_never_secrets() -> None:
    m = Masker([None, "", "  "])  # type: ignore[list-item]
    assert m.values() == frozenset()
    assert m.text("None XXXX") == "None XXXX"


def test_add_keeps_numbers_of_four_digits_or_more_but_never_a_boolean() -> None:
    m = Masker()
    m.add(True)
    m.add(123)
    m.add(4242)
    assert m.values() == frozenset({"4242"})
    assert m.text("True 123 4242") == f"True 123 {MASK}"


def test_a_short_secret_text_is_learnt_and_masked_where_it_stands_alone() -> None:
    """The rule for numbers shorter than four digits (a setting, ``sig_figs: 3``) is for numbers:
    a secret text of one to three characters is still a secret."""
    m = Masker()
    for value in ("k9", "x", "Q7!"):
        m.add(value)
    assert m.values() == frozenset({"k9", "x", "Q7!"})
    assert m.text("key k9 then Q7! and x") == f"key {MASK} then {MASK} and {MASK}"


@pytest.mark.parametrize("location, decoded", [
    ("postgresql://etl:p%40ss%2Fw0rd@db:5432/x", "p@ss/w0rd"),
    ("https://x/y?sig=a%2Bb%3Dc+d&mode=1", "a+b=c d"),
])
def test_a_percent_encoded_password_is_learnt_decoded_too(location: str, decoded: str) -> None:
    """A driver decodes a URL's password and may print what it decoded."""
    m = Masker()
    m.add_location(location)
    assert decoded in m.values()
    assert m.text(f"login failed with {decoded} for etl") == f"login failed with {MASK} for etl"


@pytest.mark.parametrize("location, learned", [
    ("jdbc:sqlserver://db;user=etl;password={a;b}}c};encrypt=true", {"{a;b}}c}", "a;b}c"}),
    ("host=db password='quoted pw' user=etl", {"quoted pw"}),
    ('Server=db;Pwd="dq-pass";', {"dq-pass"}),
    ("https://x/y?sig=plainsig&mode=1", {"plainsig"}),
    ("https://x/y?mode=plain&user=etl", set()),
    ("token={abc", {"{abc"}),
    ("password=Xylophone9X", {"Xylophone9X"}),
    ("sqlserver://etl:urlpw-1@db;password={br}}ace}", {"urlpw-1", "{br}}ace}", "br}ace"}),
])
def test_a_location_teaches_the_values_of_its_secret_parameters(location: str, learned: set[str]) -> None:
    m = Masker()
    m.add_location(location)
    assert m.values() == frozenset(learned)


def test_a_learned_braced_password_is_masked_in_its_unescaped_form_too() -> None:
    m = Masker()
    m.add_location("Driver={X};PWD={p;w}}d-9};")
    assert m.text("connect failed for p;w}d-9") == f"connect failed for {MASK}"


def test_basic_credentials_of_any_padding_are_masked() -> None:
    for token in ("ZXRsOmh1bnRlcjI", "ZXRsOmh1bnRlcjIx", "ZXRsOmh1bnRlcg"):  # etl:hunter2, etl:hunter21, etl:hunter
        assert Masker().text(f"Authorization: Basic {token}") == f"Authorization: Basic {MASK}", token
    assert Masker().text("Basic aGVsbG8") == "Basic aGVsbG8"  # "hello": no user:password


def test_an_error_without_a_message_is_its_type_alone() -> None:
    assert Masker().error(ValueError()) == "ValueError"
    assert Masker().error(KeyError("password=x")) == "KeyError: 'password=***'"


def test_an_error_is_cut_only_past_its_limit() -> None:
    text = "e" * 40
    assert Masker().error(text, limit=40) == text
    assert Masker().error(text, limit=39) == "e" * (39 - len(masking._TRUNCATED)) + masking._TRUNCATED
    assert Masker().error(text, limit=3) == masking._TRUNCATED  # no room for any of the text


def test_doc_keeps_the_given_fields_at_every_depth() -> None:
    doc = {"a": {"keep": "pw=1 password=x"}, "b": [{"keep": "password=y"}], "keep": "password=z"}
    got = Masker().doc(doc, skip=frozenset({"keep"}))
    assert got == doc


def test_mask_doc_uses_the_current_masker() -> None:
    with masking.active(Masker(["run-secret-7"])):
        assert masking.mask_doc({"note": "run-secret-7", "n": 5}) == {"note": MASK, "n": 5}


def test_a_masked_error_masks_its_texts_and_keeps_other_arguments() -> None:
    with masking.active(Masker(["err-secret-8"])):
        err = MaskedError("failed with err-secret-8", 5, None)
    assert err.args == (f"failed with {MASK}", 5, None)


def _raise_chain(inner: BaseException, outer: type[BaseException], *, suppress: bool = False) -> BaseException:
    try:
        try:
            raise inner
        except BaseException:
            if suppress:
                raise outer("outer") from None
            raise outer("outer")
    except BaseException as exc:
        return exc


def test_safe_cause_follows_the_implicit_context() -> None:
    error = _raise_chain(ValueError("password=hunter22"), RuntimeError)
    safe = safe_cause(error, Masker())
    assert isinstance(safe, masking.MaskedCause)
    assert str(safe) == "RuntimeError: outer"


def test_safe_cause_does_not_follow_a_suppressed_context() -> None:
    error = _raise_chain(ValueError("password=hunter22"), RuntimeError, suppress=True)
    assert safe_cause(error, Masker()) is error


def test_safe_cause_masks_the_text_of_the_error_it_replaces() -> None:
    safe = safe_cause(ValueError("password=hunter22"), Masker())
    assert str(safe) == f"ValueError: password={MASK}"


def test_safe_cause_checks_the_repr_as_well_as_the_text() -> None:
    class Quiet(Exception):
        def __str__(self) -> str:
            return "nothing to see"

    error = Quiet("password=hunter22")
    assert isinstance(safe_cause(error, Masker()), masking.MaskedCause)


@pytest.fixture
def plain_logging():  # type: ignore[no-untyped-def]
    """The logging record factory as Python starts (restored after)."""
    before = logging.getLogRecordFactory()
    logging.setLogRecordFactory(logging.LogRecord)
    yield
    logging.setLogRecordFactory(before)


def _record(name: str, msg: str, *args: object, exc_info: object = None) -> logging.LogRecord:
    return logging.getLogRecordFactory()(name, logging.WARNING, __file__, 1, msg, args, exc_info)


def test_the_log_filter_masks_only_the_named_loggers_and_their_children(plain_logging: None) -> None:
    masking.install_log_filter(("ubunye", "py4j"))
    installed = logging.getLogRecordFactory()
    masking.install_log_filter(("other",))  # installed once: the second call changes nothing
    assert logging.getLogRecordFactory() is installed
    assert getattr(logging.getLogRecordFactory(), "ubunye_masking", False)
    with masking.active(Masker(["log-secret-9"])):
        for name in ("ubunye", "ubunye.lineage", "py4j.java_gateway"):
            record = _record(name, "saw %s", "log-secret-9")
            assert (record.getMessage(), record.args) == (f"saw {MASK}", None), name
        for name in ("ubunyex", "other", "app.ubunye"):
            record = _record(name, "saw %s", "log-secret-9")
            assert record.getMessage() == "saw log-secret-9", name


def test_the_log_filter_masks_a_broken_format_and_a_traceback(plain_logging: None) -> None:
    masking.install_log_filter()
    with masking.active(Masker(["log-secret-9"])):
        broken = _record("ubunye", "%d items", "log-secret-9")
        assert broken.getMessage() == f"%d items ('{MASK}',)"
        try:
            raise ValueError("failed at log-secret-9")
        except ValueError:
            failed = _record("ubunye", "failed", exc_info=sys.exc_info())
    assert failed.exc_info is None
    assert failed.exc_text.startswith("Traceback (most recent call last):\n  File ")
    assert "log-secret-9" not in failed.exc_text and failed.exc_text.endswith(f"ValueError: failed at {MASK}")


def test_the_log_filter_masks_the_traceback_of_an_error_never_raised(plain_logging: None) -> None:
    masking.install_log_filter()
    with masking.active(Masker(["log-secret-9"])):
        for tail in ("  ", "X"):  # only the traceback's last newline is cut
            error = ValueError(f"failed at log-secret-9{tail}")
            record = _record("ubunye", "failed", exc_info=(ValueError, error, None))
            assert (record.exc_info, record.exc_text) == (None, f"ValueError: failed at {MASK}{tail}")


def test_the_log_filter_passes_keyword_arguments_to_the_factory_it_wraps(plain_logging: None) -> None:
    masking.install_log_filter()
    record = logging.getLogRecordFactory()("ubunye", logging.INFO, __file__, 1, "m", None, None, func="f",
                                            sinfo="stack")
    assert (record.funcName, record.stack_info) == ("f", "stack")


def test_the_log_filter_passes_every_record_on() -> None:
    record = logging.LogRecord("ubunye", logging.INFO, __file__, 1, "plain", None, None)
    assert masking.MaskFilter().filter(record) is True
    assert (record.msg, record.exc_text) == ("plain", None)


def test_the_warning_mask_wraps_the_formatter_once() -> None:
    before = warnings.formatwarning
    seen: list[tuple[object, ...]] = []

    def plain(message, category, filename, lineno, line=None):  # type: ignore[no-untyped-def]
        seen.append((str(message), category, filename, lineno, line))
        return f"{filename}:{lineno}: {category.__name__}: {message}\n"

    warnings.formatwarning = plain
    try:
        masking.install_warning_mask()
        shown = warnings.formatwarning
        masking.install_warning_mask()
        assert warnings.formatwarning is shown
        assert getattr(shown, "ubunye_masking", False)
        with masking.active(Masker(["warn-secret-5"])):
            text = shown(UserWarning("saw warn-secret-5"), UserWarning, "f.py", 7, "src")
        assert text == f"f.py:7: UserWarning: saw {MASK}\n"
        assert seen == [("saw warn-secret-5", UserWarning, "f.py", 7, "src")]  # wrapped once, all passed
    finally:
        warnings.formatwarning = before
