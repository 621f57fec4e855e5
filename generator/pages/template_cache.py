"""Jinja's bytecode cache for every template environment a build uses: our page templates
(pages/render.py) and the theme MkDocs renders each page with (site/mkdocs_hooks.py).

Jinja checks each stored template against its source's checksum, but not against the
environment's options (syntax, extensions), which change what a template compiles to; so
each environment's templates are kept in a folder named by those options.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import jinja2
from jinja2 import Environment, FileSystemBytecodeCache
from jinja2.bccache import Bucket


class TemplateCache(FileSystemBytecodeCache):
    """Jinja's bytecode cache, where a template that cannot be stored (its folder gone, a
    full disk) is simply compiled again next time."""

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass


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
    """Keep `env`'s compiled templates under `folder`, apart from other environments'."""
    env.bytecode_cache = TemplateCache(str(folder / compile_options(env)))
