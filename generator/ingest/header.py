"""Where an ncu CSV table starts, and what to say when a file holds none.

ncu writes its own messages (`==PROF==`, `==WARNING==`, `==ERROR==`) and the profiled
program's output into the same stream as the CSV, so a table may start on any line, and a
file redirected from a run that failed holds only those messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from generator.errors import UserError

HEADER_SCAN_LINES = 10_000
HEADER_SCAN_BYTES = 16 * 1024 * 1024
# A one-row-per-launch export starts with ID; `--print-summary per-kernel` with Process ID.
HEADER_STARTS = (b'"ID",', b"ID,", b'"Process ID",', b"Process ID,")

# ncu's error text -> the fix a user needs. Matched in order, case-insensitive.
_ERROR_FIXES: tuple[tuple[str, str], ...] = (
    (
        "ERR_NVGPUCTRPERM",
        "this user may not read the GPU's performance counters. Allow it: on Linux, as "
        "root, put `options nvidia NVreg_RestrictProfilingOnAdminUsers=0` in a file under "
        "/etc/modprobe.d/ and reload the nvidia module (or reboot); on Windows, NVIDIA Control "
        "Panel > Developer > Manage GPU Performance Counters > allow all users. Or run ncu as "
        "an administrator (sudo). Where neither is possible (rented cloud GPUs, hosted "
        "notebooks, shared clusters), record a torch.profiler trace instead: it needs no "
        "counters",
    ),
    (
        "not supported",
        "ncu cannot profile this GPU here: current ncu supports compute capability 7.0 and "
        "newer (older GPUs need nvprof), and virtual machines or containers may hide the "
        "counters. Profile on a supported GPU, or record a torch.profiler trace, which needs "
        "no counters",
    ),
)
_GENERIC_FIX = "fix what ncu reports, profile again, and export with `ncu --csv`"


@dataclass(frozen=True)
class Header:
    index: int  # 0-based line of the header
    messages: tuple[str, ...]  # ==ERROR== / ==WARNING== lines before it


def find_header(path: Path) -> Header:
    """The header line of the CSV table. Raises UserError when the file has none."""
    try:
        handle = path.open("rb")
    except OSError as err:
        raise UserError(f"cannot open: {err.strerror}", file=path) from err
    messages: list[tuple[int, str]] = []
    index = 0
    with handle:
        head = handle.read(4)
        if not head:
            raise UserError(
                "the file is empty (0 bytes)",
                file=path,
                fix="re-export it: ncu --import REPORT.ncu-rep --csv > FILE.csv",
            )
        if head.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise UserError(
                "the file is UTF-16 encoded; ncu CSV exports are UTF-8",
                file=path,
                fix="convert it: iconv -f UTF-16 -t UTF-8 FILE.csv > FILE-utf8.csv",
            )
        handle.seek(0)
        scanned = 0
        for index, raw in enumerate(handle):
            if index >= HEADER_SCAN_LINES or scanned > HEADER_SCAN_BYTES:
                break
            scanned += len(raw)
            if b"\x00" in raw:
                raise UserError(
                    "this is a binary file, not a CSV export (NUL byte found)",
                    file=path,
                    line=index + 1,
                    fix="export the report as CSV: ncu --import REPORT.ncu-rep --csv > FILE.csv",
                )
            text = raw.lstrip(b"\xef\xbb\xbf").lstrip()
            if text.startswith(HEADER_STARTS):
                return Header(index, tuple(m for _, m in messages))
            if text.startswith((b"==ERROR==", b"==WARNING==")):
                messages.append((index + 1, text.decode("utf-8", "replace").rstrip()))
    _raise_for_messages(path, messages)
    raise UserError(
        f'no ncu CSV header found (a line starting with "ID","Process ID",...) '
        f"in the first {min(index + 1, HEADER_SCAN_LINES)} lines",
        file=path,
        fix="pass the CSV written by `ncu --csv` or `ncu --import REPORT.ncu-rep --csv "
        "[--page raw]`, not the .ncu-rep file or a spreadsheet re-save",
    )


def _raise_for_messages(path: Path, messages: list[tuple[int, str]]) -> None:
    """A file with ncu's messages and no table: quote ncu's own words and say how to fix it."""
    errors = [(line, text) for line, text in messages if text.startswith("==ERROR==")]
    if errors:
        line, text = errors[0]
        fix = next((fix for key, fix in _ERROR_FIXES if key.lower() in text.lower()), _GENERIC_FIX)
        raise UserError(
            f"the file holds ncu's error output, not a CSV export: {_shorten(text)!r}",
            file=path,
            line=line,
            fix=fix,
        )
    if messages:
        line, text = messages[0]
        raise UserError(
            f"the file holds ncu's messages but no CSV table: {_shorten(text)!r}",
            file=path,
            line=line,
            fix="ncu profiled no kernel: check its --kernel-name / --launch-skip filters and "
            "use --target-processes all when the kernels run in a child process",
        )


def _shorten(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def looks_like_ncu_csv(path: Path) -> bool:
    """An ncu CSV export, by content: a line of its first 64 KiB starts the table (the
    messages and program output ncu writes before it are skipped, as `find_header` does)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(1 << 16)
    except OSError:
        return False
    if b"\x00" in head:
        return False
    return any(
        line.lstrip(b"\xef\xbb\xbf").lstrip().startswith(HEADER_STARTS)
        for line in head.splitlines()
    )
