"""The analytic memory footprint of one step: what must be resident at its peak.

Parameters are fp32 whatever the precision (autocast keeps fp32 weights); a training step
adds their gradients, the optimizer's state (a momentum buffer for SGD with momentum, two
moments for Adam) and the activations autograd saves for the backward (`activation_bytes`);
an inference pass holds only the largest layer's input and output at once. The input batch
is counted in both. Allocator pools, workspaces and code are not: a measured peak above this
is what they add."""

from __future__ import annotations

import math

from generator.complexity.analyze import Complexity
from generator.records.run_parts import Footprint

PARAMETER_BYTES = 4  # fp32 master weights
OPTIMIZER_STATE_TENSORS = {"sgd": 0, "sgd-momentum": 1, "adam": 2}


def footprint(complexity: Complexity, token_inputs: bool) -> Footprint:
    """Bytes of each part and their total (`total_bytes`)."""
    weights = complexity.params * PARAMETER_BYTES
    training = complexity.training
    element = 8 if token_inputs else complexity.element_bytes  # token ids are int64
    inputs = complexity.batch * math.prod(complexity.input_shape) * element
    if training:
        activations = complexity.activation_bytes
    else:
        largest = max(
            (layer.input_elements + layer.output_elements for layer in complexity.layers),
            default=0,
        )
        activations = largest * complexity.element_bytes
    gradients = weights if training else 0
    optimizer_state = weights * OPTIMIZER_STATE_TENSORS[complexity.optimizer] if training else 0
    return {
        "parameters_bytes": weights,
        "gradients_bytes": gradients,
        "optimizer_state_bytes": optimizer_state,
        "activations_bytes": activations,
        "input_bytes": inputs,
        "total_bytes": weights + gradients + optimizer_state + activations + inputs,
    }
