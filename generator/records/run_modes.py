"""What runs only on CUDA, and the `compile` dimension of experiments.toml: how a
configuration's model runs.

`eager` is PyTorch as written; the others wrap the model in `torch.compile`
(measure.compiled): `compile` is its default mode (inductor), `max-autotune-no-cudagraphs`
lets inductor benchmark its kernel choices, `reduce-overhead` adds CUDA graphs, and
`cudagraphs` is the CUDA-graphs backend without inductor. No torch is imported here: the
report reads these names without it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from generator.errors import UserError

Compile = Literal["eager", "compile", "max-autotune-no-cudagraphs", "reduce-overhead", "cudagraphs"]
EAGER = "eager"
CUDA_ONLY_COMPILE = ("reduce-overhead", "cudagraphs")  # CUDA graphs: there are none on a CPU
LM_PHASES_EAGER_ONLY = ("prefill", "decode")
# Precisions that only mean something on a GPU: TF32 is a tensor-core mode, and fp16
# autocast on a CPU measures an emulation nobody trains with.
CUDA_ONLY_PRECISIONS = ("tf32", "fp16-amp")


def mode_of_run_id(run_id: str) -> str:
    """The compile mode a run id names (`config.RunConfig.run_id`: "...-cpu-compile-1a2b3c4d";
    an eager run's id names none)."""
    stem = run_id[: -len("-12345678")]
    modes = [m for m in Compile.__args__ if m != EAGER]  # type: ignore[attr-defined]
    return next((m for m in modes if stem.endswith(f"-{m}")), EAGER)


def check_cuda_only(
    precisions: Sequence[str],
    modes: Sequence[str],
    devices: Sequence[str],
    phases: Sequence[str],
    key: str,
    path: Path | None,
) -> None:
    """A group's precisions and compile modes against its devices and phases: a UserError
    naming the key and the fix."""
    for precision in precisions:
        if precision in CUDA_ONLY_PRECISIONS and "cpu" in devices:
            raise UserError(
                f"precision {precision!r} is not measured on the CPU",
                file=path,
                key=f"{key}.precisions",
                fix=f'put {precision} in a group with devices = ["cuda"]',
            )
    for mode in modes:
        if mode in CUDA_ONLY_COMPILE and "cpu" in devices:
            raise UserError(
                f"compile mode {mode!r} records CUDA graphs: there are none on the CPU",
                file=path,
                key=f"{key}.compile",
                fix=f'put {mode} in a group with devices = ["cuda"], or use "compile" on the CPU',
            )
        lm = [phase for phase in phases if phase in LM_PHASES_EAGER_ONLY]
        if mode != EAGER and lm:
            raise UserError(
                f"compile mode {mode!r} is measured for train_step and inference, not {lm[0]} "
                "(a growing KV cache recompiles the model at every length)",
                file=path,
                key=f"{key}.compile",
                fix=f'measure {lm[0]} with compile = ["eager"] in a group of its own',
            )


def mode_of(config: dict[str, object]) -> str:
    """A run's compile mode from its recorded configuration (runs before modes: eager)."""
    mode = config.get("compile")
    return mode if isinstance(mode, str) else EAGER
