"""The recipe for a GPU machine without network (docs/usage.md, "Measuring on a GPU machine
without network"), run here up to the bundle it builds, and that bundle installed offline.

`scripts/gpu-session.sh bundle` (what `nox -s gpu-bundle` runs) downloads the wheels of the
project's runtime and `measure` dependencies, never torch or torchvision, for the target's
Python and platform, and packs them with the source and an installer into an xz tarball. Here
the target is this machine itself (its Python, its platform tag), so that the bundle can also be
installed and run.

Where the wheels come from, and why the test needs no network: the real dependency list cannot
be downloaded offline here (the local index configured for pip lacks the pinned polars 2.1.0,
submitit and nvidia-ml-py; PyPI is the network). So the test first makes its own wheelhouse:
every distribution of that dependency closure (and pip, the bundle's installer) that the
test's own virtualenv has installed (`nox -s tests` installs the measure extra), packed
again as a wheel from the files its RECORD lists. The script then runs as documented, pointed
at that folder with `--find-links DIR --no-index`, so pip resolves the real requirement list
(pyproject.toml's, read by the script) from the exact versions the tests run with. Nothing is
fetched: pip's configuration is replaced by an empty one, and where the kernel allows it
(`unshare -rn`, as this project's machines do) the build and the install run with no network
device at all. torch plays the machine's own torch as on the target: the installer's virtualenv
sees the machine's packages (`--system-site-packages`), and a stub `torch` on PYTHONPATH stands
in for the machine's (installing the real one, 5 GB, is what the bundle avoids); `measure
--help` and the imports below need no torch.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.tags import sys_tags

from tests.helpers import REPO

SCRIPT = REPO / "scripts" / "gpu-session.sh"
PYPROJECT = REPO / "pyproject.toml"
VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"
# this machine's newest tag (manylinux_2_36_x86_64 on Debian 12): the script adds the older ones
PLATFORM = next(tag.platform for tag in sys_tags() if tag.platform.startswith("manylinux_"))
EXCLUDED = {"torch", "torchvision"}
SECONDS = 900


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    done = subprocess.run(["unshare", "-rn", "true"], capture_output=True)
    return done.returncode == 0


OFFLINE = ["unshare", "-rn"] if _unshare_works() else []


def _environment(**extra: str) -> dict[str, str]:
    """This process's environment without its virtualenv or pip settings (an empty config)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PIP_", "NOX"))
        and key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
    }
    env["PIP_CONFIG_FILE"] = os.devnull
    return {**env, **extra}


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        [*OFFLINE, *command],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=SECONDS,
    )
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout[-6000:]}"
    return done.stdout


# --- the wheelhouse: what this virtualenv has installed, as wheels again --------------------


def runtime_requirements() -> list[str]:
    """pyproject's dependencies and measure extra, less torch and torchvision."""
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["measure"]
    return [r for r in wanted if canonical(Requirement(r).name) not in EXCLUDED]


def closure(requirements: list[str]) -> dict[str, metadata.Distribution]:
    """Every installed distribution those requirements need here, by canonical name."""
    found: dict[str, metadata.Distribution] = {}
    todo = [Requirement(r) for r in requirements]
    while todo:
        requirement = todo.pop()
        name = canonical(requirement.name)
        if name in found:
            continue
        found[name] = metadata.distribution(requirement.name)
        for line in found[name].requires or []:
            needed = Requirement(line)
            extras = requirement.extras or {""}
            if needed.marker is None or any(needed.marker.evaluate({"extra": e}) for e in extras):
                todo.append(needed)
    return found


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def repack(dist: metadata.Distribution, folder: Path) -> Path:
    """One installed distribution as a wheel: the files of its RECORD inside site-packages
    (scripts and bytecode left out, pip writes its own), under a new RECORD."""
    wheel_info = dist.read_text("WHEEL") or ""
    tags = [
        line.split(":", 1)[1].strip() for line in wheel_info.splitlines() if line.startswith("Tag:")
    ]
    parts = [".".join(dict.fromkeys(t.split("-")[i] for t in tags)) for i in range(3)]
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"])
    version = dist.version.replace("-", "_")
    path = folder / f"{name}-{version}-{'-'.join(parts)}.whl"
    files = [f for f in dist.files or [] if not str(f).startswith("..") and f.suffix != ".pyc"]
    info = next(str(f).split("/")[0] for f in files if str(f).split("/")[0].endswith(".dist-info"))
    written_by_pip = {
        f"{info}/{n}" for n in ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json")
    }
    record = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as wheel:
        for file in files:
            arcname = str(file)
            source = Path(str(dist.locate_file(file)))
            if not source.is_file() or arcname in written_by_pip:
                continue
            data = source.read_bytes()
            entry = zipfile.ZipInfo(arcname, (2020, 1, 1, 0, 0, 0))
            entry.external_attr = (stat.S_IFREG | stat.S_IMODE(source.stat().st_mode)) << 16
            wheel.writestr(entry, data, zipfile.ZIP_DEFLATED)
            record.append(f"{arcname},sha256={_digest(data)},{len(data)}")
        record.append(f"{info}/RECORD,,")
        wheel.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return path


# --- the recipe -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Built:
    dists: dict[str, metadata.Distribution]  # the closure the wheelhouse holds
    printed: str  # what the bundle's build printed
    tarball: Path
    members: dict[str, tarfile.TarInfo]  # the tarball's entries
    sha256: dict[str, str]  # of each file in it
    root: Path  # the tarball unpacked (roofline-atlas/), after bundle/install.sh
    installed: str  # what install.sh printed


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    """The wheelhouse, the bundle built from it, and that bundle unpacked and installed
    (about 0.7 GB in all, removed when this module's tests end)."""
    tmp = tmp_path_factory.mktemp("gpu-bundle")
    wheelhouse = tmp / "wheelhouse"
    wheelhouse.mkdir()
    dists = closure(runtime_requirements())
    for dist in [*dists.values(), metadata.distribution("pip")]:
        repack(dist, wheelhouse)

    out = tmp / "out"
    build = [
        "bash", str(SCRIPT), "bundle", "--python-version", VERSION, "--platform", PLATFORM,
        "--no-index", "--find-links", str(wheelhouse), "--out", str(out),
    ]  # fmt: skip
    printed = _run(build, REPO, _environment(PYTHON=sys.executable, XZ_OPT="-0 -T0"))
    (tarball,) = out.glob("roofline-atlas-gpu-*.tar.xz")

    members, sha256 = {}, {}
    with tarfile.open(tarball) as archive:  # one pass: xz reads forwards only
        for member in archive:
            members[member.name] = member
            if member.isfile():
                sha256[member.name] = hashlib.sha256(archive.extractfile(member).read()).hexdigest()
    unpacked = tmp / "target"
    unpacked.mkdir()
    with tarfile.open(tarball) as archive:
        archive.extractall(unpacked, filter="tar")
    stub = tmp / "machine-site"  # the machine's own torch, as the installer finds it
    (stub / "torch").mkdir(parents=True)
    (stub / "torch" / "__init__.py").write_text(
        '__version__ = "2.11.0+stub"\n\n\nclass version:\n    cuda = "13.0"\n\n\n'
        "class cuda:\n    @staticmethod\n    def is_available():\n        return False\n"
    )
    (stub / "torchvision").mkdir()
    (stub / "torchvision" / "__init__.py").write_text('__version__ = "0.26.0+stub"\n')
    root = unpacked / "roofline-atlas"
    machine_python = getattr(sys, "_base_executable", sys.executable)
    installed = _run(
        [str(root / "bundle" / "install.sh")],
        unpacked,
        _environment(PYTHON=machine_python, PYTHONPATH=str(stub)),
    )
    yield Built(dists, printed, tarball, members, sha256, root, installed)
    shutil.rmtree(tmp, ignore_errors=True)


def test_the_tarball_holds_the_source_the_wheels_the_installer_and_the_manifest(
    built: Built,
) -> None:
    tarball, members = built.tarball, built.members
    bundle = "roofline-atlas/bundle"
    installer = members[f"{bundle}/install.sh"]
    assert installer.mode & 0o111, "install.sh is not executable"
    for source in (
        "generator/__main__.py", "generator/measure/runner.py", "pyproject.toml",
        "measurements/experiments.toml", "scripts/gpu-session.sh",
    ):  # fmt: skip
        assert f"roofline-atlas/{source}" in members, source
    assert not [n for n in members if n.startswith("roofline-atlas/tests/data/")]
    assert not [n for n in members if "/.git/" in n or n.endswith("/.git")]

    manifest = json.loads((built.root / "bundle" / "manifest.json").read_text())
    in_tar = {
        Path(name).name: digest
        for name, digest in built.sha256.items()
        if name.startswith(f"{bundle}/wheels/") and name.endswith(".whl")
    }
    assert {w["file"]: w["sha256"] for w in manifest["wheels"]} == in_tar
    # the commit it names is the source it holds (HEAD itself, unless a commit landed since)
    for name in ("pyproject.toml", "noxfile.py", "generator/__main__.py"):
        committed = subprocess.run(
            ["git", "show", f"{manifest['commit']}:{name}"], cwd=REPO, capture_output=True
        )
        assert committed.returncode == 0, committed.stderr
        digest = hashlib.sha256(committed.stdout).hexdigest()
        assert built.sha256[f"roofline-atlas/{name}"] == digest, name
    assert manifest["python_version"] == VERSION
    assert manifest["abi"] == f"cp{VERSION.replace('.', '')}"
    assert manifest["platforms"] == [PLATFORM]
    assert manifest["requirements"] == runtime_requirements()
    assert sorted(manifest["excluded"]) == sorted(EXCLUDED)

    printed = built.printed
    assert str(tarball) in printed
    assert f"{tarball.stat().st_size} bytes" in printed
    assert "--ncu-clock-control none --budget 500" in printed


def test_the_wheels_are_the_closure_of_measure_without_torch(built: Built) -> None:
    members = built.members
    wheels = {
        canonical(Path(n).name.split("-")[0])
        for n in members
        if n.startswith("roofline-atlas/bundle/wheels/")
    }
    assert wheels == set(built.dists) | {"pip"}
    assert {"polars", "pydantic", "orjson", "msgspec", "transformers", "submitit"} <= wheels
    cuda = {w for w in wheels if w.startswith("nvidia-") and w != "nvidia-ml-py"}
    assert not wheels & {"torch", "torchvision", "triton"} and not cuda


def test_the_installed_bundle_runs_measure_offline_with_the_machines_torch(
    built: Built,
) -> None:
    root = built.root
    venv = root / ".venv"
    assert "include-system-site-packages = true" in (venv / "pyvenv.cfg").read_text()
    target = json.loads((root / "bundle" / "target.json").read_text())
    assert target["python"] == platform.python_version()
    assert (target["torch"], target["torchvision"]) == ("2.11.0+stub", "0.26.0+stub")
    assert target["packages"]["polars"] == {"version": "2.1.0", "from": "bundle"}
    assert "the machine's torch 2.11.0+stub" in built.installed
    manifest = json.loads((root / "bundle" / "manifest.json").read_text())
    activate = (venv / "bin" / "activate").read_text()
    assert f"export ROOFLINE_ATLAS_COMMIT={manifest['commit']}" in activate

    python = str(venv / "bin" / "python")
    env = _environment()
    helped = _run([python, "-m", "generator", "measure", "--help"], root, env)
    assert helped.startswith("usage: python -m generator measure"), helped[:500]
    # from elsewhere: the source is on the virtualenv's path, the wheels in it
    modules = ["generator", "polars", "msgspec", "orjson", "rich", "submitit", "pynvml", "psutil"]
    where = _run(
        [python, "-c", f"import json, {', '.join(modules)}; print(json.dumps({{m: "
         f"__import__(m).__file__ for m in {modules!r}}}))"],
        root.parent,
        env,
    )  # fmt: skip
    files = json.loads(where.splitlines()[-1])
    assert Path(files.pop("generator")).is_relative_to(root)
    assert Path(files["polars"]).is_relative_to(venv), files


def _fake_bundle(tmp: Path, built: Built, **change: object) -> Path:
    root = built.root
    bundle = tmp / "roofline-atlas" / "bundle"
    (bundle / "wheels").mkdir(parents=True)
    shutil.copy2(root / "bundle" / "install.sh", bundle)
    wheel = bundle / "wheels" / "pip-0-py3-none-any.whl"
    wheel.write_bytes(b"not pip")
    manifest = {
        "python_version": VERSION, "commit": "0" * 40, "platforms": [PLATFORM],
        "wheels": [{"file": wheel.name, "sha256": hashlib.sha256(b"not pip").hexdigest()}],
        **change,
    }  # fmt: skip
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    return bundle


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"python_version": "3.9"}, "the wheels are for CPython 3.9"),
        ({"wheels": [{"file": "pip-0-py3-none-any.whl", "sha256": "0" * 64}]}, "differs from"),
    ],
)
def test_the_installer_refuses_another_python_or_a_broken_copy(
    tmp_path: Path, built: Built, change: dict[str, object], says: str
) -> None:
    bundle = _fake_bundle(tmp_path, built, **change)
    done = subprocess.run(
        [str(bundle / "install.sh")],
        env=_environment(PYTHON=sys.executable),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert says in done.stderr, done.stderr
    assert not (bundle.parent / ".venv").exists()


def test_the_script_says_how_it_is_used() -> None:
    for args in (["--help"], ["bundle", "--help"]):
        done = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True)
        assert done.returncode == 0 and done.stdout.startswith("usage:"), done
    wrong = subprocess.run(
        ["bash", str(SCRIPT), "bundle", "--nope"], capture_output=True, text=True
    )
    assert wrong.returncode == 2 and "unknown argument --nope" in wrong.stderr
    assert subprocess.run(["bash", "-n", str(SCRIPT)]).returncode == 0
    noxfile = (REPO / "noxfile.py").read_text(encoding="utf-8")
    assert '"bash", "scripts/gpu-session.sh", "bundle", *session.posargs' in noxfile
