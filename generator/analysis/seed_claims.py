"""The seed reports' claims (measurements/literature/claims.toml, records/seed_claims.py),
each judged by its checks (analysis/claim_checks.py): it holds when every check holds, does
not hold when one does not, and is not checkable when a check lacks a number (it says which).

The analytic counts are the seed-time prediction's (analysis/seed_inputs.counts_by_workload),
with the training steps of measurements/complexity/literature.csv (the `analytic:` rows'
counts, fp32) where those have none."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from generator.analysis.claim_checks import FAILS, HOLDS, JUDGES, OPEN, Judged, Sources
from generator.analysis.seed_prediction import Counts, WorkloadKey
from generator.catalog import Device
from generator.records.ceilings import MeasuredCeilings
from generator.records.literature import LiteratureRow
from generator.records.seed_claims import Claim

LITERATURE_SOURCE = "analytic count (measurements/complexity/literature.csv)"


@dataclass(frozen=True)
class JudgedClaim:
    claim: Claim
    checks: tuple[Judged, ...]

    @property
    def outcome(self) -> str:
        """HOLDS when every check holds; FAILS when one fails; else OPEN (not checkable)."""
        outcomes = {c.outcome for c in self.checks}
        return FAILS if FAILS in outcomes else OPEN if OPEN in outcomes else HOLDS


def with_literature_steps(
    counts: Mapping[WorkloadKey, Counts], literature: pl.DataFrame | None
) -> dict[WorkloadKey, Counts]:
    """`counts`, and the fp32 training step of every literature.csv row they lack."""
    found = dict(counts)
    if literature is None:
        return found
    for row in literature.to_dicts():
        key = (row["model"], row["dataset"], int(row["batch"]), "train_step", "fp32")
        # an older literature.csv has no minimal traffic: such a row adds nothing
        if key not in found and row.get("step_flops") and row.get("min_traffic_bytes"):
            found[key] = Counts(
                float(row["step_flops"]), float(row["min_traffic_bytes"]), LITERATURE_SOURCE
            )
    return found


def judge_claims(
    claims: Sequence[Claim],
    rows: Sequence[LiteratureRow],
    catalog: tuple[Device, ...],
    ceilings: Sequence[MeasuredCeilings],
    counts: Mapping[WorkloadKey, Counts],
) -> list[JudgedClaim]:
    """Every claim with its checks judged, in file order."""
    src = Sources({row.id: row for row in rows}, catalog, ceilings, counts)
    return [
        JudgedClaim(claim, tuple(JUDGES[check.kind](check, src) for check in claim.check))
        for claim in claims
    ]
