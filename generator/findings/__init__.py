"""Sanity checks that turn suspicious data into explained findings.

Each finding has a stable id, a severity ("error": a number on the page is wrong;
"warning": a number is doubtful; "info": right, and unlike the analytic count for a stated
reason), the evidence with its numbers, and the fix. The checks
encode the mistakes the seed reports made (cited on the Replication page): a training step whose backward
range holds one kernel, tensor-core work counted as nothing, a clock of 10 GHz, a point
above its roof, MACs taken for FLOPs, noisy or drifting timings.
"""

from generator.findings.export_checks import (
    above_roof,
    export_findings,
    implausible_clock,
    incomplete_step,
    missing_metric,
    tensor_work_uncounted,
)
from generator.findings.flop_checks import flops_mismatch
from generator.findings.layer_checks import profiler_overhead
from generator.findings.run_checks import layer_time_by_phase
from generator.findings.specs import FINDING_IDS
from generator.findings.timing import blocks_timing_findings, throttle_findings, timing_findings
from generator.findings.trace_checks import trace_findings
from generator.records.finding import Finding, findings_json

__all__ = [
    "FINDING_IDS",
    "Finding",
    "above_roof",
    "blocks_timing_findings",
    "export_findings",
    "findings_json",
    "flops_mismatch",
    "implausible_clock",
    "incomplete_step",
    "layer_time_by_phase",
    "missing_metric",
    "profiler_overhead",
    "tensor_work_uncounted",
    "throttle_findings",
    "timing_findings",
    "trace_findings",
]
