"""The object-store backend (store/objects.py, through obstore's memory:// store): what each call returns and refuses."""
from __future__ import annotations
