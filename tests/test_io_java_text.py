"""Bad UTF-8 decoded as Java's REPLACE decoder counts it (ubunye.io.java_text)."""
from ubunye.io.java_text import java_decode


def test_surrogate_is_one_replacement_as_in_java() -> None:
    assert java_decode(b"\xed\xa0\x80x", "utf-8") == "\ufffdx"
    assert java_decode(b"\xed\xa0", "utf-8") == "\ufffd"
    assert java_decode(b"\xed\xbfa", "utf-8") == "\ufffda"


def test_other_bad_bytes_as_python_replace() -> None:
    assert java_decode(b"\xe2\x82", "utf-8") == "\ufffd"
    assert java_decode(b"\xf0\x80\x80\x80", "utf-8") == "\ufffd" * 4
    assert java_decode(b"\xed\x9f\xbf\xff", "utf-8") == "\ud7ff\ufffd"
    assert java_decode(b"caf\xe9", "iso-8859-1") == "caf\u00e9"
