"""What a kernel's name states: the library that ships it, the architecture it was built
for, the operation, the precision, the tile and the operand layout, each only where the
name itself says it (seed 004, Kuo and Gurjar's A100 lab report, §2.3, decodes
`ampere_sgemm_32x32_sliced1x4_tn` and three others by hand; this does it for every kernel a
page lists). `kernels.family_of` classifies; this reads the name's own fields."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, fields

# The SM version a name carries (sm80_, cutlass_80_, nvjet_sm90_) -> NVIDIA architecture
SM_ARCHITECTURES = {
    "50": "Maxwell", "52": "Maxwell", "60": "Pascal", "61": "Pascal", "70": "Volta",
    "72": "Volta", "75": "Turing", "80": "Ampere", "86": "Ampere", "87": "Ampere",
    "89": "Ada Lovelace", "90": "Hopper", "100": "Blackwell", "120": "Blackwell",
}  # fmt: skip
ARCHITECTURE_PREFIXES = ("maxwell", "pascal", "volta", "turing", "ampere", "hopper")
# Type words in names and templates -> the format. Longest first, so tf32 is not f32.
TYPE_WORDS: tuple[tuple[str, str], ...] = (
    ("tf32", "TF32"), ("bf16", "BF16"), ("e4m3", "FP8 E4M3"), ("e5m2", "FP8 E5M2"),
    ("cf32", "complex FP32"), ("cf64", "complex FP64"), ("cf16", "complex FP16"),
    ("f64", "FP64"), ("f32", "FP32"), ("f16", "FP16"), ("fp16", "FP16"), ("s8", "INT8"),
    ("i8", "INT8"), ("s4", "INT4"),
)  # fmt: skip
C_TYPES: tuple[tuple[str, str], ...] = (
    (r"tfloat32_t", "TF32"), (r"bfloat16(?:_t)?|__nv_bfloat16|c10::BFloat16", "BF16"),
    (r"half_t|__half\b|c10::Half|\bhalf\b", "FP16"), (r"int4b_t", "INT4"),
    (r"signed char|int8_t", "INT8"), (r"\bdouble\b", "FP64"), (r"\bfloat\b", "FP32"),
)  # fmt: skip
BLAS_OPS = {"s": "FP32", "d": "FP64", "h": "FP16", "c": "complex FP32", "z": "complex FP64"}
# Tensor-core instruction shapes as names print them -> the PTX mma shape
MMA_SHAPES = {"884": "m8n8k4", "1688": "m16n8k8", "16816": "m16n8k16", "16832": "m16n8k32",
              "161616": "m16n16k16", "16864": "m16n8k64"}  # fmt: skip
# Two letters of a BLAS kernel name: op(A), op(B), in cuBLAS's column-major convention
LAYOUT_WORDS = {"n": "not transposed", "t": "transposed"}
# ATen elementwise functors -> what they compute; clamp is how PyTorch runs ReLU on a GPU
ATEN_FUNCTORS: tuple[tuple[str, str], ...] = (
    (r"clamp_min|launch_clamp_scalar",
     "clamp by a scalar (clamp_min = ReLU: PyTorch's relu runs clamp_min(x, 0))"),
    (r"threshold", "threshold (ReLU's backward)"), (r"FillFunctor|fill_kernel", "fill"),
    (r"direct_copy|copy_kernel", "copy"), (r"_add\b|AddFunctor|CUDAFunctor_add", "add"),
    (r"MulFunctor|mul_kernel", "multiply"), (r"DivFunctor|div_", "divide"),
    (r"uniform|normal|bernoulli|random", "random numbers"),
    (r"sum_functor", "sum"), (r"MeanOps", "mean"), (r"MaxOps|max_", "max"),
)  # fmt: skip


@dataclass(frozen=True)
class KernelName:
    """The fields a kernel name states; "" where it states none."""

    library: str = ""
    architecture: str = ""
    operation: str = ""
    precision: str = ""
    tile: str = ""
    layout: str = ""

    def words(self) -> str:
        """One line for a kernel table: the stated fields, in this order."""
        return " · ".join(
            f"{f.name} {value}" if f.name in ("tile", "layout") else value
            for f in fields(self)
            if (value := getattr(self, f.name))
        )


def _types(token: str) -> list[str]:
    """A run of type words ("tf32f32") as formats, or [] where the token is not one."""
    found, rest = [], token
    while rest:
        for word, form in TYPE_WORDS:
            if rest.startswith(word):
                found.append(form)
                rest = rest[len(word) :]
                break
        else:
            return []
    return found


def _c_type(text: str) -> str:
    """The first C++ element type in a template, as a format."""
    best: tuple[int, str] | None = None
    for pattern, form in C_TYPES:
        match = re.search(pattern, text)
        if match and (best is None or match.start() < best[0]):
            best = (match.start(), form)
    return best[1] if best else ""


def _blas_layout(letters: str) -> str:
    a, b = (LAYOUT_WORDS[c] for c in letters.lower()[:2])
    return f"{letters} (A {a}, B {b})"


def _tile(name: str) -> str:
    match = re.search(r"tilesize(\d+)x(\d+)(?:x(\d+))?", name)
    if match:
        return "×".join(g for g in match.groups() if g)
    return ""


def _legacy_cublas(name: str) -> KernelName | None:
    """ampere_sgemm_32x32_sliced1x4_tn, volta_h884gemm_64x64_ldg8_nn,
    turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn."""
    match = re.match(r"(?:void )?(" + "|".join(ARCHITECTURE_PREFIXES) + r")_(\w+)", name)
    if not match or "gemm" not in match.group(2):
        return None
    rest = match.group(2)
    blas = re.match(r"(?:(fp16|bf16|tf32|i8|int8)_)?([sdhcz])(\d*)gemm", rest)
    if blas is None:
        return None
    element, accumulate, shape = blas.groups()
    if shape:  # a tensor-core instruction shape: s1688 = m16n8k8, FP32 accumulate
        source = {"fp16": "FP16", "bf16": "BF16", "tf32": "TF32", "i8": "INT8"}
        operation = f"GEMM on tensor cores (mma {MMA_SHAPES.get(shape, shape)})"
        precision = f"{source.get(element or 'fp16', 'FP16')} in, "
        precision += f"{BLAS_OPS[accumulate]} accumulate"
    else:
        operation = f"{accumulate.upper()}GEMM ({BLAS_OPS[accumulate]} GEMM on CUDA cores)"
        precision = BLAS_OPS[accumulate]
    tile = re.search(r"_(\d+)x(\d+)(?=_|$)", rest)
    sliced = re.search(r"sliced(\d+)x(\d+)", rest)
    tile_words = f"{tile.group(1)}×{tile.group(2)}" if tile else ""
    if sliced:
        tile_words += f", sliced {sliced.group(1)}×{sliced.group(2)} (warps split the K loop)"
    layout = re.search(r"_([nt]{2})$", rest)
    return KernelName(
        library="cuBLAS",
        architecture=match.group(1).capitalize(),
        operation=operation,
        precision=precision,
        tile=tile_words,
        layout=_blas_layout(layout.group(1)) if layout else "",
    )


CONV_OPS = {"fprop": "convolution forward", "dgrad": "convolution data gradient",
            "wgrad": "convolution weight gradient"}  # fmt: skip


def _xmma(name: str) -> KernelName | None:
    """sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize32x32x64_..._cublas,
    sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize64x32x64_..."""
    match = re.search(r"sm(\d+)_xmma_(gemm|fprop|dgrad|wgrad)_(\w+)", name)
    if not match:
        return None
    sm, kind, rest = match.groups()
    library = "cuDNN" if "cudnn" in name else "cuBLAS" if "cublas" in name else "XMMA"
    tokens = rest.split("_")
    typed = [t for t in tokens if len(_types(t)) == 2]
    precision = ""
    if len(typed) >= 2:  # inputs, then the math's input and accumulate types
        math, accumulate = _types(typed[1])
        precision = f"{math} math, {accumulate} accumulate"
    unit = "CUDA cores (FFMA)" if "ffma" in tokens else "tensor cores" if "tensor" in name else ""
    if not unit and "warpgroup" in name:  # Hopper's warpgroup MMA runs on tensor cores
        unit = "tensor cores (warpgroup MMA)"
    operation = "GEMM" if kind == "gemm" else f"{CONV_OPS[kind]} as an implicit GEMM"
    layout = ""
    if kind == "gemm":
        found = next((t for t in tokens if re.fullmatch(r"[nt]{2}", t)), "")
        layout = _blas_layout(found) if found else ""
    else:
        found = next((t for t in tokens if re.fullmatch(r"[nhwckrs]{8}", t)), "")
        after = tokens[tokens.index(found) + 1] if found else ""
        if found:
            layout = f"{found[:4].upper()} input, {found[4:].upper()} filter"
            if re.fullmatch(r"[nhwc]{4}", after):
                layout += f", {after.upper()} output"
    return KernelName(
        library=library,
        architecture=f"{SM_ARCHITECTURES.get(sm, 'sm_' + sm)} (sm_{sm})",
        operation=operation + (f" on {unit}" if unit else ""),
        precision=precision,
        tile=_tile(name),
        layout=layout,
    )


def _cutlass_flat(name: str) -> KernelName | None:
    """cutlass_80_simt_sgemm_128x64_8x5_nn_align1,
    cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x1_tn_align2,
    cutlass_tensorop_f16_s16816fprop_optimized_f16_64x64_64x5_nhwc_align8."""
    match = re.search(r"cutlass_(?:(\d+)_)?(?:wmma_)?(simt|tensorop)_(\w+)", name)
    if not match:
        return None
    sm, unit, rest = match.groups()
    # CUTLASS's procedural names: [C type_]{accumulator}{shape}{op}[_A type]; a type left
    # out equals the accumulator's
    op = re.search(
        r"(?:^|_)(?:([a-z0-9]+)_)?([sdhcz])(\d*)(gemm|fprop|dgrad|wgrad)(?:_optimized|_analytic)?"
        r"(?:_([a-z0-9]+))?_\d",
        rest,
    )
    if not op:
        return None
    output, accumulate, shape, kind, element = op.groups()
    inputs, outputs = _types(element or ""), _types(output or "")
    on = "CUDA cores (SIMT)"
    if unit == "tensorop":
        on = "tensor cores" + (f" (mma {MMA_SHAPES.get(shape, shape)})" if shape else "")
    operation = "GEMM" if kind == "gemm" else f"{CONV_OPS[kind]} as an implicit GEMM"
    precision = (f"{inputs[0]} in, " if inputs else "") + f"{BLAS_OPS[accumulate]} accumulate"
    if outputs:
        precision += f", {outputs[0]} out"
    if unit == "simt" and not inputs and not outputs:
        precision = BLAS_OPS[accumulate]
    tile = re.search(r"_(\d+)x(\d+)_(\d+)x(\d+)_", rest + "_")
    tile_words = ""
    if tile:
        stages = "stage" if tile.group(4) == "1" else "stages"
        tile_words = (
            f"{tile.group(1)}×{tile.group(2)}, K {tile.group(3)} × {tile.group(4)} {stages}"
        )
    else:
        plain = re.search(r"_(\d+)x(\d+)_", rest + "_")
        tile_words = f"{plain.group(1)}×{plain.group(2)}" if plain else ""
    layout = re.search(r"_([nt]{2}|nhwc|nchw)(?:_|$)", rest)
    layout_words = ""
    if layout:
        letters = layout.group(1)
        layout_words = _blas_layout(letters) if len(letters) == 2 else letters.upper()
    return KernelName(
        library="CUTLASS" + (" in cuDNN" if "cudnn" in name else ""),
        architecture=f"{SM_ARCHITECTURES.get(sm, 'sm_' + sm)} (sm_{sm})" if sm else "",
        operation=f"{operation} on {on}",
        precision=precision,
        tile=tile_words,
        layout=layout_words,
    )


def _cutlass_template(name: str) -> KernelName | None:
    """void cutlass::Kernel<cutlass::gemm::kernel::Gemm<...GemmShape<(int)128, (int)96,
    (int)64>, ... signed char ...>>: the kernel template, its first (threadblock) tile."""
    match = re.search(r"cutlass\w*::Kernel<cutlass\w*::(gemm|conv|reduction)::kernel::(\w+)", name)
    if not match:
        return None
    shape = re.search(r"GemmShape<\(int\)(\d+), \(int\)(\d+), \(int\)(\d+)>", name)
    sm = re.search(r"arch::Sm(\d+)", name)
    tensor = "MmaTensorOp" in name or "OpClassTensorOp" in name
    operation = {"Gemm": "GEMM", "B2bGemm": "two GEMMs back to back (B2bGemm)",
                 "ReduceSplitK": "split-K reduction"}.get(match.group(2), match.group(2))  # fmt: skip
    return KernelName(
        library="CUTLASS" + (" in cuDNN" if "cudnn" in name else ""),
        architecture=f"{SM_ARCHITECTURES.get(sm.group(1), '')} (sm_{sm.group(1)})" if sm else "",
        operation=operation + (" on tensor cores" if tensor else ""),
        precision=_c_type(name.split("<", 1)[1]),
        tile="×".join(shape.groups()) if shape else "",
    )


def _nvjet(name: str) -> KernelName | None:
    """nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_NNT: cuBLAS's Hopper GEMMs."""
    match = re.search(r"nvjet_sm(\d+)_\w*?_(\d+)x(\d+)_(\d+)x(\d+)_", name)
    if not match:
        return None
    sm, m, n, k, stages = match.groups()
    return KernelName(
        library="cuBLAS (nvjet)",
        architecture=f"{SM_ARCHITECTURES.get(sm, '')} (sm_{sm})",
        operation="GEMM",
        tile=f"{m}×{n}, K {k} × {stages} stages",
    )


def _template(name: str) -> str:
    """The kernel's template arguments and after (an anonymous namespace is no template)."""
    name = name.replace("<unnamed>", "").replace("(anonymous namespace)", "")
    return name.split("<", 1)[1] if "<" in name else ""


def _library_kernels(name: str) -> KernelName | None:
    """cuBLAS, cuDNN and PyTorch's own kernels, named by function, not by fields."""
    args = _template(name)
    if "splitKreduce_kernel" in name:
        return KernelName("cuBLAS (cuBLASLt)", operation="split-K reduction: sums the "
                          "partial results of a GEMM split along K", precision=_c_type(args))  # fmt: skip
    found = re.search(r"\bgemmSN_([NT]{2})_kernel|\bgemv(?:2[NT]|x)_kernel", name)
    if found:
        layout = _blas_layout(found.group(1)) if found.group(1) else ""
        return KernelName("cuBLAS", operation="GEMM for a small dimension (gemmSN/gemv)",
                          precision=_c_type(args), layout=layout)  # fmt: skip
    if "implicit_convolve_sgemm" in name or "convolve_sgemm" in name:
        return KernelName("cuDNN", operation="convolution as an implicit SGEMM",
                          precision="FP32")  # fmt: skip
    if "cudnn::" in name or name.startswith(("cudnn", "void cudnn")):
        return _cudnn(name, args)
    if "softmax_warp_" in name:
        return _softmax(name, args)
    return _aten(name, args)


def _cudnn(name: str, args: str) -> KernelName:
    kinds = (("bn_fw", "batch norm forward"), ("bn_bw", "batch norm backward"),
             ("fft2d_c2r", "inverse FFT (complex to real) of an FFT convolution"),
             ("fft2d_r2c", "FFT (real to complex) of an FFT convolution"),
             ("dgrad", "convolution data gradient"), ("wgrad", "convolution weight gradient"),
             ("conv", "convolution"))  # fmt: skip
    operation = next((words for key, words in kinds if key in name), "")
    layout = next((t for t in ("NCHW", "NHWC") if t in name), "")
    return KernelName("cuDNN", operation=operation, precision=_c_type(args), layout=layout)


def _softmax(name: str, args: str) -> KernelName:
    """softmax_warp_forward<input_t, output_t, acc_t, log2_elements, is_log_softmax,
    is_masked>: one warp per row of at most 2^log2_elements."""
    direction = "backward" if "softmax_warp_backward" in name else "forward"
    parts = [p.strip() for p in args.split(">")[0].split(",")]
    log2 = next((p for p in parts if re.fullmatch(r"\(int\)\d+|\d+", p)), "")
    flags = [p for p in parts if re.fullmatch(r"\(bool\)[01]|[01]|true|false", p)]
    log_softmax = bool(flags) and flags[0] in ("(bool)1", "1", "true")
    rows = re.sub(r"\D", "", log2)
    operation = f"{'log-' if log_softmax else ''}softmax {direction}, one warp per row"
    if rows:
        operation += f" of at most 2^{rows} = {2 ** int(rows)} elements"
    return KernelName("PyTorch (ATen)", operation=operation, precision=_c_type(args))


def _aten(name: str, args: str) -> KernelName | None:
    if not re.search(r"\b(?:at|aten)::", name):
        return None
    what = next((words for pattern, words in ATEN_FUNCTORS if re.search(pattern, name)), "")
    vector = re.search(r"vectorized_elementwise_kernel<\(int\)(\d+)", name)
    if "multi_tensor_apply_kernel" in name:
        operation = "foreach update of a list of tensors (the optimizer's step)"
    elif "reduce_kernel" in name:
        operation = "reduction" + (f" ({what})" if what else "")
    elif "elementwise" in name:
        operation = "elementwise" + (f", {vector.group(1)} elements per load" if vector else "")
        operation += f": {what}" if what else ""
    elif "nll_loss" in name:
        operation = "negative log-likelihood loss " + (
            "backward" if "backward" in name else "forward")  # fmt: skip
    elif "max_pool" in name:
        operation = "max pooling " + ("backward" if "backward" in name else "forward")
    elif re.search(r"avg_pool|average_pool", name):
        operation = "average pooling" + (" backward" if "backward" in name else "")
    elif what:
        operation = what
    else:
        return KernelName("PyTorch (ATen)", precision=_c_type(args))
    return KernelName("PyTorch (ATen)", operation=operation, precision=_c_type(args))


def _op_name(name: str) -> KernelName | None:
    """An operator's name where a table lists ops, not kernels (aten::clamp_min_)."""
    if re.fullmatch(r"aten::clamp_min_?", name):
        return KernelName("PyTorch (ATen)", operation="clamp_min = ReLU (relu runs "
                          "clamp_min(x, 0))")  # fmt: skip
    return None


def _flash(name: str) -> KernelName | None:
    match = re.search(r"flash_(fwd|bwd)", name)
    if not match:
        return None
    direction = "forward" if match.group(1) == "fwd" else "backward"
    return KernelName("FlashAttention", operation=f"attention {direction}",
                      precision=_c_type(_template(name)))  # fmt: skip


DECODERS: tuple[Callable[[str], KernelName | None], ...] = (
    _op_name, _xmma, _cutlass_flat, _cutlass_template, _nvjet, _legacy_cublas, _flash,
    _library_kernels,
)  # fmt: skip


def decode(name: str | None) -> KernelName | None:
    """The fields the name states, or None where no rule reads it (or nothing is stated)."""
    if not name:
        return None
    for decoder in DECODERS:
        found = decoder(name)
        if found is not None and found.words():
            return found
    return None


def name_says(name: str | None) -> str:
    """The decoded fields as a table cell: "–" where the name states none."""
    found = decode(name)
    return found.words() if found else "–"
