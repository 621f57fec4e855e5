"""The precisions a peak may be stated for, in any file that states one (the catalog's
`hardware.toml`, the literature's published numbers), and how every page names them."""

from __future__ import annotations

# Peak keys a device may state; the roofline maps each counted precision to one of them.
PEAK_KEYS: tuple[str, ...] = (
    "fp64",
    "fp64_tensor",
    "fp32",
    "fp16",
    "bf16",
    "tf32_tensor",
    "fp16_tensor",
    "bf16_tensor",
    "fp8_tensor",
    "int8_tensor",
    "int4_tensor",
)
# How every page names a catalog peak (INT8 and INT4 rates are TOPS, stored on the same scale).
PEAK_LABELS: dict[str, str] = {
    "fp64": "FP64",
    "fp64_tensor": "FP64 tensor",
    "fp32": "FP32",
    "fp16": "FP16",
    "bf16": "BF16",
    "tf32_tensor": "TF32 tensor",
    "fp16_tensor": "FP16 tensor",
    "bf16_tensor": "BF16 tensor",
    "fp8_tensor": "FP8 tensor",
    "int8_tensor": "INT8 tensor (TOPS)",
    "int4_tensor": "INT4 tensor (TOPS)",
}
