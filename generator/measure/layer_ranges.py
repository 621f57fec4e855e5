"""Name every module call in the profiled step: a profiler range `ra.layer::<path>` around
each module's forward, so a trace can put each op in the innermost module that ran it.

Paths follow the complexity walk's names (a module called twice in one forward is
`relu`, then `relu#2`; the model itself is `(model)`), so measured time and counted FLOPs
join on the layer's name. Only the profiled step carries these ranges: the timed steps run
without hooks."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from torch import nn
from torch.autograd.profiler import record_function

from generator.ingest.trace.labels import LAYER_PREFIX, ROOT_LAYER

LAYER_LABEL = LAYER_PREFIX
ROOT = ROOT_LAYER


@contextlib.contextmanager
def layer_ranges(model: nn.Module) -> Iterator[None]:
    calls: dict[str, int] = {}
    open_ranges: list[Any] = []
    handles = []

    def enter(path: str) -> Any:
        def hook(module: nn.Module, inputs: Any) -> None:
            calls[path] = calls.get(path, 0) + 1
            name = path if calls[path] == 1 else f"{path}#{calls[path]}"
            scope = record_function(LAYER_LABEL + name)
            scope.__enter__()
            open_ranges.append(scope)

        return hook

    def leave(module: nn.Module, inputs: Any, output: Any) -> None:
        if open_ranges:
            open_ranges.pop().__exit__(None, None, None)

    for path, module in model.named_modules():
        handles.append(module.register_forward_pre_hook(enter(path or ROOT)))
        handles.append(module.register_forward_hook(leave))
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()
        while open_ranges:  # a forward that raised leaves its ranges open
            open_ranges.pop().__exit__(None, None, None)
