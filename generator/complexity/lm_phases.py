"""Prefill and decode of a causal language model, as the walk feeds them.

Prefill is one forward pass over the prompt with the KV cache on: the cache holds the
key and value projections the pass computes anyway, so it adds no traffic. Decode is one
new token against a cache of the prompt; transformers' DynamicCache appends by
concatenation, which reads the whole cache and writes it one token longer, and attention
then reads it again. That append is the row this module adds: 0 FLOP, all bytes, which
is why decode's arithmetic intensity sits near 1 FLOP/byte.
"""

from __future__ import annotations

from typing import Any

from generator.complexity.costs import LayerCost


def _cache_elements(cache: Any) -> int:
    total = 0
    for layer in getattr(cache, "layers", []):
        for tensor in (getattr(layer, "keys", None), getattr(layer, "values", None)):
            if tensor is not None:
                total += int(tensor.numel())
    return total


def prepare(module: Any, inputs: Any, phase: str) -> tuple[Any, dict[str, Any], list[LayerCost]]:
    """The walk's input, keyword arguments and extra rows for `phase` (prefill or decode)."""
    import torch

    if phase == "prefill":
        return inputs, {"use_cache": True}, []
    module.eval()
    with torch.no_grad():
        cache = module(inputs, use_cache=True).past_key_values
    read = _cache_elements(cache)
    batch, prompt = int(inputs.shape[0]), int(inputs.shape[1])
    written = read * (prompt + 1) // prompt
    append = LayerCost(
        name="kv_cache.append",
        kind="DynamicCache",
        family="memory",
        input_shape=(batch, prompt),
        output_shape=(batch, prompt + 1),
        input_elements=read,
        output_elements=written,
        needs_input_grad=False,
        saves_activation=False,
        formula="appends the new key and value: reads the cache, writes it one token longer",
    )
    return inputs[:, -1:], {"past_key_values": cache, "use_cache": True}, [append]
