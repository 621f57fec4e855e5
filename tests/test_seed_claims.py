"""The seeds' claims (measurements/literature/claims.toml): read with located errors, and
judged by arithmetic whose outcome is known by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.analysis.claim_checks import FAILS, HOLDS, OPEN
from generator.analysis.seed_claims import judge_claims
from generator.analysis.seed_prediction import Counts
from generator.catalog import load_catalog
from generator.errors import UserError
from generator.records.literature import LiteratureRow, read_literature
from generator.records.seed_claims import Claim, read_claims
from tests.helpers import REPO

CATALOG = load_catalog()
DEVICES = {d.id for d in CATALOG}
ROWS: list[LiteratureRow] = read_literature(REPO / "measurements", DEVICES)
RN18_128 = ("resnet18", "cifar10", 128, "train_step", "fp32")
# ResNet-18's CIFAR-10 step at batch 128: 27.98 GFLOP at 34.22 FLOP/byte
STEP_FLOPS = 27_979_590_440.0
COUNTS = {RN18_128: Counts(STEP_FLOPS, STEP_FLOPS / 34.22199564543071, "by hand")}


def _claims(tmp_path: Path, body: str) -> list[Claim]:
    folder = tmp_path / "literature"
    folder.mkdir(exist_ok=True)
    (folder / "claims.toml").write_text("schema_version = 1\n" + body, encoding="utf-8")
    return read_claims(tmp_path, ROWS, DEVICES)


def _judge(tmp_path: Path, body: str) -> list[tuple[str, list[tuple[str, str]]]]:
    judged = judge_claims(_claims(tmp_path, body), ROWS, CATALOG, [], COUNTS)
    return [(j.outcome, [(c.outcome, c.sentence) for c in j.checks]) for j in judged]


CLAIM = '[[claim]]\nid = "000-x"\nseed = "000"\nwhere = "§VI"\nclaim = "words"\n'


def test_a_ratio_of_the_seeds_own_numbers_holds(tmp_path: Path) -> None:
    """19.31 GFLOP ÷ 4.928 GFLOP = 3.918: ×4 within 10 %."""
    check = (
        '[[claim.check]]\nkind = "ratio"\nwhat = "GFLOP"\nnumerator = ["000-a2-gflop"]\n'
        'denominator = ["000-a1-gflop"]\nlow = 3.6\nhigh = 4.4\n'
    )
    [(outcome, [(_, sentence)])] = _judge(tmp_path, CLAIM + check)
    assert outcome == HOLDS
    assert "19.31 GFLOP (000-a2-gflop) ÷ 4.928 GFLOP (000-a1-gflop) = 3.918" in sentence


def test_a_datasheet_claim_that_does_not_hold(tmp_path: Path) -> None:
    """The L4's 300 GB/s is not higher than the T4's 320 GB/s: 0.9375."""
    check = (
        '[[claim.check]]\nkind = "catalog"\nwhat = "bandwidth"\n'
        'figures = ["l4:bandwidth", "t4:bandwidth"]\nlow = 1.0\n'
    )
    [(outcome, [(_, sentence)])] = _judge(tmp_path, CLAIM + check)
    assert outcome == FAILS
    assert "300 GB/s bandwidth ÷ the NVIDIA T4's 320 GB/s bandwidth = 0.9375" in sentence


def test_a_printed_number_stands_for_its_digits(tmp_path: Path) -> None:
    """1107 img/s ÷ 10 img/s is 110.7, but 10 may be 10.35: the seed's 107× holds."""
    check = (
        '[[claim.check]]\nkind = "ratio"\nwhat = "speedup"\n'
        'numerator = ["002-rn18-128-4080-imgs"]\ndenominator = ["002-rn18-cpu-imgs"]\n'
        "low = 106.5\nhigh = 107.5\n"
    )
    [(outcome, [(_, sentence)])] = _judge(tmp_path, CLAIM.replace("000", "002") + check)
    assert outcome == HOLDS
    assert "= 110.7 (105.4 to 116.6 within the printed digits)" in sentence


def test_the_efficiency_paradox_with_the_laptop_peak(tmp_path: Path) -> None:
    """Mean achieved 1.7 TFLOP/s of 8.1 (20.99 %) against 3.525 of 33.85 (10.41 %): 2.015×."""
    t4 = '", "'.join(f"002-{w}-t4-achieved" for w in ("rn18-128", "rn50-32", "rn50-64", "rn50-128"))
    laptop = t4.replace("-t4-", "-4080-")
    check = (
        f'[[claim.check]]\nkind = "ratio"\nwhat = "efficiency"\nnumerator = ["{t4}"]\n'
        f'numerator_per = "t4:fp32"\ndenominator = ["{laptop}"]\n'
        'denominator_per = "rtx-4080-laptop:fp32"\nlow = 2.85\nhigh = 2.95\n'
    )
    [(outcome, [(_, sentence)])] = _judge(tmp_path, CLAIM.replace("000", "002") + check)
    assert outcome == FAILS
    assert "(3.525 TFLOP/s) over the NVIDIA GeForce RTX 4080 Laptop GPU's" in sentence
    assert "= 2.015" in sentence


def test_floors_decide_bound_faster_and_gain(tmp_path: Path) -> None:
    """At 34.22 FLOP/byte: compute-bound on the T4 (ridge 25.31, 3.454 ms), memory-bound on
    the L4 (ridge 101, 2.725 ms): the L4 is faster, and its 3.74× peak buys 1.27×."""
    workload = 'workloads = ["resnet18:cifar10:128:train_step"]\n'
    checks = (
        f'[[claim.check]]\nkind = "bound"\ndevice = "l4"\n{workload}expect = "memory"\n'
        f'[[claim.check]]\nkind = "bound"\ndevice = "t4"\n{workload}expect = "memory"\n'
        f'[[claim.check]]\nkind = "faster"\n{workload}devices = ["t4", "l4"]\nexpect = "l4"\n'
        f'[[claim.check]]\nkind = "gain"\n{workload}devices = ["t4", "l4"]\nhigh = 0.5\n'
    )
    [(outcome, judged)] = _judge(tmp_path, CLAIM + checks)
    # compute-bound at its minimal traffic on the T4: a memory-bound claim is not refuted
    # (real kernels move more bytes), only left open
    assert [o for o, _ in judged] == [HOLDS, OPEN, HOLDS, HOLDS]
    assert outcome == OPEN
    assert "×2.95 below the ridge: memory-bound" in judged[0][1]
    assert "ridge 25.31 FLOP/byte" in judged[1][1]
    assert "compute-bound if it moved only" in judged[1][1]
    assert "more than ×1.35 those bytes" in judged[1][1]
    compute = f'[[claim.check]]\nkind = "bound"\ndevice = "l4"\n{workload}expect = "compute"\n'
    (tmp_path / "compute").mkdir()
    [(refuted, _)] = _judge(tmp_path / "compute", CLAIM + compute)
    assert refuted == FAILS  # memory-bound even at its minimal traffic: refuted
    assert "NVIDIA T4 3.454 ms (compute), NVIDIA L4 2.725 ms (memory)" in judged[2][1]
    assert "3.74× fp32 peak buys 1.27× on the floor" in judged[3][1]


def test_the_seeds_own_intensity_against_a_roof(tmp_path: Path) -> None:
    """001's counted 10.92 FLOP/byte on the T4 (ridge 25.31): memory-bound by its own number."""
    check = '[[claim.check]]\nkind = "bound"\ndevice = "t4"\nrows = ["001-rn50-t4-ci"]\n'
    [(outcome, [(_, sentence)])] = _judge(
        tmp_path, CLAIM.replace("000", "001") + check + 'expect = "memory"\n'
    )
    assert outcome == HOLDS and "10.92 FLOP/byte, ×2.32 below the ridge" in sentence


def test_an_order_of_the_seeds_numbers(tmp_path: Path) -> None:
    """001's ResNet-50 step: 0.7590 s (T4), 0.9508 s (L4), 0.1867 s (V100): not falling."""
    check = (
        '[[claim.check]]\nkind = "order"\nwhat = "step time"\nexpect = "falling"\n'
        'rows = ["001-rn50-t4-steptime", "001-rn50-l4-steptime", "001-rn50-v100-steptime"]\n'
        'labels = ["T4", "L4", "V100"]\n'
    )
    [(outcome, [(_, sentence)])] = _judge(tmp_path, CLAIM.replace("000", "001") + check)
    assert outcome == FAILS and "not falling from T4 → L4" in sentence


def test_a_claim_without_its_numbers_is_not_checkable(tmp_path: Path) -> None:
    checks = (
        '[[claim.check]]\nkind = "counts"\nwhat = "bytes"\nquantity = "bytes"\nlow = 1.0\n'
        'workloads = ["resnet18:cifar10:7:train_step", "resnet18:cifar10:128:train_step"]\n'
        '[[claim.check]]\nkind = "untranscribed"\nneeds = "the latencies of Fig. 4"\n'
    )
    [(outcome, judged)] = _judge(tmp_path, CLAIM + checks)
    assert outcome == OPEN
    assert "no analytic count of resnet18 (cifar10) train step at batch 7" in judged[0][1]
    assert judged[1] == (OPEN, "Not checkable: it needs the latencies of Fig. 4.")


@pytest.mark.parametrize(
    ("check", "key", "what"),
    [
        ('kind = "ratio"\nwhat = "x"\nnumerator = ["000-nope"]\ndenominator = ["000-a1-gflop"]'
         "\nlow = 1.0", "claim.0.check.0.numerator", "'000-nope'"),
        ('kind = "catalog"\nwhat = "x"\nfigures = ["t9:fp32", "t4:fp32"]\nlow = 1.0',
         "claim.0.check.0.figures", "'t9'"),
        ('kind = "ratio"\nwhat = "x"\nnumerator = ["000-a1-gflop"]\ndenominator = '
         '["000-a1-dram"]\nlow = 1.0', "claim.0.check.0.denominator", "different things"),
        ('kind = "ratio"\nwhat = "x"\nnumerator = ["000-a1-gflop"]\n'
         'denominator = ["000-a2-gflop"]', "claim.0.check.0", "needs low, high or both"),
        ('kind = "bound"\ndevice = "t4"\nexpect = "memory"\nworkloads = ["nomodel:x:1:inference"]',
         "claim.0.check.0", "nomodel"),
        ('kind = "guess"', "claim.0.check.0.kind", "ratio"),
    ],
)  # fmt: skip
def test_a_bad_entry_names_the_file_and_key(
    tmp_path: Path, check: str, key: str, what: str
) -> None:
    with pytest.raises(UserError) as caught:
        _claims(tmp_path, CLAIM + "[[claim.check]]\n" + check + "\n")
    assert caught.value.file == str(tmp_path / "literature" / "claims.toml")
    assert caught.value.key == key
    assert what in caught.value.what


def test_a_claim_id_names_its_seed_and_appears_once(tmp_path: Path) -> None:
    check = '[[claim.check]]\nkind = "untranscribed"\nneeds = "x"\n'
    with pytest.raises(UserError) as caught:
        _claims(tmp_path, CLAIM.replace('seed = "000"', 'seed = "001"') + check)
    assert caught.value.key == "claim.0" and "does not start with its seed" in caught.value.what
    with pytest.raises(UserError) as caught:
        _claims(tmp_path, CLAIM + check + CLAIM + check)
    assert caught.value.key == "claim.1.id"


def test_every_committed_claim_is_read_and_judged() -> None:
    """The committed claims.toml reads, names only rows and devices that exist, and every
    claim of seeds 000 to 003 gets an outcome."""
    claims = read_claims(REPO / "measurements", ROWS, DEVICES)
    assert {c.seed for c in claims} >= {"000", "001", "002", "003"}
    judged = judge_claims(claims, ROWS, CATALOG, [], COUNTS)
    assert {j.outcome for j in judged} <= {HOLDS, FAILS, OPEN}
    by_id = {j.claim.id: j for j in judged}
    assert by_id["000-same-bandwidth"].outcome == HOLDS  # 300 and 320 GB/s: within 10 %
    assert by_id["000-higher-peak-and-bandwidth"].outcome == FAILS  # 300 < 320 GB/s
    assert by_id["003-cpu-no-batch-gain"].outcome == OPEN  # drawn in a figure only
