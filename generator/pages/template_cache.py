"""Jinja's bytecode cache in the store, for every template environment a build uses: our
page templates (pages/render.py, in the store of the build running) and the theme MkDocs
renders each page with (site/mkdocs_hooks.py, a store of its own: `keep_compiled`).

Jinja checks each stored template against its source's checksum, but not against the
environment's options (syntax, extensions), which change what a template compiles to; so
an entry's key holds those options too (`compile_options`).
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path

import jinja2
from jinja2 import BytecodeCache, Environment
from jinja2.bccache import Bucket

from generator.store import Pickled, Store, active_store

KIND = "templates"
_BYTES = Pickled(bytes)


class StoredTemplates(BytecodeCache):
    """Compiled templates as the store's `templates` entries: in `store`, or, when None,
    in the store of the build running (`store.active_store`; outside a build, none is
    kept). A template that cannot be stored (a full disk) is compiled again next time."""

    def __init__(self, options: str, store: Store | None = None) -> None:
        self.options = options
        self.store = store

    def _where(self, bucket: Bucket) -> tuple[Store, str] | None:
        store = self.store or active_store()
        if store is None or store.folder is None:
            return None
        return store, store.key(KIND, [self.options, bucket.key, bucket.checksum])

    def load_bytecode(self, bucket: Bucket) -> None:
        if (where := self._where(bucket)) is not None:
            store, key = where
            if (code := store.read(KIND, key, _BYTES)) is not None:
                bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        if (where := self._where(bucket)) is not None:
            store, key = where
            with contextlib.suppress(OSError):
                store.write(KIND, key, bucket.bytecode_to_string(), _BYTES)


def compile_options(env: Environment) -> str:
    """A short key for what, besides a template's source, decides its compiled code."""
    options = (
        jinja2.__version__,
        sorted(env.extensions),
        env.block_start_string, env.block_end_string, env.variable_start_string,
        env.variable_end_string, env.comment_start_string, env.comment_end_string,
        env.line_statement_prefix, env.line_comment_prefix, env.trim_blocks,
        env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline, env.optimized,
        env.autoescape if isinstance(env.autoescape, bool) else repr(env.autoescape),
    )  # fmt: skip
    return hashlib.sha256(repr(options).encode()).hexdigest()[:16]


def keep_compiled(env: Environment, folder: Path) -> None:
    """Keep `env`'s compiled templates in the store in `folder`, apart from other
    environments'."""
    env.bytecode_cache = StoredTemplates(compile_options(env), Store(folder))


def compiled_in_active_store(env: Environment) -> Environment:
    """`env`, its compiled templates kept in the store of the build running."""
    env.bytecode_cache = StoredTemplates(compile_options(env))
    return env
