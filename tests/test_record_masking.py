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
