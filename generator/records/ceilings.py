"""measurements/ceilings/<device-id>.json: a device's measured GEMM and stream rates.

`measure` writes the file through `write_ceilings`; the report reads the best rates back as
`MeasuredCeilings`. This module alone knows the file's keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from generator.atomic import write_json
from generator.formatting import si
from generator.records.run_parts import Environment
from generator.records.versioned import load_json, upgrade, validated

CEILINGS_SCHEMA_VERSION = 1
CEILINGS_DIR = "ceilings"
_FIX = "delete it; `nox -s measure` measures the ceilings again"


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow")


class GemmRate(_Part):
    """The best rate; a CPU's sweep (measure/cpu_sweep.py) adds the kernel, shape and
    threads that reached it and every point it swept (`sweep.points`); a file of one
    square GEMM has `size` instead."""

    best_flops_per_s: float
    kernel: str = ""
    shape: list[int] = []
    threads: int | None = None

    def best_of(self) -> str:
        """'conv2d [4, 128, 28, 28, 128, 3, 3] on 1 thread(s)', or '' for one square GEMM."""
        if not self.kernel:
            return ""
        threads = f" on {self.threads} thread(s)" if self.threads else ""
        return f"{self.kernel} {self.shape}{threads}"


class StreamRate(_Part):
    best_bytes_per_s: float


class CeilingsFile(_Part):
    schema_version: int = CEILINGS_SCHEMA_VERSION
    device_id: str
    device: str
    device_name: str
    gemm: dict[str, GemmRate]  # precision -> runs and best rate
    stream: dict[str, StreamRate]  # copy, triad -> runs and best rate
    measured_at: str = ""
    environment: Environment = {}


@dataclass(frozen=True)
class MeasuredCeilings:
    """The best rates of one device's ceilings file."""

    device_name: str
    gemm_flops_per_s: dict[str, float]  # precision -> best GEMM rate
    copy_bytes_per_s: float | None
    triad_bytes_per_s: float | None
    measured_at: str
    device_id: str = ""  # the file's name: measurements/ceilings/<device_id>.json
    # precision -> how its best GEMM rate was reached ("conv2d [4, 128, ...] on 1 thread"),
    # empty for files of one square GEMM
    gemm_best_of: dict[str, str] = field(default_factory=dict)

    def gemm_summary(self) -> str:
        return ", ".join(f"{p} {si(v, 'FLOP/s')}" for p, v in self.gemm_flops_per_s.items())


def ceilings_path(measurements: Path, device_id: str) -> Path:
    return measurements / CEILINGS_DIR / f"{device_id}.json"


def write_ceilings(measurements: Path, ceilings: CeilingsFile) -> None:
    write_json(ceilings_path(measurements, ceilings.device_id), ceilings.model_dump(mode="json"))


def read_ceilings(path: Path) -> MeasuredCeilings:
    data = upgrade(load_json(path, fix=_FIX), path, CEILINGS_SCHEMA_VERSION)
    parsed = validated(CeilingsFile, data, path, _FIX)
    copy, triad = parsed.stream.get("copy"), parsed.stream.get("triad")
    return MeasuredCeilings(
        device_name=parsed.device_name,
        gemm_flops_per_s={p: rate.best_flops_per_s for p, rate in parsed.gemm.items()},
        copy_bytes_per_s=copy.best_bytes_per_s if copy else None,
        triad_bytes_per_s=triad.best_bytes_per_s if triad else None,
        measured_at=parsed.measured_at,
        device_id=parsed.device_id,
        gemm_best_of={p: rate.best_of() for p, rate in parsed.gemm.items() if rate.kernel},
    )


def load_ceilings(measurements: Path) -> list[MeasuredCeilings]:
    """Every device's ceilings, in file-name order."""
    folder = measurements / CEILINGS_DIR
    return [read_ceilings(p) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
