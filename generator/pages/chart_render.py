"""Each chart as SVG and PDF, rendered by vl-convert (no browser) and kept in the store.

vl-convert draws in one JavaScript runtime per process: threads wait on each other (measured:
60 charts took 10.6 s on two threads and 9.9 s on one), so the misses of a build are drawn in
a process per core: the build's shared pool (pages/workers.py), else one of their own."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from functools import cache
from importlib.metadata import version

from generator.charts.vega import VegaSpec
from generator.pages.workers import Workers, cores, new_pool
from generator.store import Pickled, Store

EXPORT_WIDTH = 760  # "container" width has no meaning outside a page
VEGA_LITE_VERSION = "6.4"  # what Altair 6.3 writes (alt.SCHEMA_VERSION v6.4.x)
RENDER_VERSION = 2  # how the files are made from vl-convert's output (own_gradient_ids)
PARALLEL_FROM = 6  # fewer misses: a process's start-up (~0.3 s) costs more than it saves
KIND = "charts"  # the store's kind (generator/store)
_PAIR = Pickled(tuple)  # (SVG, PDF)


def chart_key(spec: VegaSpec) -> str:
    """A chart's cache key: its spec at the export width and the renderer's version."""
    return hashlib.sha256(
        json.dumps(_fixed(spec), sort_keys=True).encode() + _renderer_version().encode()
    ).hexdigest()


@cache  # importlib.metadata reads the package's metadata files: ~0.1 ms a call
def _renderer_version() -> str:
    return f"{version('vl-convert-python')} {VEGA_LITE_VERSION} {RENDER_VERSION}"


def _fixed(spec: VegaSpec) -> VegaSpec:
    return {**spec, "width": EXPORT_WIDTH} if spec.get("width") == "container" else spec


def _cached(key: str, store: Store | None) -> tuple[bytes, bytes] | None:
    return store.read(KIND, store.key(KIND, [key]), _PAIR) if store else None


def _render(spec: VegaSpec) -> tuple[bytes, bytes]:
    """SVG and PDF of one spec at a fixed width, ~0.15 s. The PDF is drawn from the SVG (a
    third of the time of drawing it from the spec again, and the same picture)."""
    import vl_convert as vlc

    text = own_gradient_ids(vlc.vegalite_to_svg(_fixed(spec), vl_version=VEGA_LITE_VERSION))
    return text.encode("utf-8"), vlc.svg_to_pdf(text)


_GRADIENT_ID = re.compile(r"\bgradient_(\d+)\b")


def own_gradient_ids(svg: str) -> str:
    """Vega numbers gradients (a legend's colour ramp) with one counter per process, so the
    same chart's SVG said `gradient_1` or `gradient_2` by what the process drew before:
    numbered here from 1 in order of appearance, the file depends on its spec alone."""
    numbers: dict[str, int] = {}

    def renumber(match: re.Match[str]) -> str:
        return f"gradient_{numbers.setdefault(match.group(1), len(numbers) + 1)}"

    return _GRADIENT_ID.sub(renumber, svg)


def _store(key: str, files: tuple[bytes, bytes], store: Store | None) -> None:
    if store is not None:
        store.write(KIND, store.key(KIND, [key]), files, _PAIR)


def chart_files(spec: VegaSpec, store: Store | None = None) -> tuple[bytes, bytes]:
    """SVG and PDF of one chart spec, from the store (`chart_key`) or rendered."""
    key = chart_key(spec)
    if (found := _cached(key, store)) is not None:
        return found
    files = _render(spec)
    _store(key, files, store)
    return files


class ChartRenderer:
    """Charts drawn while the caller goes on making pages: `submit` as they come, `files`
    when all are in. Cached ones are read; the misses go to a process per core once there
    are enough of them to pay for the processes' start-up, else they are drawn here."""

    def __init__(self, store: Store | None = None, workers: Workers | None = None) -> None:
        self.store = store
        self.workers = workers  # the build's pool, when there is one
        self._files: dict[str, tuple[bytes, bytes]] = {}
        self._waiting: dict[str, VegaSpec] = {}  # misses not yet handed to a process
        self._futures: dict[str, Future[tuple[bytes, bytes]]] = {}
        self._pool: ProcessPoolExecutor | None = None
        self._own_pool = False

    def __enter__(self) -> ChartRenderer:
        return self

    def __exit__(self, *_: object) -> None:
        for future in self._futures.values():
            future.cancel()
        if self._pool is not None and self._own_pool:
            self._pool.shutdown(cancel_futures=True)

    def submit(self, specs: Iterable[VegaSpec]) -> None:
        for spec in specs:
            key = chart_key(spec)
            if key in self._files or key in self._waiting or key in self._futures:
                continue
            if (found := _cached(key, self.store)) is not None:
                self._files[key] = found
            else:
                self._waiting[key] = spec
        workers = min(cores(), PARALLEL_FROM)
        if self._pool is None and len(self._waiting) >= PARALLEL_FROM and workers > 1:
            self._pool = self.workers.pool() if self.workers else None
            if self._pool is None:
                self._pool, self._own_pool = new_pool(workers), True
        if self._pool is not None:
            for key, spec in self._waiting.items():
                self._futures[key] = self._pool.submit(_render, spec)
            self._waiting.clear()

    def drawn_so_far(self) -> dict[str, tuple[bytes, bytes]]:
        """The charts whose files are there now (cached, or drawn already); `files` waits
        for the rest."""
        for key, future in list(self._futures.items()):
            if future.done():
                self._files[key] = future.result()
                _store(key, self._files[key], self.store)
                del self._futures[key]
        return dict(self._files)

    def files(self) -> dict[str, tuple[bytes, bytes]]:
        """Every submitted chart's SVG and PDF, by `chart_key` (new ones cached)."""
        drawn = {key: _render(spec) for key, spec in self._waiting.items()}
        drawn.update((key, future.result()) for key, future in self._futures.items())
        self._waiting.clear()
        self._futures.clear()
        for key, made in drawn.items():
            _store(key, made, self.store)
        self._files.update(drawn)
        return dict(self._files)


def rendered_charts(
    specs: Iterable[VegaSpec], store: Store | None = None
) -> dict[str, tuple[bytes, bytes]]:
    """Every distinct chart by `chart_key`: stored ones read, the rest rendered."""
    with ChartRenderer(store) as renderer:
        renderer.submit(specs)
        return renderer.files()
