"""Seed reports' published times predicted from the roofline of the device they ran on.

The hand-checked case is the issue's: ResNet-50's training step at batch 64, fp32, on a T4.
Its analytic count (measurements/complexity/literature.csv) is 528.76 GFLOP forward and
1568.34 GFLOP for the whole step (about 3 × forward) over 50.29 GB of minimal traffic; at the
T4's 8.1 TFLOP/s that is 193.6 ms, above the 157 ms its 320 GB/s needs for the bytes, so the
step is compute-bound with a 193.6 ms floor."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.analysis.device_choice import LAUNCH
from generator.analysis.seed_beside import beside_ours
from generator.analysis.seed_prediction import (
    Counts,
    Kernels,
    kernels_of,
    predict,
    spread_by_seed,
)
from generator.catalog import load_catalog
from generator.records.literature import LiteratureRow, read_literature
from generator.records.literature_workload import (
    batch_in,
    dataset_in,
    phase_in,
    precision_in,
    row_workload,
    workloads_to_count,
)
from tests.helpers import result_row

CATALOG = load_catalog()
BY_ID = {d.id: d for d in CATALOG}
# The optional columns too: an unexplained row must name its next check in `note`.
HEADER = (
    "id,seed,where,quantity,configuration,published,unit,derive,cause,citation,"
    "device,workload,precision,read_from,note\n"
)
RN50_FORWARD = 528_760_797_696.0  # resnet50, imagenet, batch 64 (literature.csv)
RN50_STEP = 1_568_336_159_904.0
RN50_AI = 31.183420803931636
RN50_BYTES = RN50_STEP / RN50_AI
RN50 = ("resnet50", "imagenet", 64, "train_step", "fp32")
MLP = ("simple_mlp", "mnist", 64, "inference", "fp32")
MLP_FLOPS, MLP_BYTES = 30_101_888.0, 1_948_712.0  # seed_workloads.csv
COUNTS = {
    RN50: Counts(RN50_STEP, RN50_BYTES, "hand"),
    MLP: Counts(MLP_FLOPS, MLP_BYTES, "hand"),
}


def _rows(tmp_path: Path, *lines: str) -> list[LiteratureRow]:
    folder = tmp_path / "literature"
    folder.mkdir(exist_ok=True)
    (folder / "seeds.csv").write_text(HEADER + "\n".join(lines) + "\n", encoding="utf-8")
    return read_literature(tmp_path, set(BY_ID))


def _measured(row_id: str, configuration: str, ms: float, derive: str) -> str:
    return f'{row_id},001,§V,step time,"{configuration}",{ms},ms,{derive},unexplained,"cite",,,,,"next: a profile"'


RN50_MEASURED = "measured:resnet50:imagenet:64:train_step:step_time:cuda"


def test_rn50_on_a_t4_is_compute_bound_at_193_6_ms(tmp_path: Path) -> None:
    assert 2.9 < RN50_STEP / RN50_FORWARD < 3.0  # a step is about 3 × forward
    rows = _rows(tmp_path, _measured("001-x", "ResNet-50, T4, batch 64", 250, RN50_MEASURED))
    (p,) = predict(rows, CATALOG, COUNTS)
    assert p.missing == ()
    assert p.device is not None and p.device.id == "t4"
    assert p.predicted_s == pytest.approx(0.19362, rel=1e-4)
    assert pytest.approx(0.1572, rel=1e-3) == RN50_BYTES / 320e9  # the memory floor is lower
    assert p.bound == "compute"
    assert p.ratio == pytest.approx(0.250 / 0.19362, rel=1e-4)
    assert "ran near its compute floor on the NVIDIA T4" in p.sentence


def test_the_seeds_own_at_peak_time_against_the_floor(tmp_path: Path) -> None:
    """001's eq. 6: 270 GFLOP at the T4's peak printed as 33.33 s (it is ms); the step does
    1568 GFLOP, 5.81 times what the seed counted."""
    rows = _rows(
        tmp_path,
        '001-t,001,§III.C,step time at FP32 peak,"ResNet-50, T4, batch 64, 3×224×224",33.33,s,'
        'at_peak:270e9:t4:fp32,factor_1000,"cite"',
    )
    (p,) = predict(rows, CATALOG, COUNTS, statuses={"001-t": "consistent"})
    assert p.predicted_s == pytest.approx(0.19362, rel=1e-4)
    assert p.ratio == pytest.approx(33.33 / 0.19362, rel=1e-4)
    assert "(×5.81)" in p.sentence and "factor-1000" in p.sentence
    # not confirmed by the replication check: the slip is not claimed
    (q,) = predict(rows, CATALOG, COUNTS, statuses={"001-t": "not consistent"})
    assert "factor-1000" not in q.sentence


def test_what_is_missing_is_stated_instead_of_a_number(tmp_path: Path) -> None:
    rows = _rows(
        tmp_path,
        '001-a,001,§III.C,step time at FP32 peak,"ResNet-50, T4",33.33,s,'
        'at_peak:270e9:t4:fp32,factor_1000,"cite"',
        '001-b,001,§III.C,step time at FP32 peak,"ViT, T4, batch 64, 3×224×224",34.57,s,'
        'at_peak:280e9:t4:fp32,factor_1000,"cite"',
        _measured("001-c", "ResNet-50, Colab CPU, batch 64", 9000, RN50_MEASURED),
        _measured("001-d", "ResNet-50, T4, batch 64", 250,
                  "measured:resnet50:imagenet:64:train_step:step_time:cuda".replace("64", "32")),
    )  # fmt: skip
    by_id = {p.row.id: p for p in predict(rows, CATALOG, COUNTS)}
    assert all(p.predicted_s is None and p.ratio is None for p in by_id.values())
    assert any("the batch" in m for m in by_id["001-a"].missing)
    assert any("the input" in m for m in by_id["001-a"].missing)
    assert any("the model" in m for m in by_id["001-b"].missing)
    assert any("the device" in m for m in by_id["001-c"].missing)  # a CPU, no catalog name
    assert any("complexity-tables" in m for m in by_id["001-d"].missing)  # batch 32 uncounted


def test_a_device_several_catalog_entries_share_is_the_one_the_seed_names(
    tmp_path: Path,
) -> None:
    line = _measured("001-v", "ResNet-50, V100, batch 64", 120, RN50_MEASURED)
    (alone,) = predict(_rows(tmp_path, line), CATALOG, COUNTS)
    assert alone.device is None and any("several catalog devices" in m for m in alone.missing)
    named = _rows(
        tmp_path,
        line,
        "001-v100,001,§III.B,FP32 peak,NVIDIA Tesla V100,15.7,TFLOP/s,"
        'catalog:v100-sxm2-16gb:fp32,agrees,"cite"',
    )
    (p,) = [p for p in predict(named, CATALOG, COUNTS) if p.row.id == "001-v"]
    assert p.device is not None and p.device.id == "v100-sxm2-16gb"
    assert p.predicted_s == pytest.approx(RN50_STEP / 15.7e12, rel=1e-3)


def test_a_small_gpu_step_has_the_launch_floor(tmp_path: Path) -> None:
    """SimpleMLP's 30 MFLOP inference at batch 64 takes 3.7 µs at the T4's peak and its
    1.95 MB 6.1 µs at 320 GB/s; ten kernels at 5 µs each take 50 µs: the launches set the
    floor."""
    rows = _rows(
        tmp_path,
        _measured("004-m", "SimpleMLP, T4, batch 64", 0.2,
                  "measured:simple_mlp:mnist:64:inference:step_time:cuda"),
    )  # fmt: skip
    profiled = {MLP: Kernels(10.0, "the profiled step of GPU run r1")}
    (p,) = predict(rows, CATALOG, COUNTS, profiled=profiled)
    assert p.bound == LAUNCH
    assert p.predicted_s == pytest.approx(50e-6)
    assert p.ratio == pytest.approx(4.0)
    assert "host's kernel launches" in p.sentence
    (no_profile,) = predict(rows, CATALOG, COUNTS)
    assert no_profile.bound == "memory"
    assert no_profile.predicted_s == pytest.approx(1_948_712 / 320e9)


def test_kernels_from_another_batch_take_the_fewest() -> None:
    other = {
        ("simple_mlp", "mnist", 1, "inference", "fp32"): Kernels(12.0, "run a"),
        ("simple_mlp", "mnist", 256, "inference", "fp32"): Kernels(9.0, "run b"),
    }
    found = kernels_of(MLP, other)
    assert found is not None and found.per_step == 9.0 and "batch 256" in found.how
    assert kernels_of(RN50, other) is None


def test_faster_than_the_floor_is_said(tmp_path: Path) -> None:
    rows = _rows(tmp_path, _measured("001-f", "ResNet-50, T4, batch 64", 100, RN50_MEASURED))
    (p,) = predict(rows, CATALOG, COUNTS)
    assert p.ratio == pytest.approx(0.1 / 0.19362, rel=1e-4)
    assert "faster than the compute floor allows" in p.sentence


def test_spread_per_seed(tmp_path: Path) -> None:
    rows = _rows(
        tmp_path,
        _measured("001-a", "ResNet-50, T4, batch 64", 250, RN50_MEASURED),
        _measured("001-b", "ResNet-50, L4, batch 64", 120, RN50_MEASURED),
        _measured("001-c", "ResNet-50, Colab CPU, batch 64", 9000, RN50_MEASURED),
    )
    predictions = predict(rows, CATALOG, COUNTS)
    (spread,) = spread_by_seed(predictions)
    l4 = RN50_STEP / BY_ID["l4"].peaks_flops_per_s["fp32"]
    l4 = max(l4, RN50_BYTES / BY_ID["l4"].bandwidth_bytes_per_s)
    ratios = sorted([0.250 / (RN50_STEP / 8.1e12), 0.120 / l4])
    assert (spread.seed, spread.predicted, spread.missing) == ("001", 2, 1)
    assert spread.low == pytest.approx(ratios[0]) and spread.high == pytest.approx(ratios[1])
    assert spread.spread == pytest.approx(ratios[1] / ratios[0])


def test_beside_our_result_of_the_same_configuration(tmp_path: Path) -> None:
    rows = _rows(tmp_path, _measured("001-a", "ResNet-50, T4, batch 64", 250, RN50_MEASURED))
    (p,) = predict(rows, CATALOG, COUNTS)
    h100 = BY_ID["h100-sxm"]
    ours = result_row(
        {"run_id": "G-1", "model": "resnet50", "dataset": "imagenet", "batch": 64,
         "phase": "train_step", "precision": "fp32", "device": "cuda",
         "device_label": h100.name, "median_s": 0.05, "modelled_flops": RN50_STEP,
         "modelled_bytes": RN50_BYTES}
    )["result"]  # fmt: skip
    cpu = result_row(
        {"run_id": "G-2", "model": "resnet50", "dataset": "imagenet", "batch": 64,
         "phase": "train_step", "precision": "fp32", "device": "cpu",
         "device_label": "AMD EPYC", "median_s": 9.0}
    )["result"]  # fmt: skip
    (found,) = beside_ours([p], {"G-1": ours, "G-2": cpu}, catalog=CATALOG)  # not the CPU
    assert found.ours is ours
    assert found.ratio == pytest.approx(5.0)
    h100_floor = max(RN50_STEP / h100.peaks_flops_per_s["fp32"],
                     RN50_BYTES / h100.bandwidth_bytes_per_s)  # fmt: skip
    assert found.floors_ratio == pytest.approx((RN50_STEP / 8.1e12) / h100_floor)
    sentence = found.sentence()
    assert "NVIDIA T4" in sentence and h100.name in sentence and "is 5× our 50 ms" in sentence
    assert "from the devices alone" in sentence


def test_reading_the_workload_from_a_rows_words() -> None:
    assert dataset_in("ResNet-18, 3x32x32", "resnet18") == "cifar10"
    assert dataset_in("FCN, 3 × 224 × 224", "fcn_resnet50") == "voc"
    assert dataset_in("ResNet-50, T4", "resnet50") is None  # images of an unsaid size
    assert dataset_in("SimpleMLP", "simple_mlp") == "mnist"  # its only input
    assert dataset_in("BERT", "bert_base") == "tokens"
    assert batch_in("ResNet-50, batch 64") == 64
    assert batch_in("batch size = 256") == 256
    assert batch_in("batched") is None
    assert phase_in("inference latency") == "inference"
    assert phase_in("training step time") == "train_step"
    assert phase_in("GPU utilisation") is None
    assert precision_in("worked example, FP32") == "fp32"  # 'amp' in 'example' is no AMP
    assert precision_in("mixed precision (AMP)") == "fp16-amp"
    assert precision_in("BF16 autocast") == "bf16-amp"


def test_the_workloads_complexity_tables_counts(tmp_path: Path) -> None:
    rows = _rows(
        tmp_path,
        _measured("001-a", "ResNet-50, T4, batch 64", 250, RN50_MEASURED),
        '002-b,002,§3,epoch time,"ResNet-18, RTX 4080 Laptop, batch 128, CIFAR-10, AMP",'
        '41,s,measured:resnet18:cifar10:128:train_step:step_time:cuda,unexplained,"cite",,,,,"next: a profile"',
        '001-t,001,§III.C,step time at FP32 peak,"ResNet-50, T4",33.33,s,'
        'at_peak:270e9:t4:fp32,factor_1000,"cite"',
        '001-p,001,§III.B,FP32 peak,NVIDIA T4,8.1,TFLOP/s,catalog:t4:fp32,agrees,"cite"',
    )
    assert row_workload(rows[1]).precision == "fp16-amp"
    assert workloads_to_count(rows) == [
        ("resnet18", "cifar10", 128, "train_step", "fp16-amp"),
        RN50,
    ]  # not the at-peak time without its batch, nor the peak


def test_complexity_tables_count_them_as_the_runs_do(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from generator.complexity.tables import seed_workload_rows

    _rows(tmp_path, _measured("001-a", "ResNet-50, T4, batch 64", 250, RN50_MEASURED))
    (row,) = seed_workload_rows(tmp_path)
    assert (row["model"], row["batch"], row["phase"], row["precision"]) == (
        "resnet50",
        64,
        "train_step",
        "fp32",
    )
    assert row["step_flops"] == pytest.approx(RN50_STEP)
    assert row["forward_flops"] == pytest.approx(RN50_FORWARD)
    assert row["min_traffic_bytes"] == pytest.approx(RN50_BYTES, rel=1e-9)


def test_an_export_missing_work_says_so(tmp_path: Path) -> None:
    """000's A-1 export holds 4.928 GFLOP of ResNet-18's 14.01 GFLOP step (35 %): its 7.376 ms
    of kernels are part of the step, and per FLOP they held they ran at 35 % ÷ ratio."""
    rows = _rows(
        tmp_path,
        '000-t,000,§IV.ii,total kernel time,"ResNet-18, L4, batch 64",7.376,ms,'
        'imported:a1:time,agrees,"cite"',
    )
    key = ("resnet18", "cifar10", 64, "train_step", "fp32")
    counts = {key: Counts(14_012_158_504.0, 587_682_880.0, "hand")}
    (p,) = predict(
        rows, CATALOG, counts, imported={"a1": key[:4]}, imported_devices={"a1": BY_ID["l4"]},
        counted={"a1": 4.928e9},
    )  # fmt: skip
    assert p.device is not None and p.device.id == "l4"
    assert p.bound == "memory"
    assert p.predicted_s == pytest.approx(587_682_880 / 300e9)
    assert "35.2 % of the step's FLOPs" in p.sentence
    share = 4.928e9 / 14_012_158_504
    assert f"{100 * share / p.ratio:.3g} % of the floor's speed" in p.sentence  # type: ignore[operator]


def test_a_floor_key_gives_the_workload_its_steps_and_never_a_stand_in_device(
    tmp_path: Path,
) -> None:
    """A row's own `floor:` key names its workload (forward FLOPs: an inference's work) and
    the steps its time spans; its device counts only where the `device` column names it: a
    CPU the seed does not name (the key's Grace is a bound, the fastest catalog CPU) is
    missing, not predicted as a Grace."""
    cite = '"cite"'
    rows = _rows(
        tmp_path,
        f'004-g,004,T4,GPU inference time,"SimpleMLP, MNIST, batch 64",1,ms,'
        f"floor:simple_mlp:mnist:64:forward_flops:a100-80gb-pcie:fp32:10,below_peak,{cite},"
        "a100-80gb-pcie,simple_mlp:mnist:64:inference,fp32,table,",
        f'004-c,004,T4,CPU inference time,"SimpleMLP, MNIST, batch 64",1,ms,'
        f"floor:simple_mlp:mnist:64:forward_flops:grace-cpu-superchip:fp32,below_peak,{cite},"
        ",simple_mlp:mnist:64:inference,fp32,table,",
    )
    gpu, cpu = predict(rows, CATALOG, COUNTS)
    assert gpu.workload.key == MLP and gpu.workload.steps == 10
    a100 = BY_ID["a100-80gb-pcie"]
    per_step = max(MLP_FLOPS / a100.peak("fp32"), MLP_BYTES / a100.bandwidth_bytes_per_s)
    assert gpu.predicted_s == pytest.approx(10 * per_step)
    assert cpu.device is None and cpu.predicted_s is None
    assert any("the device" in gap for gap in cpu.missing)


def test_a_rows_confirmed_slips_are_its_cause_not_the_device(tmp_path: Path) -> None:
    """001's at-peak ResNet-50 time on a T4, 33.33 s against a 193.6 ms floor (172×): the
    Replication page confirms ×1000 and forward MACs for this row, so the sentence names
    them instead of guessing at a unit slip or time outside the step."""
    rows = _rows(
        tmp_path,
        '001-f,001,§V,step time at FP32 peak,"ResNet-50, T4, batch 64",33.33,s,'
        "floor:resnet50:imagenet:64:step_flops:t4:fp32,factor_1000+forward_macs_as_step,"
        '"cite",t4,resnet50:imagenet:64:train_step,fp32,text,',
    )
    (p,) = predict(rows, CATALOG, COUNTS, statuses={"001-f": "consistent"})
    assert p.ratio == pytest.approx(33.33 / 0.19362, rel=1e-3)
    assert "factor-1000 slip and forward MACs called step FLOPs" in p.sentence
    (unconfirmed,) = predict(rows, CATALOG, COUNTS, statuses={"001-f": "unexplained"})
    assert "factor-1000" not in unconfirmed.sentence


def test_a_throughput_is_predicted_as_batch_over_the_floor(tmp_path: Path) -> None:
    """002's §5.1 table: ResNet-50 trains at 117 img/s at batch 64 on a T4. The step's floor
    is 193.6 ms (above), so the roof allows 64 ÷ 0.19362 s = 330.5 img/s: published ÷
    predicted = 117 ÷ 330.5 = 0.354. Its step time, 64 ÷ 117 = 547 ms, is 2.83× the floor,
    which is what the cause, the seed's spread and the chart read."""
    rows = _rows(
        tmp_path,
        '002-r,002,§5.1 table,training throughput,"ResNet-50, T4 (Colab), batch 64",117,img/s,'
        'floor:resnet50:imagenet:64:step_flops:t4:fp32,below_peak,"cite",t4,'
        "resnet50:imagenet:64:train_step,fp32,table,",
    )
    assert workloads_to_count(rows) == [RN50]  # complexity-tables counts a throughput's step
    (p,) = predict(rows, CATALOG, COUNTS)
    assert p.missing == () and p.bound == "compute"
    assert p.predicted_s == pytest.approx(0.19362, rel=1e-4)
    predicted_rate = 64 / 0.19362
    assert pytest.approx(330.5, rel=1e-3) == predicted_rate
    assert p.ratio == pytest.approx(117 / predicted_rate, rel=1e-4)
    assert p.sentence.startswith("Published ÷ predicted throughput = 0.354 (117 img/s")
    step_over_floor = (64 / 117) / 0.19362
    assert f"published ÷ predicted = {step_over_floor:.3g}" in p.sentence
    assert "of the NVIDIA T4's compute-bound floor" in p.sentence
    (spread,) = spread_by_seed([p])
    assert spread.median == pytest.approx(step_over_floor, rel=1e-4)
    assert beside_ours([p], {}) == []  # a throughput is not set beside our step times


RN18_256 = ("resnet18", "cifar10", 256, "train_step", "fp32")
RN18_256_STEP, RN18_256_BYTES = 55_914_454_312.0, 1_277_406_784.0  # seed_workloads.csv


def _a2_rows(tmp_path: Path) -> list[LiteratureRow]:
    """Seed 000's A-2 as transcribed: its ncu count (19.31 GFLOP, the backward pass outside
    the NVTX range: `incomplete_profile:backward`) and its kernel time (10.688 ms, whose own
    cause is `below_peak`), one profile in two table rows."""
    cite, where = '"cite"', '"ResNet-18, L4, batch 256 (A-2)"'
    extra = "l4,resnet18:cifar10:256:train_step,fp32,table,"
    return _rows(
        tmp_path,
        f"000-g,000,§IV.ii,total GFLOP,{where},19.31,GFLOP,"
        f"analytic:resnet18:cifar10:256:step_flops,incomplete_profile:backward,{cite},{extra}",
        f"000-t,000,§IV.ii,total kernel time,{where},10.688,ms,"
        f"floor:resnet18:cifar10:256:step_flops:l4:fp32,below_peak,{cite},{extra}",
    )


def test_a_time_from_a_profile_without_the_backward_pass_is_of_part_of_the_step(
    tmp_path: Path,
) -> None:
    """The time row's profile lacks the backward pass (its sibling row's cause says so), so
    its time is of part of the step: 19.31 GFLOP of the 55.91 GFLOP step (34.5 %), per FLOP
    held at 34.5 % ÷ (published ÷ predicted) of the floor's speed, not "the step ran at"."""
    counts = {RN18_256: Counts(RN18_256_STEP, RN18_256_BYTES, "hand")}
    (p,) = predict(_a2_rows(tmp_path), CATALOG, counts)
    assert p.gap is not None and (p.gap.row_id, p.gap.phases) == ("000-g", ("backward",))
    assert p.ratio is not None
    share = 19.31e9 / RN18_256_STEP
    assert "though the seed's profile lacks the backward pass and holds only 34.5 %" in p.sentence
    assert f"its kernels ran at {100 * share / p.ratio:.3g} % of the floor's speed" in p.sentence
    assert "the step ran at" not in p.sentence


def test_a_part_of_a_step_is_set_beside_our_same_part(tmp_path: Path) -> None:
    """Beside ours, A-2's 10.688 ms meets our forward, loss and optimizer step (the phases
    its profile held: 3 + 0.1 + 0.4 ms of our 8 ms step), not our whole step; without our
    phase times the ratio is not printed."""
    from generator.analysis.interval import Interval
    from generator.analysis.phases import PartTime, StepParts

    counts = {RN18_256: Counts(RN18_256_STEP, RN18_256_BYTES, "hand")}
    (p,) = predict(_a2_rows(tmp_path), CATALOG, counts)
    ours = result_row(
        {"run_id": "F-1", "workload": "F-1", "model": "resnet18", "dataset": "cifar10",
         "batch": 256, "phase": "train_step", "precision": "fp32", "device": "cuda",
         "device_label": BY_ID["h100-sxm"].name, "median_s": 0.008,
         "modelled_flops": RN18_256_STEP, "modelled_bytes": RN18_256_BYTES}
    )["result"]  # fmt: skip
    times = {"forward": 0.003, "loss": 0.0001, "backward": 0.0035, "optimizer step": 0.0004}
    parts = StepParts(
        "resnet18", "cifar10", 256, "fp32", ours.device_label, "F-1", ("F-1",), 20,
        tuple(PartTime(name, Interval(t)) for name, t in times.items()), None, None, None,
    )  # fmt: skip
    (found,) = beside_ours([p], {"F-1": ours}, catalog=CATALOG, parts={"F-1": parts})
    assert found.partial and found.ours_s == pytest.approx(0.0035)
    assert found.ratio == pytest.approx(10.688e-3 / 0.0035)
    sentence = found.sentence()
    assert "times only its forward, loss and optimizer step" in sentence
    assert f"it is {found.ratio:.3g}× our 3.5 ms for the same forward" in sentence
    (bare,) = beside_ours([p], {"F-1": ours}, catalog=CATALOG)
    assert bare.ratio is None and "not comparable with our 8 ms step" in bare.sentence()


def test_confirmed_slips_are_pinned_on_the_ratio_they_explain(tmp_path: Path) -> None:
    """001's 8.91 s on an L4: the slips act on FLOPs ÷ peak (51.76 ms, ×172 as Replication
    checks it), but the L4's 300 GB/s sets the step's floor at 167.6 ms, so published ÷
    predicted is 53.1; the sentence says which floor each ratio is over."""
    rows = _rows(
        tmp_path,
        '001-f,001,§V,step time at FP32 peak,"ResNet-50, L4, batch 64",8.91,s,'
        "floor:resnet50:imagenet:64:step_flops:l4:fp32,factor_1000+forward_macs_as_step,"
        '"cite",l4,resnet50:imagenet:64:train_step,fp32,text,',
    )
    (p,) = predict(rows, CATALOG, COUNTS, statuses={"001-f": "consistent"})
    l4 = BY_ID["l4"]
    compute, memory = RN50_STEP / l4.peak("fp32"), RN50_BYTES / l4.bandwidth_bytes_per_s
    assert p.bound == "memory" and p.predicted_s == pytest.approx(memory)
    assert p.ratio == pytest.approx(53.15, abs=0.01)
    assert p.sentence.startswith("Published ÷ predicted = 53.1 against the memory floor, 3.24×")
    assert f"over that floor published is ×{8.91 / compute:.3g}" in p.sentence
    assert "factor-1000 slip and forward MACs called step FLOPs" in p.sentence
