"""rocprofv3 JSON documents for the tests and the fuzzer: a small one written to
rocprofv3's layout (ROCm 6.2 to 7.x: `rocprofv3-schema.json` of ROCm/rocprofiler-sdk and the
real file in tests/data/rocprof/), with every record kind the reader uses, and a cut of the
real file (its first dispatches) small enough to mutate many times a second."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

REAL = Path(__file__).parent / "data" / "rocprof" / "AMD-AGI__TraceLens__908_results.json.gz"
# strings.buffer_records as rocprofv3 writes it: the list index is a record's `kind`
KINDS = [
    ("NONE", []),
    ("HSA_CORE_API", ["hsa_init"]),
    ("HSA_AMD_EXT_API", []),
    ("HSA_IMAGE_EXT_API", []),
    ("HSA_FINALIZE_EXT_API", []),
    ("HIP_RUNTIME_API", ["hipApiName", "hipLaunchKernel", "hipMemcpyAsync"]),
    ("HIP_COMPILER_API", []),
    ("MARKER_CORE_API", ["roctxMarkA", "roctxRangePushA", "roctxRangePop"]),
    ("MARKER_CONTROL_API", []),
    ("MARKER_NAME_API", []),
    ("MEMORY_COPY", ["MEMORY_COPY_NONE", "MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE",
                     "MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE"]),
    ("KERNEL_DISPATCH", ["KERNEL_DISPATCH_NONE", "KERNEL_DISPATCH_ENQUEUE",
                         "KERNEL_DISPATCH_COMPLETE"]),
]  # fmt: skip
HIP, MARKER, COPY, DISPATCH = 5, 7, 10, 11
CPU, GPU0, GPU1 = 100, 200, 201  # agent handles


def _agent(
    handle: int, kind: int, node: int, index: int, name: str, product: str
) -> dict[str, Any]:
    return {"size": 312, "id": {"handle": handle}, "type": kind, "node_id": node,
            "logical_node_id": node, "gpu_index": index, "name": name, "product_name": product,
            "cu_count": 256, "simd_count": 1024 if kind == 2 else 0, "wave_front_size": 64}  # fmt: skip


def dispatch(kernel_id: int, start: int, end: int, agent: int, correlation: int) -> dict[str, Any]:
    return {"size": 184, "kind": DISPATCH, "operation": 2, "thread_id": 7,
            "correlation_id": {"internal": correlation, "external": 0},
            "start_timestamp": start, "end_timestamp": end,
            "dispatch_info": {"size": 72, "agent_id": {"handle": agent}, "queue_id": {"handle": 1},
                              "kernel_id": kernel_id, "dispatch_id": correlation,
                              "private_segment_size": 0, "group_segment_size": 0,
                              "workgroup_size": {"x": 256, "y": 1, "z": 1},
                              "grid_size": {"x": 65536, "y": 1, "z": 1}},
            "stream_id": {"handle": 0}}  # fmt: skip


def _timed(
    kind: int, op: int, start: int, end: int, correlation: int, **more: Any
) -> dict[str, Any]:
    return {"size": 64, "kind": kind, "operation": op, "thread_id": 7,
            "correlation_id": {"internal": correlation, "external": 0},
            "start_timestamp": start, "end_timestamp": end, **more}  # fmt: skip


def _symbol(kernel_id: int, mangled: str, formatted: str) -> dict[str, Any]:
    return {"size": 88, "kernel_id": kernel_id, "code_object_id": 1, "kernel_name": mangled,
            "formatted_kernel_name": formatted, "demangled_kernel_name": formatted + " [clone .kd]",
            "truncated_kernel_name": formatted.split("(")[0]}  # fmt: skip


def synthetic() -> dict[str, Any]:
    """Two GPUs (node 2 and 3) and a CPU; a GEMM and an elementwise kernel on GPU 0, one
    kernel on GPU 1; a host-to-device and a device-to-host copy; two HIP calls; a roctx
    range around the step; two counters collected per dispatch over two dimensions each;
    and keys this reader does not use (summary, code_objects, a future record kind)."""
    gemm = "Cijk_Ailk_Bljk_HHS_BH_MT128x128x64_MI32x32x8_SN"
    add = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>(int)"
    kernels = [
        dispatch(1, 1_000_000, 1_400_000, GPU0, 11),
        dispatch(1, 1_450_000, 1_850_000, GPU0, 12),
        dispatch(2, 1_800_000, 1_900_000, GPU0, 13),  # overlaps the GEMM before it
        dispatch(2, 2_500_000, 2_520_000, GPU0, 14),  # after a 600 us gap
        dispatch(1, 1_200_000, 1_300_000, GPU1, 15),
    ]
    copies = [
        _timed(COPY, 2, 900_000, 950_000, 9, dst_agent_id={"handle": GPU0},
               src_agent_id={"handle": CPU}, bytes=4_000_000),
        _timed(COPY, 3, 2_600_000, 2_610_000, 16, dst_agent_id={"handle": CPU},
               src_agent_id={"handle": GPU0}, bytes=1_000_000),
    ]  # fmt: skip
    counters = [
        {"agent_id": {"handle": GPU0}, "id": {"handle": 31}, "is_constant": 0, "is_derived": 0,
         "name": "SQ_INSTS_VALU", "description": "", "block": "SQ", "expression": "",
         "dimension_ids": [1]},
        {"agent_id": {"handle": GPU0}, "id": {"handle": 32}, "is_constant": 0, "is_derived": 0,
         "name": "FETCH_SIZE", "description": "", "block": "TCC", "expression": "",
         "dimension_ids": []},
    ]  # fmt: skip
    collected = [
        {"dispatch_data": {"size": 64, "correlation_id": {"internal": c, "external": 0},
                           "dispatch_info": kernels[i]["dispatch_info"]},
         "records": [{"counter_id": {"handle": 31}, "value": v},
                     {"counter_id": {"handle": 31}, "value": v + 1.0},
                     {"counter_id": {"handle": 32}, "value": 2.5 * v}],
         "thread_id": 7, "arch_vgpr_count": 8, "sgpr_count": 16, "lds_block_size_v": 0}
        for i, (c, v) in enumerate(((11, 100.0), (12, 300.0), (13, 40.0)))
    ]  # fmt: skip
    process = {
        "metadata": {"pid": 4242, "init_time": 500_000, "fini_time": 3_000_000,
                     "command": ["python", "train.py"], "config": {"kernel_trace": True}},
        "summary": [],
        "agents": [_agent(CPU, 1, 0, -1, "AMD EPYC 9575F", "AMD EPYC 9575F"),
                   _agent(GPU0, 2, 2, 0, "gfx950", "AMD Instinct MI350X"),
                   _agent(GPU1, 2, 3, 1, "gfx950", "AMD Instinct MI350X")],
        "counters": counters,
        "strings": {"callback_records": [], "marker_api": [{"key": 20, "value": "train_step"}],
                    "buffer_records": [{"kind": k, "operations": ops} for k, ops in KINDS],
                    "counters": {"dimension_ids": []}},
        "code_objects": [{"code_object_id": 1, "uri": "file:///lib.so"}],
        "kernel_symbols": [_symbol(0, "", "0"),
                           _symbol(1, gemm + ".kd", gemm),
                           _symbol(2, "_ZN2at6native29vectorized_elementwise_kernel.kd", add)],
        "callback_records": {"counter_collection": collected},
        "buffer_records": {
            "kernel_dispatch": kernels,
            "memory_copy": copies,
            "hip_api": [_timed(HIP, 1, 990_000, 1_000_500, 11), _timed(HIP, 1, 1_440_000, 1_441_000, 12)],
            "marker_api": [_timed(MARKER, 1, 950_000, 2_700_000, 20)],
            "hsa_api": [], "rccl_api": [], "scratch_memory": [],
            "kfd_events_in_a_future_version": [{"anything": True}],
        },
    }  # fmt: skip
    return {"rocprofiler-sdk-tool": [process]}


def real_document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(gzip.decompress(REAL.read_bytes()))
    return document


def real_cut(dispatches: int = 300) -> dict[str, Any]:
    """The real file's first `dispatches` kernel dispatches, with only their symbols."""
    document = real_document()
    process = document["rocprofiler-sdk-tool"][0]
    kept = process["buffer_records"]["kernel_dispatch"][:dispatches]
    used = {k["dispatch_info"]["kernel_id"] for k in kept}
    process["buffer_records"]["kernel_dispatch"] = kept
    process["kernel_symbols"] = [s for s in process["kernel_symbols"] if s["kernel_id"] in used]
    return document


def write(document: dict[str, Any], path: Path, zipped: bool = False) -> Path:
    data = json.dumps(document).encode()
    path.write_bytes(gzip.compress(data) if zipped else data)
    return path
