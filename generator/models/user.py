"""Bring your own model: `module:callable`, imported from the working directory or an
installed package, called with `num_classes=` when it takes it."""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from generator.errors import UserError

USER_MODEL = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


def is_user_model(name: str) -> bool:
    return bool(USER_MODEL.match(name))


def resolve(name: str, key: str = "model") -> Callable[..., Any]:
    """The callable that `name` ('package.module:callable') names."""
    if not is_user_model(name):
        raise UserError(
            f"{name!r} is not module:callable",
            key=key,
            fix="write it like mynet:TinyNet (mynet.py in the working directory, TinyNet in it)",
        )
    module_name, _, attribute = name.partition(":")
    cwd = str(Path.cwd())
    if cwd not in sys.path:
        sys.path.insert(0, cwd)  # `python -m` puts it there; the console script does not
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        raise UserError(
            f"cannot import module {module_name!r} for model {name!r}: {error}",
            key=key,
            fix=f"run from the folder that holds {module_name.replace('.', '/')}.py, or "
            "install the package that provides it",
        ) from None
    except Exception as error:  # the user's module raised while importing
        raise UserError(
            f"importing {module_name!r} for model {name!r} failed: {type(error).__name__}: {error}",
            key=key,
            fix=f"fix the error in {module_name}",
        ) from error
    target = getattr(module, attribute, None)
    if target is None or not callable(target):
        found = "is not callable" if target is not None else "does not exist"
        raise UserError(
            f"{attribute!r} in module {module_name!r} {found}",
            key=key,
            fix=f"name a class or function of {module_name} that returns a torch nn.Module",
        )
    callable_target: Callable[..., Any] = target
    return callable_target


def _takes_num_classes(target: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        p.name == "num_classes" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters
    )


def build_user_model(name: str, classes: int, key: str = "model") -> Any:
    """Call the user's callable; anything but an nn.Module is a UserError."""
    from torch import nn

    target = resolve(name, key)
    try:
        model = target(num_classes=classes) if _takes_num_classes(target) else target()
    except Exception as error:
        raise UserError(
            f"calling {name} failed: {type(error).__name__}: {error}",
            key=key,
            fix="the callable must build the model with no arguments (or only num_classes=)",
        ) from error
    if not isinstance(model, nn.Module):
        raise UserError(
            f"{name} returned {type(model).__name__}, not a torch nn.Module",
            key=key,
            fix="return the model instance from the callable",
        )
    return model
