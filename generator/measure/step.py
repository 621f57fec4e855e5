"""Time one configured step: forward, loss, backward and optimizer step apart, every
iteration kept. CUDA phases are timed with events; CPU phases with perf_counter (CPU
kernels run synchronously in the calling thread, so no extra synchronisation is needed).
A CUDA step also records the host's time to enqueue each phase (`host_<phase>_s`,
`host_s`): the host runs ahead of the GPU until the step's final synchronize, so a host
time close to the events' time means the GPU waited for launches (analysis/launch.py).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from generator.config import RunConfig
from generator.ingest.trace.labels import PHASE_PREFIX
from generator.measure.compiled import compile_model
from generator.measure.decode import decode_action, prefill_action
from generator.models import build_model
from generator.models.feed import example_input, make_targets, step_loss
from generator.records.run_parts import OpRow, PrecisionSettings

PHASES = ("forward", "loss", "backward", "optimizer_step")
PHASE_LABEL = PHASE_PREFIX  # the profiler/NVTX ranges that mark phases (read back by ingest)


@dataclass
class StepResult:
    # one per measured iteration: repeat, iteration, <phase>_s, step_s (empty: not timed)
    rows: Sequence[Mapping[str, float | None]]
    settings: PrecisionSettings  # precision switches as they were set
    ops: list[OpRow] = field(default_factory=list)


def apply_precision(precision: str, device: str) -> PrecisionSettings:
    """Set TF32 and cuDNN switches explicitly, and return them for the record."""
    tf32 = precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.set_float32_matmul_precision("high" if tf32 else "highest")
    torch.backends.cudnn.benchmark = device == "cuda"
    torch.backends.cudnn.deterministic = False
    return {
        "precision": precision,
        "autocast_dtype": {"bf16-amp": "bfloat16", "fp16-amp": "float16"}.get(precision),
        "cuda_matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "cudnn_benchmark": torch.backends.cudnn.benchmark,
        "cudnn_deterministic": torch.backends.cudnn.deterministic,
        "torch_threads": torch.get_num_threads(),
    }


def _autocast(precision: str, device: str) -> contextlib.AbstractContextManager[Any]:
    if precision == "bf16-amp":
        return torch.autocast(device_type=device, dtype=torch.bfloat16)
    if precision == "fp16-amp":
        return torch.autocast(device_type=device, dtype=torch.float16)
    return contextlib.nullcontext()


class _Clock:
    """Marks phase boundaries; CUDA events on GPU, perf_counter on CPU. On a GPU it also
    keeps the host's perf_counter at each mark: the host's time to enqueue each phase, which
    beside the events' GPU time says whether the GPU waited for the host (analysis/launch)."""

    def __init__(self, device: str) -> None:
        self.cuda = device == "cuda"
        self.marks: list[Any] = []
        self.host: list[float] = []

    def mark(self) -> None:
        if self.cuda:
            event = torch.cuda.Event(enable_timing=True)
            event.record()
            self.marks.append(event)
            self.host.append(time.perf_counter())  # after the record: the enqueue is done
        else:
            self.marks.append(time.perf_counter())

    def intervals(self) -> list[float]:
        if self.cuda:
            torch.cuda.synchronize()
            return [
                a.elapsed_time(b) / 1e3 for a, b in zip(self.marks, self.marks[1:], strict=False)
            ]
        return [b - a for a, b in zip(self.marks, self.marks[1:], strict=False)]

    def host_intervals(self) -> list[float]:
        """The host's time for each phase (GPU only; empty on a CPU, where it is the step)."""
        return [b - a for a, b in zip(self.host, self.host[1:], strict=False)]


@dataclass
class Workload:
    model: nn.Module
    inputs: torch.Tensor
    targets: torch.Tensor
    optimizer: torch.optim.Optimizer | None
    scaler: Any
    config: RunConfig

    def autocast(self) -> contextlib.AbstractContextManager[Any]:
        return _autocast(self.config.precision, self.config.device)

    def phases(self) -> list[tuple[str, Callable[[], Any]]]:
        """The step as (phase, action) pairs; actions share state through `self.state`."""
        config = self.config
        state: dict[str, Any] = {}

        def forward() -> None:
            with _autocast(config.precision, config.device):
                state["out"] = self.model(self.inputs)

        if config.phase in ("prefill", "decode"):
            # A causal LM's two inference phases: both are one forward pass ("forward").
            make = prefill_action if config.phase == "prefill" else decode_action
            return [("forward", make(self.model, self.inputs, self.autocast))]
        if config.phase == "inference":
            return [("forward", forward)]

        def loss() -> None:
            with _autocast(config.precision, config.device):
                state["loss"] = step_loss(state["out"], self.targets)

        def backward() -> None:
            self.scaler.scale(state["loss"]).backward()

        def optimizer_step() -> None:
            assert self.optimizer is not None
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad(set_to_none=True)

        return [
            ("forward", forward),
            ("loss", loss),
            ("backward", backward),
            ("optimizer_step", optimizer_step),
        ]


def build_workload(config: RunConfig) -> Workload:
    torch.manual_seed(config.seed)
    device = torch.device(config.device)
    model = build_model(config.model, config.classes, config.input_shape).to(device)
    generator = torch.Generator().manual_seed(config.seed)
    inputs = example_input(config.batch, config.input_shape, config.vocab, device, generator)
    targets = torch.empty(0)
    if config.phase == "train_step":
        # The loss targets take the shape of the model's logits, whatever its head: one
        # untimed forward pass on a single sample finds it.
        with torch.no_grad():
            model.eval()
            targets = make_targets(model(inputs[:1]), generator, batch=config.batch)
    optimizer: torch.optim.Optimizer | None = None
    if config.phase == "train_step":
        model.train()
        params = model.parameters()
        if config.optimizer == "adam":
            optimizer = torch.optim.Adam(params, lr=config.learning_rate)
        else:
            momentum = 0.9 if config.optimizer == "sgd-momentum" else 0.0
            optimizer = torch.optim.SGD(params, lr=config.learning_rate, momentum=momentum)
    else:
        model.eval()
    compile_model(model, config.compile)  # eager: nothing; else it compiles on first call
    scaler = torch.amp.GradScaler(config.device, enabled=config.precision == "fp16-amp")
    return Workload(model, inputs, targets, optimizer, scaler, config)


@contextlib.contextmanager
def inference_guard(config: RunConfig) -> Iterator[None]:
    if config.phase != "train_step":
        with torch.inference_mode():
            yield
    else:
        yield


def run_iterations(workload: Workload, count: int) -> list[dict[str, float]]:
    """Run `count` steps; return each one's phase times in seconds."""
    actions = workload.phases()
    rows = []
    with inference_guard(workload.config):
        for _ in range(count):
            clock = _Clock(workload.config.device)
            clock.mark()
            for _, action in actions:
                action()
                clock.mark()
            host = clock.host_intervals()  # before intervals(), which synchronizes
            times = clock.intervals()
            row = {f"{name}_s": t for (name, _), t in zip(actions, times, strict=True)}
            row["step_s"] = sum(times)
            if host:
                row |= {f"host_{name}_s": t for (name, _), t in zip(actions, host, strict=True)}
                row["host_s"] = sum(host)
            rows.append(row)
    return rows
