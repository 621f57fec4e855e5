"""Walk a model on the meta device: one LayerCost per leaf-module call and per
arithmetic functional op between them, with the real shapes of this input.

Meta tensors carry shapes and autograd flags but no data, so even ViT-B/16 at 224×224
costs milliseconds. `requires_grad` on each layer's input tells whether that layer needs
an input gradient (the first layer does not).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import torch
from torch import nn
from torch.overrides import TorchFunctionMode

from generator.complexity.costs import LayerCost
from generator.complexity.functional_formulas import (
    FREE_FUNCTIONS,
    canonical_name,
    function_cost,
    is_inplace,
)
from generator.complexity.layer_formulas import elements_of, has_formula, module_cost, shape_of

# Modules whose insides are costed as a whole: their hooks would hide the attention
# matmuls (the eval fast path of MultiheadAttention bypasses its submodules entirely).
ATOMIC_MODULES: tuple[type[nn.Module], ...] = (nn.MultiheadAttention,)


def _first_tensor(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return next((v for v in value if isinstance(v, torch.Tensor)), None)
    return value


class _Recorder:
    def __init__(self, training: bool) -> None:
        self.training = training
        self.depth = 0
        self.scope: list[str] = [""]
        self.rows: list[LayerCost] = []
        self.calls: Counter[str] = Counter()
        self.uncounted: Counter[str] = Counter()
        self.seen: set[int] = set()  # parameters already counted (GPT-2 ties two layers)

    def unique(self, name: str) -> str:
        self.calls[name] += 1
        count = self.calls[name]
        return name if count == 1 else f"{name}#{count}"

    def new_cost(self, name: str, kind: str, inputs: Any, output: Any) -> LayerCost:
        first_in, first_out = _first_tensor(inputs), _first_tensor(output)
        return LayerCost(
            name=self.unique(name),
            kind=kind,
            family="other",
            input_shape=shape_of(first_in),
            output_shape=shape_of(first_out),
            needs_input_grad=bool(getattr(first_in, "requires_grad", False)),
            input_elements=elements_of(first_in),
            output_elements=elements_of(first_out),
        )


class _FunctionalOps(TorchFunctionMode):
    """Sees every torch function; records the arithmetic ones made outside leaf modules."""

    def __init__(self, recorder: _Recorder) -> None:
        super().__init__()
        self.recorder = recorder

    def __torch_function__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None
    ) -> Any:
        out = func(*args, **(kwargs or {}))
        recorder = self.recorder
        if recorder.depth > 0 or not isinstance(out, torch.Tensor):
            return out
        if not out.is_floating_point():
            return out
        name = canonical_name(func)
        if name in FREE_FUNCTIONS:
            return out
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        scope = recorder.scope[-1]
        cost = recorder.new_cost(
            f"{scope}.fn:{name}" if scope else f"fn:{name}", f"fn:{name}", tensors, out
        )
        cost.needs_input_grad = any(t.requires_grad for t in tensors)
        cost.input_elements = max((t.numel() for t in tensors), default=0)
        if is_inplace(func):
            cost.saves_activation = False
        if function_cost(cost, name, args, recorder.training, kwargs):
            recorder.rows.append(cost)
        else:
            recorder.uncounted[name] += 1
        return out


def _is_leaf(module: nn.Module) -> bool:
    """No submodules but its weight parametrizations (wav2vec2's weight-normed conv)."""
    return isinstance(module, ATOMIC_MODULES) or not any(
        name != "parametrizations" for name, _ in module.named_children()
    )


def _is_costed_leaf(module: nn.Module) -> bool:
    """A leaf costed by its formula. A leaf with no formula and no parameters (such as
    transformers' GELUActivation) is walked through instead: the functional ops inside it
    are costed one by one."""
    if not _is_leaf(module):
        return False
    return has_formula(module) or any(True for _ in module.parameters())


def _register(model: nn.Module, recorder: _Recorder) -> list[Any]:
    handles: list[Any] = []
    skip: list[str] = []
    for name, module in model.named_modules():
        if any(name.startswith(prefix + ".") for prefix in skip):
            continue
        if _is_costed_leaf(module):
            skip.append(name)  # its insides (attention's projections, parametrizations)
            handles.append(module.register_forward_pre_hook(_leaf_pre(recorder)))
            handles.append(
                module.register_forward_hook(
                    _leaf_post(recorder, name or "model"), with_kwargs=True
                )
            )
        else:
            handles.append(module.register_forward_pre_hook(_scope_pre(recorder, name)))
            handles.append(module.register_forward_hook(_scope_post(recorder)))
            own = sum(p.numel() for p in module.parameters(recurse=False))
            recorder.seen.update(id(p) for p in module.parameters(recurse=False))
            if own:
                recorder.rows.append(
                    LayerCost(
                        name=f"{name or 'model'}.parameters",
                        kind="parameters",
                        family="parameters",
                        input_shape=(),
                        output_shape=(),
                        params=own,
                        saves_activation=False,
                        formula="parameters used by functional ops (tokens, embeddings, scales)",
                    )
                )
    return handles


def _leaf_pre(recorder: _Recorder) -> Any:
    def hook(module: nn.Module, args: Any) -> None:
        recorder.depth += 1

    return hook


def _leaf_post(recorder: _Recorder, name: str) -> Any:
    def hook(module: nn.Module, args: Any, kwargs: Any, output: Any) -> None:
        if recorder.depth > 1:  # a leaf inside a leaf: its outer one costs it
            recorder.depth -= 1
            return
        positional = tuple(args) + tuple(
            kwargs[k] for k in ("query", "key", "value") if k in (kwargs or {})
        )
        cost = recorder.new_cost(name, type(module).__name__, positional, output)
        cost = module_cost(cost, module, positional, recorder.training)
        parameters = list(module.parameters())
        cost.shared_params = sum(p.numel() for p in parameters if id(p) in recorder.seen)
        recorder.seen.update(id(p) for p in parameters)
        recorder.rows.append(cost)
        # only now: costing reads module.weight, which a parametrization computes with
        # functional ops that belong to this leaf, not to the walk
        recorder.depth -= 1

    return hook


def _scope_pre(recorder: _Recorder, name: str) -> Any:
    def hook(module: nn.Module, args: Any) -> None:
        recorder.scope.append(name)

    return hook


def _scope_post(recorder: _Recorder) -> Any:
    def hook(module: nn.Module, args: Any, output: Any) -> None:
        recorder.scope.pop()

    return hook


def walk(
    model: nn.Module, inputs: Any, training: bool, kwargs: dict[str, Any] | None = None
) -> tuple[list[LayerCost], Any, dict[str, int]]:
    """Run one forward pass of `model` (already on the meta device) on `inputs` and cost it.

    Returns the rows in call order, the output and the functional ops that had no
    formula (name → calls), which the report lists instead of silently ignoring."""
    model.train(training)
    recorder = _Recorder(training)
    handles = _register(model, recorder)
    try:
        with _FunctionalOps(recorder):
            output = model(inputs, **(kwargs or {}))
    finally:
        for handle in handles:
            handle.remove()
    return recorder.rows, output, dict(recorder.uncounted)
