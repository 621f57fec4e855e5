"""Before any timing: every `module:callable` model of the plan imports, builds and takes
its input, or the whole plan stops with a UserError naming the group's key."""

from __future__ import annotations

from pathlib import Path

from generator.config import RunConfig
from generator.errors import UserError
from generator.models.user import is_user_model


def check_user_models(runs: list[RunConfig], config_path: Path) -> None:
    from generator.complexity import analyze

    seen: set[tuple[str, tuple[int, ...], int | None, bool]] = set()
    for run in runs:
        training = run.phase == "train_step"
        point = (run.model, run.input_shape, run.vocab, training)
        if not is_user_model(run.model) or point in seen:
            continue
        seen.add(point)
        key = f"groups.{run.group}.models ({run.model})"
        try:
            # batch 2: batch norm in training needs more than one value per channel
            analyze(
                run.model,
                run.input_shape,
                2,
                run.classes,
                training=training,
                vocab=run.vocab,
                lm_phase=run.lm_phase,
            )
        except UserError as error:
            raise UserError(error.what, file=config_path, key=key, fix=error.fix) from None
