#!/bin/bash
# How capture.sqlite was recorded (2026-11-26, the project's 2-core AMD EPYC VM, no GPU).
# nsys: Debian trixie non-free `nsight-systems` and `nsight-systems-target`
# 2023.4.4.54~12.4.1-2, unpacked with `dpkg -x` on bookworm (not installed: the target
# package depends on libcuda1); QdstrmImporter needed libssh.so from Debian's libssh-4.
# Python 3.11, torch 2.14.1 (CPU), nvtx 0.2.11 (PyPI). NVTX tracing only (the OS-runtime
# tables of this version made the export 6 MB): there is no GPU, so no CUDA.
set -euo pipefail
NSYS=${NSYS:-nsys}
"$NSYS" profile --trace=nvtx --sample=none --cpuctxsw=none \
  --output=capture --force-overwrite=true --export=sqlite python ../train_nvtx.py
