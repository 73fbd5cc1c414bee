"""Generate the demo's input files: ``orders.csv`` and ``customers.json`` (JSON lines).

Deterministic (seeded), small, and awkward on purpose: quotes and backslashes,
commas, non-ASCII and emoji in text, NaN beside empty (null) amounts, nested
addresses and tag lists, a customer with no address.

    python examples/generate_data.py OUT_DIR [--change]

``--change`` alters one order's amount: the input a later run is caught on.
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

CITIES = ["Durban", "Soweto", "Cape Town", "Gqeberha", "Polokwane", None]
NAMES = ["Thabo Mokoena", 'Anna "Annie" Dlamini', "Sipho", "Zoë Naidoo 😀", "Lindiwe\\Zulu", "Pieter, van Wyk"]
NOTES = ["", "leave at gate", 'said "hi", then left', "naïve café order", "tab\tinside", "ok"]


def csv_text(value: str) -> str:
    """A CSV field as Spark writes one: quoted when needed, quotes escaped with a backslash."""
    if value == "":
        return ""
    if any(c in value for c in ',"\\\n\t') or value != value.strip():
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return value


def orders(rng: random.Random, change: bool) -> str:
    lines = ["order_id,customer_id,quantity,amount,ordered_at,note"]
    for i in range(1, 401):
        customer = rng.randint(1, 60)
        quantity = rng.randint(1, 9)
        roll = rng.random()
        amount = "" if roll < 0.03 else ("NaN" if roll < 0.05 else f"{rng.randint(100, 99999) / 100:.2f}")
        if change and i == 7:
            amount = "12345.67"
        day = 1 + (i % 28)
        ordered_at = f"2024-03-{day:02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
        note = csv_text(NOTES[rng.randrange(len(NOTES))])
        lines.append(f"{i},{customer},{quantity},{amount},{ordered_at},{note}")
    lines.append(lines[-1])  # a duplicated order, removed by clean
    return "\n".join(lines) + "\n"


def customers(rng: random.Random) -> str:
    rows = []
    for c in range(1, 61):
        city = CITIES[rng.randrange(len(CITIES))]
        row: dict[str, object] = {
            "customer_id": c,
            "name": f"{NAMES[c % len(NAMES)]} #{c}",
            "email": f"customer{c}@example.org" if c % 11 else f"customer{c} at example",
            "tags": rng.sample(["vip", "new", "wholesale", "ñandú"], k=rng.randint(0, 2)),
        }
        if c % 13:
            row["address"] = {"city": city, "zip": f"{rng.randint(1000, 9999)}"}
        rows.append(json.dumps(row, ensure_ascii=False))
    return "\n".join(rows) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--change", action="store_true", help="alter one order's amount")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(20240301)
    (args.out / "orders.csv").write_text(orders(rng, args.change), encoding="utf-8")
    (args.out / "customers.json").write_text(customers(random.Random(7)), encoding="utf-8")
    print(f"[demo] wrote {args.out / 'orders.csv'} and {args.out / 'customers.json'}")


if __name__ == "__main__":
    main()
