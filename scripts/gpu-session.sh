#!/usr/bin/env bash
# The GPU part of measurements/experiments.toml on a machine without nox or network (how the
# committed H100 runs were measured). Usage: scripts/gpu-session.sh OUTDIR GROUP-ARGS...
#   e.g. scripts/gpu-session.sh /tmp/out "--group B --group E --group F --ncu" "120:--group H"
# Each argument is one `measure --device cuda` command, stopped after MEASURE_BUDGET_S
# seconds (default 420) or after the seconds before a leading "N:".
# Python packages the machine lacks come from .devpkg/site.tar.xz when present (polars,
# pydantic; see DEVELOPERS notes); the machine's own torch is used and recorded in each run.
set -u
out=${1:?OUTDIR}; shift
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
if [ -f .devpkg/site.tar.xz ]; then
  mkdir -p /tmp/devpkg && tar xJf .devpkg/site.tar.xz -C /tmp/devpkg
  export PYTHONPATH="/tmp/devpkg/site:$PYTHONPATH"
fi
[ -f .devpkg/commit ] && export ROOFLINE_ATLAS_COMMIT="$(cat .devpkg/commit)"
command -v ncu >/dev/null || export PATH="$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -1)"
budget=${MEASURE_BUDGET_S:-420}
python3 -m generator check-gpu > "$out/check-gpu.json"; echo "check-gpu: exit $?"
[ -s "$out/ncu-query-metrics.txt" ] || ncu --query-metrics > "$out/ncu-query-metrics.txt" 2>&1
for args in "$@"; do
  limit=$budget
  case $args in [0-9]*:*) limit=${args%%:*}; args=${args#*:} ;; esac
  # shellcheck disable=SC2086  # each argument is one measure command's options
  timeout "$limit" python3 -m generator measure --device cuda $args 2>&1 | tee -a "$out/measure.log"
done
find measurements/runs -maxdepth 1 -newer "$out/check-gpu.json" -type d -name '*-cuda-*' ! -name '.*' > "$out/new-runs.txt"
tar czf "$out/runs.tar.gz" measurements/ceilings $(cat "$out/new-runs.txt")
ls -la "$out"
