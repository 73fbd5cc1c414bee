"""ubunye.locations: one parse for paths, URLs and tables; containment on a "/" boundary."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from ubunye.locations import EmptyLocation, Location, absolute, local_path, parse, static_prefix, table


@pytest.mark.parametrize("text", ["data/in", "./data/in", "data/x/../in", "data//in/", "file:data/in"])
def test_relative_paths_are_the_base_folders(tmp_path: Path, text: str) -> None:
    assert parse(text, base=tmp_path) == Location("file", "", str(tmp_path.resolve() / "data" / "in"))


def test_file_urls_and_plain_paths_are_one_place(tmp_path: Path) -> None:
    plain = parse(str(tmp_path / "in"), base="/elsewhere")
    assert parse(f"file://{tmp_path}/in", base="/x") == plain == parse(f"file:{tmp_path}/in/", base="/x")


def test_symlinks_are_resolved(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    assert parse("link/sub", base=tmp_path) == parse(str(tmp_path / "real" / "sub"), base="/")


@pytest.mark.parametrize("text", ["", "   ", "\t"])
def test_empty_and_blank_are_refused(text: str) -> None:
    with pytest.raises(EmptyLocation):
        parse(text, base="/")
    with pytest.raises(EmptyLocation):
        table(text)


@pytest.mark.parametrize("outer, inner, contains", [
    ("/data/in", "/data/in/x", True),
    ("/data/in", "/data/in", True),
    ("/data/in", "/data/input", False),  # a "/" boundary, not a text prefix
    ("/", "/anything", True),
    ("s3://bucket/in", "s3a://bucket/in/part", True),  # s3, s3a, s3n: one store
    ("s3n://key:secret@bucket/in/", "s3://bucket/in", True),  # userinfo dropped, trailing "/" too
    ("s3://bucket/in", "s3://other/in", False),
    ("hdfs://NN:8020/lake", "hdfs://nn:8020/lake/t", True),
    ("hdfs://nn:8020/lake", "hdfs://nn:9000/lake", False),
    ("gs://b/a/../x", "gs://b/x/y", True),
    ("abfss://c@acct.dfs.core.windows.net/x", "abfs://c@acct.dfs.core.windows.net/x/y", True),
    ("file:///data", "s3://data/x", False),
    ("s3a://AKIA:wJalr/XUt@bucket/in", "s3://bucket/in/x", True),  # a secret key holding "/"
    ("s3a://AKIA:p@ss@bucket/in", "s3://bucket/in", True),  # ... or "@"
    ("s3://bucket/key@2024", "s3://bucket/key@2024/x", True),  # an "@" in a path is a path
    ("hdfs://nn:8020/a@b", "hdfs://nn:8020/a@b/c", True),
])
def test_containment(outer: str, inner: str, contains: bool) -> None:
    assert parse(outer, base="/").contains(parse(inner, base="/")) is contains


def test_a_glob_names_the_folder_it_reads() -> None:
    assert static_prefix("/data/2024-*/x.csv") == "/data"
    assert parse("/data/*.parquet", base="/").contains(parse("/data/out", base="/"))
    assert parse("s3://b/in/*", base="/") == parse("s3://b/in", base="/")


def test_tables_by_qualified_name_without_case() -> None:
    assert table("Main.Shop.People") == table("`main`.`shop`.`people`")
    assert table("people").contains(table("main.shop.people"))  # the current schema may make them one
    assert not table("main.shop.people").contains(table("main.other.people"))
    assert not table("main.shop.people").overlaps(parse("/main/shop/people", base="/"))


def test_local_path_and_absolute() -> None:
    assert local_path("file:///a/b") == "/a/b" and local_path("s3://b/k") is None
    assert local_path("C:/data") == "C:/data"  # a one-letter scheme is a drive
    assert absolute("out", "/u") == "/u/out" and absolute("/abs", "/u") == "/abs"
    assert absolute("s3://b/k", "/u") == "s3://b/k" and absolute("file:///a", "/u") == "file:///a"
    assert absolute("file:rel/x", "/u") == "/u/rel/x"  # pandas would have read it under the cwd


def test_locations_is_pure() -> None:
    """Every layer may use it: it imports nothing from ubunye."""
    import ast

    import ubunye.locations as module

    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert [n for n in names if n.split(".")[0] == "ubunye"] == []


def test_the_report_joins_a_file_url_and_its_plain_path() -> None:
    from ubunye.lineage.record import Step
    from ubunye.lineage.report_model import dataset_key

    def key(location: str) -> str:
        return dataset_key("u/p/t", Step(name="o", direction="output", format="parquet", location=location))

    assert key("file:///data/out/") == key("/data/out") == key("/data/x/../out")
    assert key("s3a://b/k/") == "s3a://b/k"


@pytest.mark.parametrize("text, scheme, authority, path", [
    ("s3a://AKIA:wJalr/XUt@Bucket/in/", "s3", "bucket", "/in"),  # a secret key with "/": userinfo dropped
    ("s3a://AKIA:p@s/s@bucket/in", "s3", "bucket", "/in"),  # ... with "@" and "/"
    ("s3://bucket/key@2024", "s3", "bucket", "/key@2024"),  # an "@" in a path is a path
    ("hdfs://NN:8020/a@b", "hdfs", "nn:8020", "/a@b"),  # host:port, not user:password
    ("hdfs://nn:8020/a/b:x@y", "hdfs", "nn:8020", "/a/b:x@y"),
    ("hdfs://u@nn:8020/a@b", "hdfs", "nn:8020", "/a@b"),
    ("s3://b/in?versionId=1?x#frag#more", "s3", "b", "/in"),
    ("s3://b/in#frag#more", "s3", "b", "/in"),
    ("s3://b/Xin", "s3", "b", "/Xin"),
    ("dbfs:/Volumes/a/b", "dbfs", "", "/Volumes/a/b"),
    ("gs://b//a/../x/", "gcs", "b", "/x"),
    ("wasbs://c@acct.blob.core.windows.net/x", "wasb", "acct.blob.core.windows.net", "/x"),
    ("s3://b/in/2024-*/x*.csv", "s3", "b", "/in"),
])
def test_urls_parse_to_scheme_authority_and_path(text: str, scheme: str, authority: str, path: str) -> None:
    where = parse(text, base="/")
    assert where == Location(scheme, authority, path)
    assert str(where) == (f"{scheme}://{authority}{path}" if authority else f"{scheme}://{path}")


def test_exact_texts_of_paths_tables_and_refusals(tmp_path: Path) -> None:
    assert static_prefix("/data/2024-*/x*.csv") == "/data"
    assert local_path("file://") == "/"
    assert str(parse(str(tmp_path / "a"), base="/")) == str(tmp_path.resolve() / "a")
    assert table(" `Main` . Shop.`People` ") == Location("table", "", "main.shop.people")
    assert str(table("Main.Shop.People")) == "main.shop.people" and str(table("Xs.`Tx`")) == "xs.tx"
    assert table("shop.people").contains(table("main.shop.people"))
    assert parse("/data/X", base="/").contains(parse("/data/X/y", base="/"))
    assert not parse("/data/X", base="/").contains(parse("/data/Y", base="/"))
    for refused, message in ((lambda: parse(" ", base="/"), "empty location"),
                             (lambda: parse(None, base="/"), "empty location"),
                             (lambda: table(""), "empty table name")):
        with pytest.raises(EmptyLocation) as empty:
            refused()
        assert str(empty.value) == message


def test_a_relative_glob_names_the_folder_it_reads_from_under_the_base(tmp_path) -> None:
    from ubunye.locations import parse

    base = tmp_path / "uc"
    (base / "data").mkdir(parents=True)
    assert parse("*.csv", base=base).path == str(base.resolve())  # was "/": every output overlapped it
    assert parse("data*/x.csv", base=base).path == str(base.resolve())
    assert parse("data/2024-*/x.csv", base=base).path == str((base / "data").resolve())
    assert parse("/abs/*.csv", base=base).path == "/abs"
