"""The compile dimension, measured memory and energy, on a CPU: the experiments file's
checks, run ids, the run.json migration, and the probes on recorded /proc and sysfs files
and a fake NVML and torch.cuda; one real torch.compile of a tiny model."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from generator.complexity import analyze
from generator.complexity.footprint import footprint
from generator.config import load_experiments, resolve_runs
from generator.errors import UserError
from generator.findings.resource_checks import resource_findings
from generator.measure.compiled import compile_arguments, compile_record
from generator.measure.energy import NvmlMeter, RaplMeter, energy_summary
from generator.measure.memory import CpuMemory, CudaMemory
from generator.measure.resources import compile_summary, memory_summary
from generator.records.run import NOT_MEASURED, read_run
from tests.helpers import REPO

GROUP = """
schema_version = 1
[[groups]]
id = "T"
title = "t"
hypothesis = "h"
models = ["{model}"]
datasets = ["{dataset}"]
batch_sizes = [8]
phases = ["{phase}"]
devices = ["{device}"]
compile = [{modes}]
"""


def experiments(tmp_path: Path, modes: str, device: str = "cpu", phase: str = "inference",
                model: str = "simple_mlp", dataset: str = "mnist") -> Path:  # fmt: skip
    path = tmp_path / "experiments.toml"
    path.write_text(GROUP.format(modes=modes, device=device, phase=phase, model=model,
                                 dataset=dataset))  # fmt: skip
    return path


@pytest.mark.parametrize("mode", ["reduce-overhead", "cudagraphs"])
def test_cuda_graph_modes_on_the_cpu_are_an_error_naming_the_key(tmp_path: Path, mode: str) -> None:
    with pytest.raises(UserError) as caught:
        load_experiments(experiments(tmp_path, f'"eager", "{mode}"'))
    assert caught.value.key == "groups[0].compile"
    assert "CUDA graphs" in caught.value.what
    assert caught.value.fix is not None and 'devices = ["cuda"]' in caught.value.fix
    # on a GPU the same modes are fine
    load_experiments(experiments(tmp_path, f'"{mode}"', device="cuda"))


def test_unknown_mode_and_compiled_decode_are_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError) as caught:
        load_experiments(experiments(tmp_path, '"jit"'))
    assert caught.value.key == "groups[0].compile[0]"
    with pytest.raises(UserError) as caught:
        load_experiments(experiments(tmp_path, '"compile"', phase="decode", model="gpt2",
                                     dataset="tokens"))  # fmt: skip
    assert caught.value.key == "groups[0].compile"
    assert "decode" in caught.value.what


def test_the_mode_is_in_the_run_id_and_eager_keeps_its_id(tmp_path: Path) -> None:
    eager, compiled = resolve_runs(load_experiments(experiments(tmp_path, '"eager", "compile"')))
    assert eager.compile == "eager" and compiled.compile == "compile"
    assert "compile" not in eager.as_dict()  # hashed as before the dimension existed
    assert (
        eager.run_id("cpu x")
        == "T-simple_mlp-mnist-b8-inference-fp32-cpu-" + (eager.config_hash("cpu x")[:8])
    )
    assert compiled.run_id("cpu x").startswith("T-simple_mlp-mnist-b8-inference-fp32-cpu-compile-")
    assert compiled.config_hash("cpu x") != eager.config_hash("cpu x")
    assert compile_arguments("compile") == {}
    assert compile_arguments("max-autotune-no-cudagraphs") == {"mode": "max-autotune-no-cudagraphs"}
    assert compile_arguments("cudagraphs") == {"backend": "cudagraphs"}


def test_a_committed_run_of_version_2_loads_and_says_memory_not_measured(tmp_path: Path) -> None:
    # an H100 run of 2026-11-23 (every CPU run has since been measured again with memory)
    source = (
        REPO / "measurements" / "runs" / "B-resnet18-cifar10-b128-train_step-fp32-cuda-4bed1e9a"
    )
    assert json.loads((source / "run.json").read_text())["schema_version"] < 3
    shutil.copytree(source, tmp_path / source.name)
    record = read_run(tmp_path / source.name)
    assert record is not None and record.schema_version == 4
    assert record.memory == {"measured": None, "why": NOT_MEASURED}
    row = record.row()
    assert row["compile"] == "eager"
    assert row["memory_bytes"] is None and row["compile_s"] is None  # never 0


def _snapshot(graphs: int, **cache: int) -> dict[str, dict[str, int]]:
    inductor = {k: v for k, v in cache.items() if k.startswith("fxgraph")}
    aot = {k: v for k, v in cache.items() if k.startswith("autograd")}
    return {"stats": {"unique_graphs": graphs}, "inductor": inductor, "aot_autograd": aot,
            "graph_break": {}}  # fmt: skip


def test_compile_record_counts_cache_hits_and_recompiles_during_timing() -> None:
    start = _snapshot(0)
    warm = _snapshot(1, fxgraph_cache_hit=2, autograd_cache_hit=1)
    end = _snapshot(2, fxgraph_cache_hit=2, autograd_cache_hit=1, fxgraph_cache_miss=1)
    record = compile_record("compile", 2.5, 0.5, start, warm, end)
    assert record["compile_s"] == pytest.approx(2.0)
    assert record["graphs"] == 1 and record["recompiles_in_warmup"] == 0
    assert record["recompiles_during_timing"] == 1
    assert record["cache"] == {"fxgraph_cache_hit": 2, "autograd_cache_hit": 1,
                               "fxgraph_cache_miss": 1}  # fmt: skip
    cold = compile_record("compile", 20.0, 0.5, start, _snapshot(1, fxgraph_cache_miss=2),
                          _snapshot(1, fxgraph_cache_miss=2))  # fmt: skip
    summary = compile_summary([cold, record, record], "compile")
    assert summary is not None
    assert summary["cold_compile_s"] == pytest.approx(19.5)
    assert summary["warm_compile_s"] == pytest.approx(2.0)
    assert summary["cold_cache"] == {"fxgraph_cache_miss": 2}
    assert summary["recompiles_during_timing"] == 2
    found = resource_findings(summary, {"ratio": None})
    assert [f.id for f in found] == ["recompiled"]
    assert compile_summary([None, None], "eager") is None


def _proc(tmp_path: Path, rss_kib: int, hwm_kib: int) -> Path:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "status").write_text(
        f"Name:\tpython\nVmPeak:\t 9999999 kB\nVmHWM:\t {hwm_kib} kB\nVmRSS:\t {rss_kib} kB\n"
    )
    return tmp_path


def test_cpu_memory_is_the_peak_rss_over_the_timed_steps_less_the_baseline(tmp_path: Path) -> None:
    proc = _proc(tmp_path / "proc", rss_kib=100_000, hwm_kib=100_000)
    probe = CpuMemory(proc)
    probe.before_build()
    _proc(proc, rss_kib=150_000, hwm_kib=400_000)  # building and compiling peaked at 400 MB
    probe.before_timing()
    assert (proc / "clear_refs").read_text() == "5"  # the kernel resets VmHWM on this write
    _proc(proc, rss_kib=150_000, hwm_kib=180_000)
    measured = probe.after_timing()
    assert measured["peak_window"] == "timed steps"
    assert measured["step_bytes"] == 80_000 * 1024
    assert measured["baseline_rss_bytes"] == 100_000 * 1024


def test_cpu_memory_says_when_its_peak_covers_the_whole_process(tmp_path: Path) -> None:
    proc = _proc(tmp_path / "proc", rss_kib=10, hwm_kib=10)
    (proc / "clear_refs").mkdir()  # not writable as a file: the mark cannot be reset
    probe = CpuMemory(proc)
    probe.before_build()
    probe.before_timing()
    assert probe.after_timing()["peak_window"].startswith("the whole worker process")
    assert CpuMemory(tmp_path / "nothing").after_timing()["step_bytes"] is None


class FakeCuda:
    """torch.cuda's memory functions, as an H100 run answered them."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def synchronize(self) -> None:
        self.calls.append("synchronize")

    def reset_peak_memory_stats(self) -> None:
        self.calls.append("reset")

    def max_memory_allocated(self) -> int:
        return 2_147_483_648

    def max_memory_reserved(self) -> int:
        return 2_516_582_400


def test_cuda_memory_is_the_allocator_peak_reset_before_the_timed_steps() -> None:
    cuda = FakeCuda()
    probe = CudaMemory(cuda)
    probe.before_build()
    probe.before_timing()
    measured = probe.after_timing()
    assert cuda.calls == ["synchronize", "reset", "synchronize"]
    assert measured["step_bytes"] == measured["peak_allocated_bytes"] == 2_147_483_648
    assert measured["peak_reserved_bytes"] == 2_516_582_400


class NVMLError(Exception):
    pass


class FakeNvml:
    """pynvml's energy counter: millijoules since the driver loaded, read in turn."""

    def __init__(self, readings: list[int] | None) -> None:
        self.readings = readings

    def nvmlInit(self) -> None:
        pass

    def nvmlDeviceGetHandleByIndex(self, index: int) -> str:
        return f"gpu{index}"

    def nvmlDeviceGetTotalEnergyConsumption(self, handle: Any) -> int:
        if self.readings is None:
            raise NVMLError("Not Supported")
        return self.readings.pop(0)


def test_nvml_energy_over_the_timed_steps() -> None:
    # two readings an H100 gave around 40 steps of ResNet-18 b128 (mJ)
    meter = NvmlMeter(FakeNvml([81_123_456_789, 81_123_478_789]))
    meter.before()
    block = meter.after(steps=40)
    assert block == {"source": "nvml", "joules": 22.0, "steps": 40}
    run = energy_summary([block, {"source": "nvml", "joules": 11.0, "steps": 20}], batch=128)
    assert run is not None
    assert run["joules_per_step"] == pytest.approx(0.55)
    assert run["samples_per_joule"] == pytest.approx(128 / 0.55)


def test_a_gpu_without_the_counter_says_not_readable_never_zero() -> None:
    meter = NvmlMeter(FakeNvml(None))
    meter.before()
    block = meter.after(steps=10)
    assert block["joules"] is None and "Not Supported" in block["why"]
    run = energy_summary([block], batch=8)
    assert run is not None and run["joules_per_step"] is None
    assert run["why"].startswith("not readable")


def _rapl(root: Path, domain: int, energy_uj: int, wrap_uj: int = 262_143_328_850) -> None:
    folder = root / f"intel-rapl:{domain}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "energy_uj").write_text(f"{energy_uj}\n")
    (folder / "max_energy_range_uj").write_text(f"{wrap_uj}\n")
    (root / f"intel-rapl:{domain}:0").mkdir(exist_ok=True)  # a subzone (core): not summed


def test_rapl_sums_the_packages_and_handles_the_counter_wrap(tmp_path: Path) -> None:
    _rapl(tmp_path, 0, 1_000_000)
    _rapl(tmp_path, 1, 262_143_000_000)
    meter = RaplMeter(tmp_path)
    meter.before()
    _rapl(tmp_path, 0, 3_000_000)  # +2 J
    _rapl(tmp_path, 1, 671_150)  # wrapped: +1 J
    assert meter.after(steps=4) == {"source": "rapl", "joules": pytest.approx(3.0), "steps": 4}


def test_rapl_in_a_vm_is_not_readable(tmp_path: Path) -> None:
    meter = RaplMeter(tmp_path / "powercap")
    meter.before()
    block = meter.after(steps=3)
    assert block["joules"] is None and block["why"].startswith("not readable")


def test_analytic_footprint_and_the_mismatch_finding() -> None:
    complexity = analyze("simple_mlp", (1, 28, 28), 64, 10, optimizer="sgd-momentum",
                         training=True)  # fmt: skip
    analytic = footprint(complexity, token_inputs=False)
    weights = complexity.params * 4
    assert analytic["parameters_bytes"] == analytic["gradients_bytes"] == weights
    assert analytic["optimizer_state_bytes"] == weights  # one momentum buffer
    assert analytic["activations_bytes"] == complexity.activation_bytes
    assert analytic["input_bytes"] == 64 * 28 * 28 * 4
    assert analytic["total_bytes"] == sum(v for k, v in analytic.items() if k != "total_bytes")
    close = memory_summary([{"step_bytes": analytic["total_bytes"] * 2, "method": "m"}], analytic)
    assert close["ratio"] == pytest.approx(2.0) and not resource_findings(None, close)
    far = memory_summary([{"step_bytes": analytic["total_bytes"] * 50}, None], analytic)
    assert [f.id for f in resource_findings(None, far)] == ["memory-mismatch"]
    assert memory_summary([None], analytic)["measured"] is None


def test_a_tiny_model_compiles_once_and_its_next_block_reads_the_cache(tmp_path: Path) -> None:
    """Real inductor on the CPU (C++ codegen): tens of seconds on a 2-core machine. Each
    block a fresh worker process, as `measure` runs them (in one process, dynamo would
    reuse the first block's graph and compile nothing)."""
    from generator.measure.block import BlockRequest, ForkedBlocks

    path = experiments(tmp_path, '"compile"')
    (config,) = resolve_runs(load_experiments(path))
    config = dataclasses.replace(config, warmup=2, batch=4)
    cache = str(tmp_path / "inductor")
    run_block = ForkedBlocks()
    first = run_block(BlockRequest(config.as_dict(), 3, 5.0, cache_dir=cache))
    second = run_block(BlockRequest(config.as_dict(), 3, 5.0, cache_dir=cache))
    assert first.error is None and second.error is None, (first.error, second.error)
    assert first.compile is not None and second.compile is not None
    assert first.compile["cache"].get("fxgraph_cache_miss", 0) >= 1
    assert second.compile["cache"].get("fxgraph_cache_hit", 0) >= 1
    assert first.compile["compile_s"] > 0 and first.compile["recompiles_during_timing"] == 0
    assert len(first.rows) == 3 and first.memory is not None
    assert first.memory["step_bytes"] > 0


def test_remeasure_draws_from_one_compile_mode_when_asked(tmp_path: Path) -> None:
    from generator.measure.remeasure import candidates

    source = REPO / "measurements" / "runs" / "D-resnet18-cifar10-b64-inference-fp32-cpu-e2a45839"
    shutil.copytree(source, tmp_path / "runs" / source.name)
    record = read_run(tmp_path / "runs" / source.name)
    assert record is not None
    name, later = record.device_name, "2030-01-01T00:00:00+00:00"
    assert [r.run_id for r in candidates(tmp_path, name, None, later, 30, "eager")] == [source.name]
    assert candidates(tmp_path, name, None, later, 30, "compile") == []
    assert len(candidates(tmp_path, name, None, later, 30)) == 1
