"""Seed 003's pooled matrix: CPU and GPU inference latencies matched by model and batch, ρ for
every pair of CPU latency, GPU latency, FLOPs and parameters, and the page's section beside the
seed's 0.89 and 0.36."""

from __future__ import annotations

from typing import Any

from generator.analysis.latency_correlation import latency_sets
from generator.analysis.latency_matrix import latency_matrices
from generator.pages.latency_correlation import latency_page
from tests.test_comparisons import CPU, GPU, frame, run, timed


def configs(label: str, device: str, slower_gpu: set[str] = frozenset()) -> list[dict[str, Any]]:
    """Four models at batch 1 and 64: latency follows FLOPs; parameters run the other way.
    On the GPU, the models in `slower_gpu` swap places with the next one at batch 64."""
    rows = []
    for batch in (1, 64):
        for i in range(4):
            time = 0.01 * (i + 1) * batch
            if device == "cuda":
                time /= 50
                if batch == 64 and f"m{i}" in slower_gpu:
                    time *= 1.6  # m{i} passes m{i+1}
            rows.append(
                run(f"{device}{batch}-{i}", model=f"m{i}", batch=batch, median_s=time,
                    modelled_flops=1e9 * (i + 1) * batch, params=1e6 * (4 - i),
                    device_label=label, device=device)
            )  # fmt: skip
    return rows


def test_the_matrix_pairs_configurations_measured_on_both_devices() -> None:
    extra = run("gpu-only", model="m9", batch=256, median_s=1.0, modelled_flops=1e12,
                params=1e6, device_label=GPU, device="cuda")  # fmt: skip
    runs = frame(*configs(CPU, "cpu"), *configs(GPU, "cuda"), extra)
    (matrix,) = latency_matrices(latency_sets(runs, timed(runs)))
    assert (matrix.cpu_label, matrix.gpu_label, matrix.batches) == (CPU, GPU, [1, 64])
    assert matrix.points.height == 8 and matrix.models == 4  # m9 was not timed on the CPU
    both = matrix.rho[("cpu_s", "gpu_s")]
    flops = matrix.rho[("cpu_s", "modelled_flops")]
    assert both is not None and both.value == 1.0
    assert flops is not None and flops.value == 1.0 and flops.low == 1.0
    params = matrix.rho[("cpu_s", "params")]
    assert params is not None and -1.0 < params.value < 0.0  # batch, not parameters, ranks them


def test_a_gpu_that_reorders_models_lowers_cpu_against_gpu() -> None:
    runs = frame(*configs(CPU, "cpu"), *configs(GPU, "cuda", slower_gpu={"m0", "m2"}))
    (matrix,) = latency_matrices(latency_sets(runs, timed(runs)))
    both = matrix.rho[("cpu_s", "gpu_s")]
    assert both is not None and 0.8 < both.value < 1.0


def test_one_batch_size_makes_no_matrix() -> None:
    rows = [r for r in configs(CPU, "cpu") + configs(GPU, "cuda") if r["batch"] == 1]
    runs = frame(*rows)
    assert latency_matrices(latency_sets(runs, timed(runs))) == []


def test_the_page_puts_the_seeds_numbers_beside_ours() -> None:
    runs = frame(*configs(CPU, "cpu"), *configs(GPU, "cuda"))
    found = timed(runs)
    page = latency_page(
        latency_sets(runs, found), found, {"003-corr-cpu-gpu": 0.89, "003-corr-params": 0.36}
    )
    assert f"## Seed 003's matrix: {CPU} and {GPU}" in page.markdown
    assert "batch sizes 1, 64 pooled: 8 configurations of 4 models" in page.markdown
    assert (
        "| CPU latency against GPU latency (`003-corr-cpu-gpu`) | 0.89 | 1.00 [1.00, 1.00] (bootstrap over configurations)"
        in (page.markdown)
    )
    assert "| CPU latency against parameters (`003-corr-params`) | 0.36 |" in page.markdown


def test_models_timed_at_other_batches_stay_out_of_the_matrix() -> None:
    """Seed 004's small models, timed at 64 and 1024 on both devices, would enter the ten's
    matrix unevenly: the matrix keeps the largest set measured at the same batch sizes."""
    odd = [
        run(f"{device}-odd-{batch}", model="odd", batch=batch, median_s=0.5 * batch,
            modelled_flops=1e6 * batch, params=1e3, device_label=label, device=device)
        for batch in (64, 1024)
        for label, device in ((CPU, "cpu"), (GPU, "cuda"))
    ]  # fmt: skip
    # m0 on another input, at another batch: its own series, left out; m0 on "d" stays
    other = [
        run(f"{device}-m0-cifar", model="m0", dataset="cifar", batch=128, median_s=0.2,
            modelled_flops=1e8, params=4e6, device_label=label, device=device)
        for label, device in ((CPU, "cpu"), (GPU, "cuda"))
    ]  # fmt: skip
    runs = frame(*configs(CPU, "cpu"), *configs(GPU, "cuda"), *odd, *other)
    (matrix,) = latency_matrices(latency_sets(runs, timed(runs)))
    assert matrix.models == 4 and "odd" not in matrix.points["model"].to_list()
    assert matrix.points.height == 8 and set(matrix.points["dataset"]) == {"d"}
    assert matrix.batches == [1, 64]
