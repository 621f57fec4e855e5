"""How a page names the device a file ran on: the catalog's display name, how it was matched,
and the name the file itself recorded, side by side, so that a reader can check the match."""

from __future__ import annotations

from html import escape

from markupsafe import Markup

from generator.catalog.matching import DeviceMatch
from generator.pages.render import one_line


def device_line(match: DeviceMatch) -> Markup:
    """Escaped here (every name from the file), so a template does not escape it again."""
    recorded = escape(one_line(match.recorded)) if match.recorded else None
    if match.device is None:
        text = escape(one_line(match.note)) or "unknown"
        return Markup(f"{text} (the file records {_recorded(recorded)})" if recorded else text)
    how = f"{escape(match.how)}; " if match.how else ""
    shown = (
        f"; recorded as {_recorded(recorded)}" if recorded and recorded != match.device.name else ""
    )
    return Markup(f"{escape(match.device.name)} ({how}catalog `{match.device.id}`{shown})")


def _recorded(name: str) -> str:
    """The machine's own name for the device, marked: every page names a device by the
    catalog's name, and only here by the one the file recorded."""
    return f'<span class="ra-recorded">“{name}”</span>'
