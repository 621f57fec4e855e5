#!/usr/bin/env bash
# Measuring on a GPU machine without network (docs/usage.md, "Measuring on a GPU machine
# without network"). Two halves:
#
#   scripts/gpu-session.sh bundle [OPTIONS]   here, with git and a package index: build an xz
#                                             tarball of the source, the wheels `measure` needs
#                                             for the target's Python (never torch), and an
#                                             installer (`nox -s gpu-bundle -- OPTIONS` runs it)
#   scripts/gpu-session.sh OUTDIR ARGS...     there, in the unpacked tarball: one `measure
#                                             --device cuda` command per argument (how the
#                                             committed H100 runs were measured)
#
# `scripts/gpu-session.sh --help` and `scripts/gpu-session.sh bundle --help` say more.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: scripts/gpu-session.sh OUTDIR GROUP-ARGS...
       scripts/gpu-session.sh bundle [--help] [OPTIONS]

On the GPU machine, in the unpacked bundle (after bundle/install.sh), or in any copy of the
tree: each GROUP-ARGS is one `python -m generator measure --device cuda GROUP-ARGS` command,
stopped after MEASURE_BUDGET_S seconds (default 420) or after the N seconds of a leading "N:".
  e.g. scripts/gpu-session.sh /tmp/out "--ncu-clock-control none --budget 500 --group F" "120:--group H"
It writes OUTDIR/check-gpu.json, ncu-query-metrics.txt, measure.log, and OUTDIR/runs.tar.gz:
the run folders it made and measurements/ceilings/, to unpack in the checkout at home.
The interpreter is .venv/bin/python when bundle/install.sh made one (and none is active),
else python3; the commit run.json records comes from bundle/manifest.json.

`bundle` builds that tarball here: `scripts/gpu-session.sh bundle --help`.
EOF
}

bundle_usage() {
    cat <<'EOF'
usage: scripts/gpu-session.sh bundle [--python-version X.Y] [--platform TAG]... [--abi ABI]
                                     [--out DIR] [--find-links DIR]... [--no-index]

Builds OUT/roofline-atlas-gpu-<commit>-<abi>-<platform>.tar.xz for a GPU machine without
network, which runs measure with its own torch:

  roofline-atlas/                  the source: `git archive HEAD` without tests/data
  roofline-atlas/bundle/wheels/    the wheels of pyproject's dependencies and its `measure`
                                   extra, less torch and torchvision (never downloaded:
                                   pip is constrained to no version of either), with
                                   everything they need, for the TARGET's Python and
                                   platform, plus pip's own wheel (the installer)
  roofline-atlas/bundle/requirements.txt, manifest.json (target, commit, each wheel's sha256)
  roofline-atlas/bundle/install.sh the installer (no network, no compiler, no setuptools)

options:
  --python-version X.Y   the target's Python (default 3.12)
  --platform TAG         the target's platform tag, repeatable (default manylinux_2_28_x86_64:
                         glibc 2.28 or newer; the older manylinux tags are added)
  --abi ABI              default cpXY from --python-version
  --out DIR              where the tarball goes (default dist/)
  --find-links DIR       wheels from DIR too (pip's --find-links), repeatable
  --no-index             no package index: only --find-links (pip's --no-index)

PYTHON names the interpreter whose pip downloads (default python3; `nox -s gpu-bundle` uses
its own virtualenv's); XZ_OPT is xz's (default -6 -T0). pip's own configuration (index,
find-links, PIP_* variables) applies as usual.

On the target:
  tar xJf roofline-atlas-gpu-*.tar.xz && roofline-atlas/bundle/install.sh
  cd roofline-atlas && . .venv/bin/activate
  python -m generator measure --device cuda --ncu-clock-control none --budget 500
EOF
}

# --- bundle: here ----------------------------------------------------------------------------

bundle() {
    local pyver=3.12 abi="" out=dist
    local -a platforms=() pip_args=()
    while [ $# -gt 0 ]; do
        case $1 in
            -h | --help) bundle_usage; return 0 ;;
            --python-version) pyver=${2:?--python-version needs X.Y}; shift ;;
            --platform) platforms+=("${2:?--platform needs a tag}"); shift ;;
            --abi) abi=${2:?--abi needs a tag}; shift ;;
            --out) out=${2:?--out needs a folder}; shift ;;
            --find-links)
                local links=${2:?--find-links needs a folder}
                [ ! -d "$links" ] || links=$(cd "$links" && pwd)  # the build runs from the root
                pip_args+=(--find-links "$links")
                shift
                ;;
            --no-index) pip_args+=(--no-index) ;;
            *) echo "gpu-session.sh bundle: unknown argument $1 (see --help)" >&2; return 2 ;;
        esac
        shift
    done
    case $pyver in
        3.[0-9] | 3.[0-9][0-9]) ;;
        *) echo "gpu-session.sh bundle: --python-version takes X.Y (e.g. 3.12), not $pyver" >&2; return 2 ;;
    esac
    [ ${#platforms[@]} -gt 0 ] || platforms=(manylinux_2_28_x86_64)
    [ -n "$abi" ] || abi=cp${pyver/./}
    local python=${PYTHON:-python3}
    mkdir -p "$out"
    out=$(cd "$out" && pwd)

    cd "$(dirname "${BASH_SOURCE[0]}")/.."
    local commit
    commit=$(git rev-parse HEAD)
    local dirty=false
    if [ -n "$(git status --porcelain --untracked-files=no -- . ':(exclude)measurements')" ]; then
        dirty=true
        echo "gpu-session.sh bundle: the working tree has uncommitted changes; the bundle holds" \
            "the commit ${commit:0:12} without them (commit them first to take them along)" >&2
    fi

    local stage
    stage=$(mktemp -d)
    # shellcheck disable=SC2064  # expand now: the folder is this call's
    trap "rm -rf '$stage'" EXIT
    local root=$stage/roofline-atlas
    local dir=$root/bundle
    mkdir -p "$root"

    # the source, as committed; tests/data (26 MB of reports and traces) stays here
    git archive --format=tar HEAD -- . ':(exclude)tests/data' | tar -x -C "$root"
    mkdir -p "$dir/wheels"

    # what `python -m generator measure` imports: the dependencies and the measure extra, less
    # torch and torchvision (the target's own are used)
    "$python" - pyproject.toml "$dir/requirements.txt" <<'PY'
import re
import sys
import tomllib
from pathlib import Path

project = tomllib.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))["project"]
wanted = project["dependencies"] + project["optional-dependencies"]["measure"]


def name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[(@]", requirement, maxsplit=1)[0].lower().replace("_", "-")


kept = [r for r in wanted if name(r) not in ("torch", "torchvision")]
lines = ["# pyproject.toml's dependencies and measure extra, without torch and torchvision", *kept]
Path(sys.argv[2]).write_text("\n".join(lines) + "\n", encoding="utf-8")
PY
    # pip can never pick torch: a dependency that wants it fails the resolution (or falls back
    # to an older release within its pin that does not) instead of downloading gigabytes
    printf '%s\n' 'torch<0' 'torchvision<0' 'triton<0' >"$stage/no-torch.txt"

    # pip takes each platform tag literally: a manylinux_2_28 machine also runs the wheels of
    # every older glibc (manylinux_2_17 = manylinux2014, _2_12 = 2010, _2_5 = 1), so name them
    local -a tags=()
    local platform glibc arch
    for platform in "${platforms[@]}"; do
        tags+=(--platform "$platform")
        if [[ $platform =~ ^manylinux_2_([0-9]+)_(.+)$ ]]; then
            glibc=${BASH_REMATCH[1]} arch=${BASH_REMATCH[2]}
            while [ "$glibc" -gt 5 ]; do
                glibc=$((glibc - 1))
                tags+=(--platform "manylinux_2_${glibc}_$arch")
            done
            tags+=(--platform "manylinux2014_$arch" --platform "manylinux2010_$arch" --platform "manylinux1_$arch")
        fi
    done
    echo "gpu-session.sh bundle: wheels for CPython $pyver ($abi, ${platforms[*]})"
    if ! "$python" -m pip download --disable-pip-version-check --only-binary=:all: \
        --python-version "$pyver" --implementation cp --abi "$abi" "${tags[@]}" \
        --constraint "$stage/no-torch.txt" ${pip_args[@]+"${pip_args[@]}"} \
        --dest "$dir/wheels" --requirement "$dir/requirements.txt" pip; then
        echo "gpu-session.sh bundle: pip download failed (if it names torch, torchvision or" \
            "triton, a dependency now requires torch: leave it out of the measure extra or" \
            "the bundle)" >&2
        return 1
    fi

    # the manifest: target, commit, every wheel's sha256; and no CUDA wheel slipped in
    "$python" - "$dir" "$commit" "$dirty" "$pyver" "$abi" "${platforms[@]}" <<'PY'
import datetime
import hashlib
import json
import re
import sys
from pathlib import Path

folder, commit, dirty, version, abi, *platforms = sys.argv[1:]
bundle = Path(folder)
wheels = []
for path in sorted((bundle / "wheels").glob("*.whl")):
    project = re.sub(r"[-_.]+", "-", path.name.split("-")[0]).lower()
    if project in ("torch", "torchvision", "torchaudio", "triton") or (
        project.startswith("nvidia-") and project != "nvidia-ml-py"
    ):
        sys.exit(f"gpu-session.sh bundle: {path.name} is in the bundle; torch stays out of it")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    wheels.append({"file": path.name, "sha256": digest, "bytes": path.stat().st_size})
requirements = (bundle / "requirements.txt").read_text(encoding="utf-8").splitlines()
manifest = {
    "what": "roofline-atlas: the source and the wheels `python -m generator measure` needs, "
    "for a GPU machine without network that brings its own torch",
    "built": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    "commit": commit,
    "uncommitted_changes_left_out": dirty == "true",
    "source": "git archive of the commit, without tests/data",
    "python_version": version,
    "implementation": "cp",
    "abi": abi,
    "platforms": platforms,
    "requirements": [line for line in requirements if line and not line.startswith("#")],
    "excluded": ["torch", "torchvision"],
    "wheels": wheels,
}
(bundle / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
print(f"gpu-session.sh bundle: {len(wheels)} wheels, {sum(w['bytes'] for w in wheels) / 1e6:.1f} MB")
PY

    install_script >"$dir/install.sh"
    chmod +x "$dir/install.sh"

    local tarball=$out/roofline-atlas-gpu-${commit:0:7}-$abi-${platforms[0]}.tar.xz
    XZ_OPT=${XZ_OPT:--6 -T0} tar -C "$stage" -cJf "$tarball" roofline-atlas
    local bytes
    bytes=$(wc -c <"$tarball")
    echo "gpu-session.sh bundle: $tarball"
    echo "  $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }') ($bytes bytes), commit ${commit:0:12}"
    cat <<EOF
Copy it to the GPU machine, then there:
  tar xJf $(basename "$tarball") && roofline-atlas/bundle/install.sh
  cd roofline-atlas && . .venv/bin/activate
  python -m generator check-gpu
  python -m generator measure --device cuda --ncu-clock-control none --budget 500
and bring back the new folders of measurements/runs/ and measurements/ceilings/ (or use
scripts/gpu-session.sh OUTDIR "ARGS", which packs them into OUTDIR/runs.tar.gz).
EOF
}

# The installer that goes into the bundle (bundle/install.sh); quoted: nothing expands here.
install_script() {
    cat <<'INSTALL'
#!/usr/bin/env bash
# Installs this bundle on the machine it was built for, with no network: a virtualenv
# (../.venv) that sees the machine's own packages (its torch and torchvision), the bundle's
# wheels for whatever the machine lacks, and the project's source on its path (nothing is
# built: no compiler, no setuptools). pip runs from the bundle's own wheel, so neither
# ensurepip (Debian's python3-venv) nor a system pip is needed.
#   PYTHON=/path/to/python  the interpreter with the machine's torch (default python3)
#   VENV=DIR                the virtualenv (default .venv beside bundle/; made afresh)
# It records what it found (Python, platform, torch, where each package came from) in
# bundle/target.json; every run.json records torch again.
set -euo pipefail
bundle=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$bundle")
python=${PYTHON:-python3}
venv=${VENV:-$root/.venv}

# 1. the interpreter is the one the wheels are for, and every wheel is intact
"$python" - "$bundle" <<'PY'
import hashlib
import json
import sys
from pathlib import Path

bundle = Path(sys.argv[1])
manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
have, want = "%d.%d" % sys.version_info[:2], manifest["python_version"]
if have != want or sys.implementation.name != "cpython":
    sys.exit(
        f"install.sh: the wheels are for CPython {want}, and {sys.executable} is "
        f"{sys.implementation.name} {have}: run it with PYTHON=python{want}, or build a bundle "
        f"for this one (nox -s gpu-bundle -- --python-version {have})"
    )
for wheel in manifest["wheels"]:
    path = bundle / "wheels" / wheel["file"]
    if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != wheel["sha256"]:
        sys.exit(f"install.sh: {path} is missing or differs from manifest.json (a broken copy?)")
print(f"install.sh: {len(manifest['wheels'])} wheels match manifest.json "
      f"(commit {manifest['commit'][:12]}, CPython {want}, {' '.join(manifest['platforms'])})")
PY

# 2. the virtualenv, over the machine's own site-packages
"$python" -m venv --clear --without-pip --system-site-packages "$venv"
pips=("$bundle"/wheels/pip-*.whl)
"$venv/bin/python" "${pips[0]}/pip" install --no-index --find-links "$bundle/wheels" \
    --disable-pip-version-check --no-warn-script-location -r "$bundle/requirements.txt"

# 3. the project: its source on the virtualenv's path; run.json's commit from the manifest
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
printf '%s\n' "$root" >"$site/roofline-atlas.pth"
commit=$("$venv/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["commit"])' \
    "$bundle/manifest.json")
printf 'export ROOFLINE_ATLAS_COMMIT=%s  # bundle/install.sh: the commit of this source\n' \
    "$commit" >>"$venv/bin/activate"

# 4. what the machine gave, recorded
"$venv/bin/python" - "$bundle" "$venv" <<'PY'
import json
import platform
import re
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

bundle, venv = Path(sys.argv[1]), Path(sys.argv[2]).resolve()
manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
record = {
    "python": platform.python_version(),
    "executable": sys.executable,
    "platform": platform.platform(),
    "platform_tag": sysconfig.get_platform(),
    "commit": manifest["commit"],
}
for module in ("torch", "torchvision"):
    try:
        imported = __import__(module)
    except Exception as error:  # missing, or a broken CUDA install: say which
        record[module] = None
        record[f"{module}_error"] = f"{type(error).__name__}: {error}"
        continue
    record[module] = str(getattr(imported, "__version__", "unknown"))
    record[f"{module}_from"] = str(Path(imported.__file__).parent)
    if module == "torch":
        record["torch_cuda"] = getattr(getattr(imported, "version", None), "cuda", None)
        try:
            record["cuda_available"] = bool(imported.cuda.is_available())
        except Exception:  # a driver that does not answer
            record["cuda_available"] = None
packages = {}
for wheel in manifest["wheels"]:
    name = re.sub(r"[-_.]+", "-", wheel["file"].split("-")[0]).lower()
    if name == "pip":
        continue  # the installer, not a requirement
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        continue  # a dependency of another platform or Python
    where = Path(str(dist.locate_file(""))).resolve()
    packages[name] = {"version": dist.version, "from": "bundle" if where.is_relative_to(venv) else "machine"}
record["packages"] = packages
(bundle / "target.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")

machine = sorted(f"{n} {p['version']}" for n, p in packages.items() if p["from"] == "machine")
print(f"install.sh: {sum(p['from'] == 'bundle' for p in packages.values())} packages from the "
      f"bundle; the machine's own: {', '.join(machine) or 'none'}")
if record["torch"] is None:
    print(f"install.sh: WARNING: no torch here ({record['torch_error']}). measure needs the "
          "machine's own torch and torchvision (the bundle never carries them): run again "
          "with PYTHON=/path/to/the/python/that/has/torch", file=sys.stderr)
else:
    print(f"install.sh: the machine's torch {record['torch']} (CUDA {record.get('torch_cuda')}, "
          f"GPU available: {record.get('cuda_available')}) from {record['torch_from']}, "
          f"torchvision {record['torchvision']}; recorded in bundle/target.json")
PY

cat <<EOF
install.sh: done. Measure:
  cd $root && . .venv/bin/activate
  python -m generator check-gpu
  python -m generator measure --device cuda --ncu-clock-control none --budget 500
then bring back measurements/ceilings/ and the new folders of measurements/runs/:
  tar czf runs.tar.gz measurements/ceilings \$(find measurements/runs -mindepth 1 -maxdepth 1 -type d -newer bundle/target.json)
EOF
INSTALL
}

# --- a session: there --------------------------------------------------------------------------

case ${1:-} in
    "" | -h | --help) usage; exit 0 ;;
    bundle) shift; bundle "$@"; exit ;;
esac

out=$1; shift
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
if [ -f .devpkg/site.tar.xz ]; then
  mkdir -p /tmp/devpkg && tar xJf .devpkg/site.tar.xz -C /tmp/devpkg
  export PYTHONPATH="/tmp/devpkg/site:$PYTHONPATH"
fi
python=python3
if [ -z "${VIRTUAL_ENV:-}" ] && [ -x .venv/bin/python ]; then python=.venv/bin/python; fi
if [ -z "${ROOFLINE_ATLAS_COMMIT:-}" ]; then
  if [ -f .devpkg/commit ]; then
    ROOFLINE_ATLAS_COMMIT=$(cat .devpkg/commit)
    export ROOFLINE_ATLAS_COMMIT
  elif [ -f bundle/manifest.json ]; then
    ROOFLINE_ATLAS_COMMIT=$("$python" -c 'import json; print(json.load(open("bundle/manifest.json"))["commit"])')
    export ROOFLINE_ATLAS_COMMIT
  fi
fi
if ! command -v ncu >/dev/null; then
  ncu_dir=$(find /opt/nvidia/nsight-compute -mindepth 1 -maxdepth 1 -type d 2>/dev/null | sort | tail -1 || true)
  [ -z "$ncu_dir" ] || PATH="$PATH:$ncu_dir"
fi
budget=${MEASURE_BUDGET_S:-420}
status=0
"$python" -m generator check-gpu >"$out/check-gpu.json" || status=$?
echo "check-gpu: exit $status"
[ -s "$out/ncu-query-metrics.txt" ] || ncu --query-metrics >"$out/ncu-query-metrics.txt" 2>&1 || true
for args in "$@"; do
  limit=$budget
  case $args in [0-9]*:*) limit=${args%%:*}; args=${args#*:} ;; esac
  status=0
  # shellcheck disable=SC2086  # each argument is one measure command's options
  timeout "$limit" "$python" -m generator measure --device cuda $args 2>&1 | tee -a "$out/measure.log" || status=$?
  echo "measure $args: exit $status" | tee -a "$out/measure.log"
done
find measurements/runs -mindepth 1 -maxdepth 1 -newer "$out/check-gpu.json" -type d -name '*-cuda-*' ! -name '.*' >"$out/new-runs.txt"
tar czf "$out/runs.tar.gz" measurements/ceilings -T "$out/new-runs.txt"
ls -la "$out"
