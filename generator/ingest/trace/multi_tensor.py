"""A fused Adam's kernels that no op launched (apex's `FusedAdam`, launched straight from its
`Optimizer.step#FusedAdam.step` range), costed from what the trace records of each: its
name (the functor, the tensor lists' depth, the element type) and its grid.

`multi_tensor_apply` splits each tensor into chunks of 65,536 elements (apex's
`multi_tensor_applier = MultiTensorApply(2048 * 32)`, PyTorch's `kChunkSize`) and runs one
block per chunk, launching when a launch holds 320 blocks or 36 tensors (depth 4, Adam's
p, g, m, v: `depth_to_max_tensors[3]`). Only a tensor's last chunk is partial, so a launch
of G blocks with at most N = 36 tensors updates between
(G - min(G, N)) · 65,536 + min(G, N) and G · 65,536 elements: an interval, labelled bounded.
Each element is one Adam step (conventions.OPTIMIZERS["adam"]: 13 FLOPs; p, g, m, v read,
p, m, v written, at the element type's size).
"""

from __future__ import annotations

import json
import re

from generator.complexity.conventions import OPTIMIZERS
from generator.ingest.trace.formulas import Cost

CHUNK = 2048 * 32
DEPTH = 4  # p, g, m, v: the lists of the 7-access step (amsgrad's fifth is another model)
MAX_TENSORS = 36  # tensors per launch at depth 4 (multi_tensor_apply's depth_to_max_tensors)
ADAM = re.compile(
    r"(?:void )?(?:[\w:() ]*::)?multi_tensor_apply_kernel<(?:[\w:() ]*::)?"
    r"(?:FusedOptimizer)?TensorListMetadata<(\d)>, (?:[\w:() ]*::)?"
    r"(?:AdamFunctor|FusedAdamMathFunctor)<(float|c10::Half|c10::BFloat16|double)\b"
)
ELEMENT_BYTES = {"float": 4, "c10::Half": 2, "c10::BFloat16": 2, "double": 8}
BY_GRID = "fused Adam (no op; by its grid)"  # the op these kernels are shown as


def adam_kernel_cost(kernel: str, config: str | None) -> Cost | None:
    """A launch-less fused Adam kernel's bounded cost from its grid (config: grid|block|...),
    or None for another kernel or one whose grid was not recorded."""
    found = ADAM.match(kernel)
    if found is None or not config:
        return None
    depth, element = int(found.group(1)), found.group(2)
    try:
        grid = json.loads(config.split("|")[0])
    except ValueError:
        return None
    if depth != DEPTH or not isinstance(grid, list) or not grid:
        return None
    blocks = 1
    for side in grid:
        blocks *= int(side)
    partial = min(blocks, MAX_TENSORS)
    low, high = (blocks - partial) * CHUNK + partial, blocks * CHUNK
    adam = OPTIMIZERS["adam"]
    size = adam.accesses_per_param * ELEMENT_BYTES[element]
    return Cost(
        float(adam.flops_per_param * low),
        float(size * low),
        "optimizer",
        element,
        bounded=True,
        flops_upper=float(adam.flops_per_param * high),
        bytes_upper=float(size * high),
    )
