"""Nsight Systems SQLite exports built for tests, with the tables and columns of NVIDIA's
export documentation (nsys-exporter, "SQLite Export Schema Reference"): `StringIds`,
`CUPTI_ACTIVITY_KIND_KERNEL` / `_MEMCPY` / `_MEMSET` / `_RUNTIME`, `NVTX_EVENTS`,
`TARGET_INFO_GPU`, `ENUM_CUDA_MEMCPY_OPER`. No real export could be obtained (see
tests/data/nsys/PROVENANCE.md); these are not measurements, and say so in their names."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = """
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_GPU (vendor INT, id INT NOT NULL, name TEXT NOT NULL, busLocation TEXT,
    isDiscrete INT, l2CacheSize INT, totalMemory INT, memoryBandwidth INT, clockRate INT,
    smCount INT, pwGpuId INT, uuid TEXT, luid INT, chipName TEXT);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT NOT NULL, end INT NOT NULL,
    deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL,
    correlationId INT, globalPid INT, demangledName INT NOT NULL, shortName INT NOT NULL,
    mangledName INT, launchType INT, cacheConfig INT, registersPerThread INT NOT NULL,
    gridX INT NOT NULL, gridY INT NOT NULL, gridZ INT NOT NULL, blockX INT NOT NULL,
    blockY INT NOT NULL, blockZ INT NOT NULL, staticSharedMemory INT NOT NULL,
    dynamicSharedMemory INT NOT NULL, localMemoryPerThread INT NOT NULL,
    localMemoryTotal INT NOT NULL, gridId INT NOT NULL, sharedMemoryExecuted INT,
    graphNodeId INT, sharedMemoryLimitConfig INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT NOT NULL, end INT NOT NULL,
    deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL,
    correlationId INT, globalPid INT, bytes INT NOT NULL, copyKind INT NOT NULL,
    deprecatedSrcId INT, srcKind INT, dstKind INT, srcDeviceId INT, srcContextId INT,
    dstDeviceId INT, dstContextId INT, migrationCause INT, graphNodeId INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INT NOT NULL, end INT NOT NULL,
    deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL,
    correlationId INT, globalPid INT, value INT NOT NULL, bytes INT NOT NULL,
    graphNodeId INT, memKind INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT NOT NULL, end INT NOT NULL,
    eventClass INT NOT NULL, globalTid INT, correlationId INT, nameId INT NOT NULL,
    returnValue INT NOT NULL, callchainId INT);
CREATE TABLE NVTX_EVENTS (start INT NOT NULL, end INT, eventType INT NOT NULL, rangeId INT,
    category INT, color INT, text TEXT, globalTid INT, endGlobalTid INT, textId INT,
    domainId INT, uint64Value INT, int64Value INT, doubleValue REAL, uint32Value INT,
    int32Value INT, floatValue REAL, jsonTextId INT, jsonText TEXT);
"""
COPY_OPERATIONS = [(1, "CUDA_MEMCPY_OPER_HTOD", "Host-to-Device"),
                   (2, "CUDA_MEMCPY_OPER_DTOH", "Device-to-Host"),
                   (8, "CUDA_MEMCPY_OPER_DTOD", "Device-to-Device")]  # fmt: skip


@dataclass
class Export:
    """Events in ns: kernels (name, start, end, device), copies (kind, start, end, bytes,
    device), runtime calls (name, start, end), NVTX ranges (text, start, end, eventType)."""

    kernels: list[tuple[str, int, int, int]] = field(default_factory=list)
    copies: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    sets: list[tuple[int, int, int, int]] = field(default_factory=list)
    calls: list[tuple[str, int, int]] = field(default_factory=list)
    ranges: list[tuple[str, int, int, int]] = field(default_factory=list)
    gpus: dict[int, str] = field(default_factory=lambda: {0: "NVIDIA H100 80GB HBM3"})

    def write(self, path: Path) -> Path:
        db = sqlite3.connect(path)
        db.executescript(SCHEMA)
        strings: dict[str, int] = {}

        def sid(text: str) -> int:
            if text not in strings:
                strings[text] = len(strings) + 1
                db.execute("INSERT INTO StringIds VALUES (?, ?)", (strings[text], text))
            return strings[text]

        db.executemany("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, ?, ?)", COPY_OPERATIONS)
        for device, name in self.gpus.items():
            db.execute(
                "INSERT INTO TARGET_INFO_GPU (vendor, id, name) VALUES (4318, ?, ?)", (device, name)
            )
        for n, (name, start, end, device) in enumerate(self.kernels):
            short = sid(name.split("(")[0])
            db.execute(
                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES "
                "(?, ?, ?, 1, 7, ?, 1, ?, ?, NULL, 0, 0, 32, 64, 1, 1, 128, 1, 1, 0, 0, 0, 0, ?, 0, 0, 0)",
                (start, end, device, n, sid(name), short, n),
            )
        for n, (kind, start, end, size, device) in enumerate(self.copies):
            db.execute(
                "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, "
                "streamId, correlationId, globalPid, bytes, copyKind) VALUES (?, ?, ?, 1, 7, ?, 1, ?, ?)",
                (start, end, device, 10_000 + n, size, kind),
            )
        for start, end, size, device in self.sets:
            db.execute(
                "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, "
                "streamId, value, bytes) VALUES (?, ?, ?, 1, 7, 0, ?)",
                (start, end, device, size),
            )
        for n, (name, start, end) in enumerate(self.calls):
            db.execute(
                "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, 1, ?, ?, 0, NULL)",
                (start, end, n, sid(name)),
            )
        for text, start, end, kind in self.ranges:
            db.execute(
                "INSERT INTO NVTX_EVENTS (start, end, eventType, textId) VALUES (?, ?, ?, ?)",
                (start, end, kind, sid(text)),
            )
        db.commit()
        db.close()
        return path


def training_steps(steps: int = 3, step_ns: int = 10_000_000, busy_ns: int = 6_000_000) -> Export:
    """`steps` NVTX `train_step` ranges; in each, one H2D copy of 4 MB, then kernels that keep
    the GPU busy `busy_ns` of the step (a GEMM and an elementwise kernel on two streams that
    overlap by 1 ms), and a `cudaLaunchKernel` per kernel."""
    export = Export()
    for step in range(steps):
        t0 = 1_000_000 + step * step_ns
        export.ranges.append(("train_step", t0, t0 + step_ns, 59))
        export.copies.append((1, t0 + 100_000, t0 + 600_000, 4_000_000, 0))
        export.kernels.append(
            ("ampere_sgemm_128x64_nn(float*, float*)", t0 + 600_000, t0 + 4_600_000, 0)
        )
        export.kernels.append(
            (
                "void at::native::vectorized_elementwise_kernel<4>(int)",
                t0 + 3_600_000,
                t0 + 5_100_000 + (busy_ns - 6_000_000),
                0,
            )
        )
        export.sets.append(
            (
                t0 + 5_100_000 + (busy_ns - 6_000_000),
                t0 + 5_600_000 + (busy_ns - 6_000_000),
                1024,
                0,
            )
        )
        for k in range(2):
            export.calls.append(
                ("cudaLaunchKernel_v7000", t0 + 550_000 + k * 10_000, t0 + 555_000 + k * 10_000)
            )
    export.ranges.append(("setup", 0, 900_000, 60))
    return export


def phased_steps(steps: int = 2) -> Export:
    """Steps as `measure --nsys` records them: NVTX ranges `forward`, `backward` and
    `optimizer` (domain-prefixed, as NVTX domains write them), each launching kernels that
    run after the range has ended on the host. Per step: forward 2 ms of GPU time (two
    kernels), backward 3 ms, optimizer 0.5 ms."""
    export = Export()
    for step in range(steps):
        t0 = step * 20_000_000
        plan = [
            ("forward", [1_000_000, 1_000_000]),
            ("backward", [3_000_000]),
            ("optimizer", [500_000]),
        ]
        host, gpu = t0, t0 + 100_000
        for phase, kernels in plan:
            export.ranges.append((f"torch:{phase}", host, host + 50_000, 59))
            for index, duration in enumerate(kernels):
                export.calls.append(
                    ("cudaLaunchKernel_v7000", host + 10_000 * index, host + 10_000 * index + 5_000)
                )
                export.kernels.append((f"{phase}_kernel_{index}", gpu, gpu + duration, 0))
                gpu += duration
            host += 60_000
    return export
