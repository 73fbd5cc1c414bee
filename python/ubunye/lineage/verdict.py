"""The one rule of "proven the same": two run records in, a :class:`Verdict` out.

:func:`decide` is the only place that says two runs' data are the same; ``ubunye lineage
compare``, ``ubunye lineage diff`` and the library's :func:`~ubunye.lineage.compare.compare_records`
all take their verdict (and their exit code) from it. A verdict is one of:

- ``proven_same`` (exit 0): both runs succeeded, they are two different runs, and every
  input and output is in both with its row count, schema hash and data hash ``unchanged``
  (rows-v1 hashes on both sides);
- ``differs`` (exit 1): some input or output changed, or is in one run only;
- ``not_proven`` (exit 1): nothing shown to differ, but something cannot be checked: a hash
  unknown or missing, hashes not comparable (different methods, older than rows-v1), a run
  that failed, was interrupted or is still running, the same run given twice, no input or
  output at all, or a record the trust check refuses.

Each reason is one line (:attr:`Verdict.reasons`); anything not proven is never exit 0.

The trust hook
--------------
``decide(a, b, *, trust=None)``: ``trust`` is a callable ``record -> Optional[str]`` called
once per record (run A, then run B). It returns None when it trusts the record, else one
line saying why not (``"unsigned"``, ``"signature does not match"``, ``"chain broken at
<run id>"``). Any such line makes the verdict ``not_proven`` (a forged record proves no
difference either) with the reason ``run A not proven: <line>`` (:func:`distrust`). A trust
check (signed records, chains: :mod:`ubunye.lineage.attestation`) plugs in there and nowhere
else: ``compare_records(a, b, trust=...)``, ``diff_records(a, b, trust=...)`` and
``verify_record(record, trust=...)`` (one record against its data now) pass it on; the report's
verdict against the run before (:mod:`ubunye.lineage.report_model`) is :func:`decide`'s too.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Optional, Sequence

from ubunye.lineage.step_diff import (CHANGED, MISSING, UNCHANGED, StepDiff, compare_run_steps, describe_problem,
                                      status_problem)

if TYPE_CHECKING:
    from ubunye.lineage.record import RunRecord

PROVEN_SAME = "proven_same"
DIFFERS = "differs"
NOT_PROVEN = "not_proven"

# record -> None (trusted) or one line saying why the record is not trusted
Trust = Callable[["RunRecord"], Optional[str]]


@dataclass(frozen=True)
class Verdict:
    """What two runs' records prove about their data, and why (one line per reason)."""

    outcome: str
    reasons: tuple[str, ...] = ()
    # the reasons about the runs themselves (trust, status, one run twice), not about one step:
    # a command that lists the steps' differences still says these
    about_runs: tuple[str, ...] = ()

    @property
    def proven_same(self) -> bool:
        return self.outcome == PROVEN_SAME

    @property
    def exit_code(self) -> int:
        """0 only when proven the same; 1 when the data differs or is not proven the same."""
        return 0 if self.proven_same else 1

    def line(self) -> str:
        """The verdict in one line."""
        if self.proven_same:
            return "data proven the same: every input and output matches"
        head = "data differs" if self.outcome == DIFFERS else "data NOT proven the same"
        return f"{head}: {'; '.join(self.reasons)}"

    def to_dict(self) -> dict[str, object]:
        return {"outcome": self.outcome, "reasons": list(self.reasons), "about_runs": list(self.about_runs)}


def distrust(record: "RunRecord", label: str, trust: Optional[Trust]) -> Optional[str]:
    """The trust hook's one line about ``record`` (``"<label> not proven: <why>"``), or None when
    there is no hook or it trusts the record; ``lineage verify`` asks it too."""
    why = trust(record) if trust is not None else None
    return f"{label} not proven: {' '.join(str(why).split())}" if why else None


def judged(about_runs: Sequence[str], about_steps: Sequence[str], *, differs: bool = False,
           untrusted: bool = False) -> Verdict:
    """The verdict from what was found, one line per reason: ``differs`` when a step's reason is a
    proven change, ``untrusted`` when the trust check refused a record (then nothing is proven,
    not even a difference); no reason at all is proven the same."""
    reasons = (*about_runs, *about_steps)
    if not reasons:
        return Verdict(PROVEN_SAME)
    return Verdict(DIFFERS if differs and not untrusted else NOT_PROVEN, reasons, tuple(about_runs))


def decide(a: "RunRecord", b: "RunRecord", *, steps: Optional[Sequence[StepDiff]] = None,
           trust: Optional[Trust] = None) -> Verdict:
    """Whether runs ``a`` and ``b`` are proven the same. ``steps``: the inputs and outputs to judge
    (default: all of both runs, :func:`~ubunye.lineage.compare.compare_run_steps`; ``diff --name``
    passes one); ``trust``: the hook described in the module docstring."""
    judged_steps = list(compare_run_steps(a, b) if steps is None else steps)
    runs = [r for r in (distrust(a, "run A", trust), distrust(b, "run B", trust)) if r]
    untrusted = bool(runs)
    runs += [p for p in (status_problem(a, "run A"), status_problem(b, "run B")) if p]
    if a.run_id == b.run_id:
        runs.append(f"run A and run B are the same run ({a.run_id}): a run compared with itself proves nothing")
    if not judged_steps:
        runs.append("neither run recorded any input or output")
    steps_ = [describe_problem(s) for s in judged_steps if s.verdict != UNCHANGED]
    differs = any(s.verdict in (CHANGED, MISSING) for s in judged_steps)
    return judged(runs, steps_, differs=differs, untrusted=untrusted)
