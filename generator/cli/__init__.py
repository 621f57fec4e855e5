"""`python -m generator …`: summarize and import ncu exports, build the report.

Every UserError is printed as `error: <file, line>: <what>` plus its fix, exit status 1.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from generator.cli.parser import build_parser
from generator.errors import UserError

__all__ = ["build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.argv = argv
    try:
        result: int = args.handler(args)
        return result
    except UserError as err:
        print(f"error: {err.message}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `summarize … | head`
        return 0
    except KeyboardInterrupt:
        print(
            "interrupted: finished runs are kept, and so is every block timed (measure: the "
            "same command resumes from them)",
            file=sys.stderr,
        )
        return 130
