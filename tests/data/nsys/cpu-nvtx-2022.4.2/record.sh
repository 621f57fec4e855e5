#!/bin/bash
# How capture.sqlite was recorded (2026-11-26, the project's 2-core AMD EPYC VM, no GPU).
# nsys: Debian bookworm non-free `nsight-systems` and `nsight-systems-target`
# 2022.4.2.1~11.8.0-5~deb12u1, unpacked with `dpkg -x` (not installed: the target package
# depends on libcuda1); QdstrmImporter needed libssh.so from Debian's libssh-4.
# Python 3.11, torch 2.14.1 (CPU), nvtx 0.2.11 (PyPI; 0.2.17's ranges are not recorded by
# this nsys). The capture traces NVTX and the OS runtime: there is no GPU, so no CUDA.
set -euo pipefail
NSYS=${NSYS:-nsys}
"$NSYS" profile --trace=nvtx,osrt --sample=none --cpuctxsw=none \
  --output=capture --force-overwrite=true --export=sqlite python ../train_nvtx.py
