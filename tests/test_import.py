"""`python -m generator import`: a user's export into the report, or nothing at all."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.cli import main
from generator.records.import_source import discover, load_source
from tests.conftest import build_report
from tests.helpers import REAL_NCU

B200 = REAL_NCU / "meinie0826__Roofline-Analysis__torch_sdpa_flash__mha_bf16_b16_ctx4k_p64.ncu.csv"
L4 = REAL_NCU / "taytwkim__nn-perf__a1-rep.csv"
SGEMM = REAL_NCU / "Gardenia-Tian__LearningNote4Dev__sgemm.csv"
NO_PERMISSION = REAL_NCU / "ncu-errors" / "Gardenia-Tian__LearningNote4Dev__profile.csv"


def run(*argv: str | Path) -> int:
    return main(["import", *(str(a) for a in argv)])


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def test_import_copies_verbatim_and_writes_a_valid_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    measurements = tmp_path / "m"
    status = run(
        L4,
        "--name", "my-l4-step",
        "--measurements", measurements,
        "--device", "NVIDIA L4",
        "--phase", "train_step",
        "--batch", "64",
        "--registry-model", "resnet18",
        "--dataset", "cifar10",
        "--origin", "https://example.org/a1-rep.csv",
        "--title", 'ResNet-18 "step" on my L4',
    )  # fmt: skip
    assert status == 0
    folder = measurements / "imported" / "my-l4-step"
    assert (folder / "ncu.csv").read_bytes() == L4.read_bytes()
    source = load_source(folder / "source.toml")
    assert source.device == "l4"
    assert source.title == 'ResNet-18 "step" on my L4'  # quotes survive the TOML round trip
    assert (source.phase, source.batch, source.registry_model) == ("train_step", 64, "resnet18")
    assert source.precision == "fp32"  # the precision with the most counted FLOPs
    assert source.citation == "https://example.org/a1-rep.csv"
    assert [item.name for item in discover(measurements)] == ["my-l4-step"]
    out = capsys.readouterr().out
    assert "(long layout, 98 kernels)" in out
    assert "[incomplete-step] The backward pass is missing from the profile" in out
    assert "python -m generator complexity-tables" in out  # a registry model was named
    assert f"imported into {folder}/" in out


def test_a_taken_name_is_refused_and_nothing_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    measurements = tmp_path / "m"
    assert run(L4, "--name", "x", "--device", "L4", "--measurements", measurements) == 0
    before = tree(measurements)
    assert run(B200, "--name", "x", "--measurements", measurements) == 1
    err = capsys.readouterr().err
    assert "an imported measurement named 'x' already exists" in err
    assert "choose another --name" in err
    assert tree(measurements) == before


@pytest.mark.parametrize(
    ("file", "argv", "message"),
    [
        (NO_PERMISSION, (), "the file holds ncu's error output, not a CSV export"),
        (SGEMM, (), "the export records compute capability 8.0, not the GPU's name"),
        (B200, ("--device", "b9000"), "b9000"),
        (B200, ("--registry-model", "resnet1"), "unknown registry model 'resnet1'"),
        (L4, ("--name", "Bad Name"), "--name 'Bad Name' is not a usable measurement name"),
        (REAL_NCU / "missing.csv", (), "no such file"),
    ],
    ids=["ncu-error-file", "cc-only", "unknown-device", "bad-registry-model", "bad-name", "none"],
)
def test_a_refused_import_writes_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    file: Path,
    argv: tuple[str, ...],
    message: str,
) -> None:
    measurements = tmp_path / "m"
    (measurements / "imported").mkdir(parents=True)
    name = () if "--name" in argv else ("--name", "new")
    assert run(file, *name, *argv, "--measurements", measurements) == 1
    assert message in capsys.readouterr().err
    assert list((measurements / "imported").iterdir()) == []  # no folder, no staging left


def test_a_leftover_staging_folder_is_not_a_measurement(tmp_path: Path) -> None:
    (tmp_path / "imported" / ".crashed.abc.tmp").mkdir(parents=True)
    assert discover(tmp_path) == []


def test_an_imported_export_shows_in_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    measurements = tmp_path / "measurements"
    shutil.copytree(Path(__file__).parents[1] / "measurements", measurements)
    # the device comes from the export's device__attribute_display_name
    assert run(B200, "--name", "b200-flash", "--measurements", measurements) == 0
    assert load_source(measurements / "imported/b200-flash/source.toml").device == "b200"
    site = build_report(tmp_path, measurements, monkeypatch)
    page = (site / "measurements" / "b200-flash" / "index.html").read_text(encoding="utf-8")
    assert "Read from the export" in page
    assert "profiler__replayer_passes (pass)" in page
    assert 'data-finding="tensor-work-uncounted"' in page
    index = (site / "measurements" / "index.html").read_text(encoding="utf-8")
    assert "b200-flash" in index


def test_import_a_trace_stores_it_gzipped_with_its_device(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import gzip

    from generator.records.import_source import discover_traces
    from tests.trace_helpers import REAL_TRACES

    measurements = tmp_path / "m"
    gz = REAL_TRACES / "hta__amd_mi250_minitoy_train.json.gz"
    assert run(gz, "--name", "mi250", "--measurements", measurements, "--phase", "train_step") == 0
    folder = measurements / "imported" / "mi250"
    assert (folder / "trace.json.gz").read_bytes() == gz.read_bytes()  # verbatim
    source = load_source(folder / "source.toml")
    assert source.device == "mi250-gcd" and source.precision == "fp32"
    assert "torch.profiler trace" in capsys.readouterr().out
    plain = tmp_path / "plain.json"
    plain.write_bytes(gzip.decompress(gz.read_bytes()))
    assert run(plain, "--name", "plain", "--measurements", measurements) == 0
    stored = measurements / "imported" / "plain" / "trace.json.gz"
    assert gzip.decompress(stored.read_bytes()) == plain.read_bytes()  # same bytes, packed
    # each with its work stored beside it, for the trace as stored (the packed one)
    from generator.analysis.trace_work import stored_state

    assert stored_state(folder, folder / "trace.json.gz") == "current"
    assert stored_state(stored.parent, stored) == "current"
    assert [t.name for t in discover_traces(measurements)] == ["mi250", "plain"]
    assert discover(measurements) == []  # no ncu export among them
    # a trace without deviceProperties or architecture tags needs --device: nothing written
    bare = tmp_path / "bare.json"
    bare.write_text('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, '
                    '"tid": 7, "ts": 1, "dur": 2, "args": {"correlation": 1}}]}')  # fmt: skip
    capsys.readouterr()
    assert run(bare, "--name", "bare", "--measurements", measurements) == 1
    assert "pass --device" in capsys.readouterr().err
    assert not (measurements / "imported" / "bare").exists()
