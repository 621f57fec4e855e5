"""A causal language model's two inference phases, as served: prefill runs the whole
prompt and fills the KV cache; decode runs one new token against a cache of the prompt.

The cache is cropped back to the prompt after every decode step, so that each timed
step sees the same cache length (transformers' DynamicCache grows by concatenation, which
is the real per-token cost of that cache and stays in the timing).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import torch

Autocast = Callable[[], contextlib.AbstractContextManager[Any]]


def prefill_action(model: Any, inputs: torch.Tensor, autocast: Autocast) -> Callable[[], None]:
    def prefill() -> None:
        with autocast():
            model(inputs, use_cache=True)

    return prefill


def decode_action(model: Any, inputs: torch.Tensor, autocast: Autocast) -> Callable[[], None]:
    """Prefill once (untimed), then time one-token steps against that cache."""
    with torch.no_grad(), autocast():
        cache = model(inputs, use_cache=True).past_key_values
    token = inputs[:, -1:].clone()

    def decode() -> None:
        with autocast():
            model(token, past_key_values=cache, use_cache=True)
        cache.crop(-1)  # drop the token just appended: the next step sees the prompt again

    return decode
