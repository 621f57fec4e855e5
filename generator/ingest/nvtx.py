"""NVTX range columns of an ncu export, parsed into range-name stacks.

A push/pop cell reads `3984  "<default domain>:train_step:none:...:none"  "<default domain>:forward:..."`:
a thread (or process) id, then one quoted entry per open range, outermost first. Each entry is
`Domain:Name:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg`; a start/stop entry has an `Id:` in
front. Names may contain ':', so the name is everything between the leading and trailing fields.
"""

from __future__ import annotations

import re

_ENTRY = re.compile(r'"((?:[^"]|"")*)"')
_TRAILING_FIELDS = 6  # PL_Type, PL_Value, CLR_Type, Color, Msg_Type, Msg


def _names(cell: str | None, leading_fields: int) -> list[str]:
    if not cell:
        return []
    names = []
    for entry in _ENTRY.findall(cell):
        fields = entry.replace('""', '"').split(":")
        if len(fields) < leading_fields + 1 + _TRAILING_FIELDS:
            # Short entry (older ncu): take the field after the domain as the name.
            if len(fields) > leading_fields:
                names.append(fields[leading_fields])
            continue
        names.append(":".join(fields[leading_fields:-_TRAILING_FIELDS]))
    return names


def push_pop_ranges(cell: str | None) -> list[str]:
    """Range names of a push/pop column, outermost first."""
    return _names(cell, leading_fields=1)


def start_stop_ranges(cell: str | None) -> list[str]:
    """Range names of a start/stop column (entries carry an id before the domain)."""
    return _names(cell, leading_fields=2)


def is_push_pop_column(name: str) -> bool:
    return "Push/Pop_Range" in name


def is_start_stop_column(name: str) -> bool:
    return "Start/Stop_Range" in name
