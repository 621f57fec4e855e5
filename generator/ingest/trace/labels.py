"""Range names in a trace: the profiler's own step ranges, and the ones `nox -s measure`
writes into its profiled step (phases, and one per module call) for the ingest to read back."""

STEP_PREFIX = "ProfilerStep#"
PHASE_PREFIX = "ra::"  # ra::forward, ra::loss, ra::backward, ra::optimizer_step (NVTX too)
LAYER_PREFIX = "ra.layer::"  # ra.layer::<module path>, named as the complexity walk names layers
ROOT_LAYER = "(model)"  # the model's own module
