#!/bin/bash
# How the two JSON reports were written (the project's 2-core VM, no GPU): nsys stats reads
# an SQLite export, so the real export of the NCAR miniWeather capture beside this folder
# (../NCAR__GPU_workshop__miniweather_baseline.sqlite, see ../PROVENANCE.md) was given to
# Nsight Systems 2023.4.4.54 (Debian trixie non-free `nsight-systems-target`
# 2023.4.4.54~12.4.1-2, unpacked with `dpkg -x`, not installed). The two memory reports
# were SKIPPED by nsys (that export has no ENUM_CUDA_MEMCPY_OPER table) and written as
# empty files, which are not kept; the capture has no NVTX range.
set -euo pipefail
NSYS=${NSYS:-nsys}
cp ../NCAR__GPU_workshop__miniweather_baseline.sqlite mw.sqlite
"$NSYS" stats --report cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum \
  --format json --output miniweather mw.sqlite
rm mw.sqlite
