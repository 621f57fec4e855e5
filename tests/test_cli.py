"""The command line as a user pipes it: output, exit status and error text."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generator.cli import main
from tests.helpers import REAL_NCU, REPO

L4 = REAL_NCU / "taytwkim__nn-perf__a1-rep.csv"
JSON_KEYS = ["kernels", "flops", "flops_by_precision", "dram_bytes", "l2_bytes", "l1_bytes",
             "time_s", "attained_flops_per_s", "arithmetic_intensity", "sm_pct", "dram_pct",
             "kernels_by_range", "device", "bound", "efficiency"]  # fmt: skip


def test_summarize_json_on_the_l4_export(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summarize", str(L4), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(JSON_KEYS) <= set(result)
    assert result["kernels"] == 98
    assert round(result["flops"] / 1e9, 3) == 4.928
    assert round(result["dram_bytes"] / 1e9, 3) == 0.710
    assert round(result["time_s"] * 1e3, 3) == 7.376
    assert result["kernels_by_range"] == {
        "forward": 89,
        "loss": 2,
        "backward": 1,
        "optimizer_step": 6,
    }
    assert result["l2_bytes"] is None and result["l1_bytes"] is None
    # CC 8.9 is both the L4 and the RTX 4080 Laptop GPU: no guess
    assert result["device"]["catalog"] is None and result["bound"] is None
    assert result["device_candidates"] == [
        "l4", "rtx-4080-laptop", "rtx-4090", "rtx-4090-d", "l40s"
    ]  # fmt: skip


def test_summarize_json_with_device_one_object_per_file(capsys: pytest.CaptureFixture[str]) -> None:
    gemm = REAL_NCU / "Olajide-Badejo__GPU-Roofline-Profiler__gemm_tiled.csv"
    assert main(["summarize", str(L4), str(gemm), "--device", "L4", "--json"]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert first["device"]["catalog"] == "l4" and first["bound"] == "memory"
    assert round(first["efficiency"], 4) == 0.3208
    assert second["flops"] is None and second["efficiency"] is None


def test_summarize_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summarize", str(L4), "--device", "l4"]) == 0
    out = capsys.readouterr().out
    assert "  FLOPs              4.928 GFLOP  (fp32 4.928 GFLOP)\n" in out
    assert "  DRAM bytes         709.9 MB\n" in out
    assert "  kernels by range   forward 89, loss 2, backward 1, optimizer_step 6" in out
    assert "memory-bound against fp32 (ridge 101 FLOP/byte), efficiency 32.1 %" in out


def test_user_error_is_one_line_and_exit_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("not an export\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "generator", "summarize", str(bad)],
        capture_output=True, text=True, cwd=REPO, check=False,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {bad}: no ncu CSV header found")
    assert "Traceback" not in result.stderr


def test_the_process_skips_its_last_collections(tmp_path: Path) -> None:
    # `python -m generator` freezes what the command left before the interpreter ends, so
    # its final garbage collections do not walk a whole report (0.3 s at 1,000 runs); the
    # exit status is the command's.
    probe = (
        "import atexit, gc, runpy, sys\n"
        "atexit.register(lambda: print('frozen', gc.get_freeze_count() > 0))\n"
        "sys.argv = ['generator', *sys.argv[1:]]\n"
        "runpy.run_module('generator', run_name='__main__')\n"
    )
    for args, status in (([str(L4)], 0), ([str(tmp_path / "none.csv")], 1)):
        result = subprocess.run(
            [sys.executable, "-c", probe, "summarize", *args],
            capture_output=True, text=True, cwd=REPO, check=False,
        )  # fmt: skip
        assert result.returncode == status, result.stderr
        assert result.stdout.rstrip().endswith("frozen True")


def test_unknown_device_is_a_user_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summarize", str(L4), "--device", "TPU v9"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: key '--device': unknown device 'TPU v9'")


def test_help_lists_the_commands() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "generator", "--help"], capture_output=True, text=True, check=True
    )
    assert "summarize" in result.stdout and "site" in result.stdout
