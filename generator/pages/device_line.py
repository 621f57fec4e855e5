"""How a page names the device a file ran on: the catalog's display name, how it was matched,
and the name the file itself recorded, side by side, so that a reader can check the match."""

from __future__ import annotations

from html import escape

from generator.catalog.matching import DeviceMatch
from generator.pages.render import one_line


def device_line(match: DeviceMatch) -> str:
    """Markdown-safe: every name from the file is escaped."""
    recorded = escape(one_line(match.recorded)) if match.recorded else None
    if match.device is None:
        text = escape(one_line(match.note)) or "unknown"
        return f"{text} (the file records “{recorded}”)" if recorded else text
    how = f"{escape(match.how)}; " if match.how else ""
    shown = f"; recorded as “{recorded}”" if recorded and recorded != match.device.name else ""
    return f"{escape(match.device.name)} ({how}catalog `{match.device.id}`{shown})"
