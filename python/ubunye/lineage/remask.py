"""Run records read back, masked: :func:`reread`, which :meth:`RunRecord.from_dict` applies to
every record it loads (after the seal check), so a record of another writer (ubunye-engine
0.8.0), or one this package wrote before a masking rule was added, is masked by today's rules
and by the values of the secret-named variables it carries before anything shows it. A record
masked when it was written is returned as it is, found without copying it: every record read
passes here, so the walk is written for speed (exact JSON types first).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ubunye.masking import HASH_KEYS, MASK, USER_KEYS, Masker, is_secret_name

# A text some rule could change holds one of these (the URL and Oracle forms an ``@``, a parameter
# an ``=``, a quoted pair a quote then ``:``, a token its kind): other texts are left unread.
_RULE_HINT = re.compile(r"[@=]|[\"']\s*:|(?i:bearer|basic)")


def reread(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    """A JSON document read back (a run record: another program's, or one written before a rule
    was added) as it may be shown: masked by the rules and by the values of the secret-named
    variables it carries (``doc["variables"]``), ids and hashes kept (:meth:`Masker.doc`).
    ``doc`` itself when that would change nothing, which is found without copying it."""
    masker = Masker()
    variables = doc.get("variables")
    if isinstance(variables, Mapping):
        masker.add_variables(variables)
    values = masker.values()
    if len(values) > REREAD_VALUES:  # a forged record with thousands: never a pattern of thousands
        masker = Masker(sorted(values, key=len, reverse=True)[:REREAD_VALUES])
    if values or _rules_change(doc, masker):
        return masker.doc(doc)
    return doc


REREAD_VALUES = 256  # at most this many of a record's secret values (the longest) mask its texts


_PLAIN, _KEPT, _SECRET, _HINTED = 0, 1, 2, 4  # _HINTED: a flag beside the others
_KEY_KINDS: dict[Any, int] = {}  # a key -> how Masker.doc treats its value (records repeat the same keys)


def _key_kind(key: Any) -> int:
    kind = _KEY_KINDS.get(key)
    if kind is None:
        name = str(key)
        kind = _KEPT if name in HASH_KEYS else _SECRET if is_secret_name(name) else _PLAIN
        if kind != _KEPT and _RULE_HINT.search(name):
            kind |= _HINTED
        if len(_KEY_KINDS) < 10_000:
            _KEY_KINDS[key] = kind
    return kind


def _rules_change(doc: Any, masker: Masker) -> bool:
    """True when :meth:`Masker.doc` would change ``doc`` (a masker that knows no value): a value
    under a secret-looking key, or a text a rule changes. Every record read passes here: the tree
    is walked once (the exact JSON types first: an ``isinstance`` against an abstract class costs
    more than the rest), its texts searched together for what a rule needs, and only on a hit one
    by one."""
    texts: list[str] = []
    stack = [doc]
    kinds = _KEY_KINDS
    while stack:
        obj = stack.pop()
        if type(obj) is list or (type(obj) is not dict and not isinstance(obj, Mapping)):  # or a tuple
            for value in obj:
                kind = type(value)
                if kind is str:
                    texts.append(value)
                elif kind is dict or kind is list:
                    stack.append(value)
                elif kind not in _NUMBERS and value is not None:
                    if isinstance(value, str):
                        texts.append(value)
                    elif isinstance(value, (Mapping, list, tuple)):
                        stack.append(value)
            continue
        for key, value in obj.items():
            kind = kinds.get(key)
            if kind is None:
                kind = _key_kind(key)
            if kind & _HINTED:  # a key a rule could change (a URL with a password): masked like a text
                texts.append(str(key))
                kind &= ~_HINTED
            if kind == _KEPT or value is None:
                continue
            vtype = type(value)
            if vtype is str:
                if kind == _SECRET and value != MASK:
                    return True
                texts.append(value)
            elif vtype is dict and key in USER_KEYS:
                if _user_keys_change(value, texts):
                    return True
            elif vtype is dict:
                stack.append(value)
            elif vtype is bool:
                continue
            elif kind == _SECRET:
                if not isinstance(value, Mapping):
                    return True  # a number or a list under a secret-looking key: Masker.doc writes ***
                stack.append(value)
            elif vtype is list:
                stack.append(value)
            elif vtype not in _NUMBERS:
                if isinstance(value, str):
                    texts.append(value)
                elif isinstance(value, (Mapping, list, tuple)):
                    stack.append(value)
    hint = _RULE_HINT.search
    if not hint("\n".join(texts)):
        return False
    return any(hint(t) and masker.text(t) != t for t in texts)


_NUMBERS = (int, float, bool)


def _user_keys_change(obj: Any, texts: list[str]) -> bool:
    """:func:`_rules_change` inside :data:`USER_KEYS` (no key kept), its texts added to ``texts``."""
    if isinstance(obj, str):
        texts.append(obj)
    elif isinstance(obj, Mapping):
        for key, value in obj.items():
            texts.append(str(key))  # the user's names are masked like texts
            if value is None or isinstance(value, bool):
                continue
            if is_secret_name(str(key)) and not isinstance(value, Mapping):
                if value != MASK:
                    return True
            elif _user_keys_change(value, texts):
                return True
    elif isinstance(obj, (list, tuple)):
        return any(_user_keys_change(value, texts) for value in obj)
    return False
