"""A single-node Slurm cluster on this machine, for the `slurm` tests: Debian's slurm-wlm
(slurmctld + slurmd as root) and munge, with a config in a temporary folder. Started only
when `sinfo` finds no cluster; stopped (jobs, daemons, the munged it started) afterwards.

Usable by hand too: `python -m tests.slurm_cluster` starts one, prints its SLURM_CONF and
waits for Ctrl-C."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

DAEMONS = ("slurmctld", "slurmd", "munged", "sbatch", "squeue", "sinfo", "scancel")
MUNGE_SOCKET_DIR = Path("/run/munge")
MUNGE_KEY = Path("/etc/munge/munge.key")
START_TIMEOUT_S = 60.0

CONFIG = """\
ClusterName=ratest
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=10
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory_mb} State=UNKNOWN
PartitionName=ra Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


class SlurmUnavailable(RuntimeError):
    """Why no cluster could be had (missing packages, not root, a daemon that won't start)."""


@dataclass(frozen=True)
class Cluster:
    conf: Path | None  # None: the cluster sinfo already found
    partition: str | None


def cluster_running() -> bool:
    if shutil.which("sinfo") is None:
        return False
    try:
        done = subprocess.run(["sinfo", "--noheader"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and bool(done.stdout.strip())


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _memory_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(int(line.split()[1]) / 1024 * 0.8)
    return 1024


def _munge_works() -> bool:
    try:
        encoded = subprocess.run(["munge", "-n"], capture_output=True, timeout=10)
        decoded = subprocess.run(["unmunge"], input=encoded.stdout, capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return encoded.returncode == 0 and decoded.returncode == 0


def _start_munge() -> int | None:
    """munged, unless one already answers; its pid when this call started it."""
    if _munge_works():
        return None
    if not MUNGE_KEY.exists():
        subprocess.run(["mungekey", "--create", "--keyfile", str(MUNGE_KEY)], check=True)
        shutil.chown(MUNGE_KEY, "munge", "munge")
    MUNGE_SOCKET_DIR.mkdir(parents=True, exist_ok=True)
    shutil.chown(MUNGE_SOCKET_DIR, "munge", "munge")
    subprocess.run(["runuser", "-u", "munge", "--", "munged"], check=True, timeout=30)
    _wait(_munge_works, "munged to answer")
    pid_file = MUNGE_SOCKET_DIR / "munged.pid"
    return int(pid_file.read_text()) if pid_file.exists() else None


def _wait(ready: object, what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if ready():  # type: ignore[operator]
            return
        time.sleep(0.5)
    raise SlurmUnavailable(f"timed out after {START_TIMEOUT_S:.0f} s waiting for {what}")


def _node_idle() -> bool:
    done = subprocess.run(
        ["sinfo", "--noheader", "--format", "%T"], capture_output=True, text=True, timeout=20
    )
    return done.returncode == 0 and done.stdout.strip().startswith("idle")


def _kill_pid_file(path: Path) -> None:
    with suppress(FileNotFoundError, ValueError, ProcessLookupError):
        os.kill(int(path.read_text().strip()), signal.SIGTERM)


def missing_requirements() -> str | None:
    absent = [tool for tool in DAEMONS if shutil.which(tool) is None]
    if absent:
        return f"{', '.join(absent)} not installed (apt-get install slurm-wlm munge)"
    if os.geteuid() != 0:
        return "starting slurmctld and slurmd needs root"
    return None


@contextmanager
def single_node_cluster() -> Iterator[Cluster]:
    """The running cluster if sinfo finds one, else a fresh single-node one for the block."""
    if cluster_running():
        yield Cluster(conf=None, partition=None)
        return
    missing = missing_requirements()
    if missing:
        raise SlurmUnavailable(missing)
    root = Path(tempfile.mkdtemp(prefix="ra-slurm-"))
    (root / "state").mkdir()
    (root / "spool").mkdir()
    host = socket.gethostname().split(".")[0]
    conf = root / "slurm.conf"
    conf.write_text(CONFIG.format(
        host=host, root=root, ctld_port=_free_port(), slurmd_port=_free_port(),
        cpus=os.cpu_count() or 1, memory_mb=_memory_mb(),
    ))  # fmt: skip
    previous = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = str(conf)
    munged = None
    try:
        munged = _start_munge()
        for daemon in ("slurmctld", "slurmd"):
            done = subprocess.run([daemon, "-f", str(conf)], capture_output=True, text=True)
            if done.returncode != 0:
                raise SlurmUnavailable(f"{daemon} did not start: {done.stderr.strip()}")
        try:
            _wait(_node_idle, "the node to be idle in sinfo")
        except SlurmUnavailable as error:
            log = (root / "slurmctld.log").read_text(errors="replace")[-2000:]
            raise SlurmUnavailable(f"{error}\nslurmctld.log ends:\n{log}") from None
        yield Cluster(conf=conf, partition="ra")
    finally:
        subprocess.run(["scancel", "--user", "root"], capture_output=True, timeout=20)
        for daemon in ("slurmd", "slurmctld"):
            _kill_pid_file(root / f"{daemon}.pid")
        if munged is not None:
            os.kill(munged, signal.SIGTERM)
        if previous is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = previous
        time.sleep(1)  # let the daemons close their files before the folder goes
        shutil.rmtree(root, ignore_errors=True)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops the cluster as Ctrl-C does
    with single_node_cluster() as running:
        print(f"export SLURM_CONF={running.conf}  # partition {running.partition}; Ctrl-C stops")
        with suppress(KeyboardInterrupt):
            signal.pause()
