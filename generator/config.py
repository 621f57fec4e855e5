"""`measurements/experiments.toml` → typed, validated experiment groups and resolved runs.

Unknown keys, wrong types and impossible combinations are UserErrors naming the file
and the key (`groups[2].batch_sizes[0]`). Checks that depend on this machine (bf16 on a
CPU without it) happen when the runs are planned, in generator.measure.plan.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import asdict, dataclass
from itertools import product
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from generator.errors import UserError
from generator.models import (
    DATASETS,
    LM_PHASES,
    MODELS,
    check_input,
    check_phase,
    model_spec,
    parse_shape,
    unknown_name,
)
from generator.models.user import is_user_model
from generator.records.run_modes import Compile, check_cuda_only
from generator.records.slurm_settings import SlurmSettings
from generator.records.versioned import upgrade

SCHEMA_VERSION = 1

Phase = Literal["train_step", "inference", "prefill", "decode"]  # the last two: LM_PHASES
Precision = Literal["fp32", "tf32", "bf16-amp", "fp16-amp"]
Device = Literal["cpu", "cuda"]
Optimizer = Literal["sgd", "sgd-momentum", "adam"]

# Settings of the stopping rule (RunConfig.config_hash leaves them out).
STOPPING_RULE = (
    "ci_target", "max_iterations", "max_seconds", "interleave", "method", "min_blocks",
    "max_blocks",
)  # fmt: skip


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Settings(_Strict):
    warmup: int = Field(default=3, ge=0)
    iterations: int = Field(default=10, ge=2)  # timed steps per round
    repeats: int = Field(default=1, ge=1)  # the fewest rounds
    # The stopping rule (measure.rounds): more rounds until the median's 95 % interval is
    # within ±ci_target of it (0: exactly `repeats` rounds), or a cap is reached.
    ci_target: float = Field(default=0.02, ge=0, lt=1)
    max_iterations: int = Field(default=400, ge=2)
    max_seconds: float = Field(default=120.0, gt=0)  # timed seconds per configuration
    interleave: bool = True  # a group's configurations take turns, round by round
    # blocks (measure.blocks): every block a fresh worker process, the blocks of the whole
    # matrix in a shuffled order, the interval across blocks; rounds (measure.rounds): one
    # process per group, configurations taking turns, the interval across iterations
    method: Literal["blocks", "rounds"] = "blocks"
    min_blocks: int = Field(default=5, ge=2)
    max_blocks: int = Field(default=12, ge=2)
    seed: int = 0
    optimizer: Optimizer = "sgd-momentum"
    learning_rate: float = Field(default=0.01, gt=0)
    profile: bool = True


class Expectation(_Strict):
    """A checkable form of the hypothesis: a trend of a metric over the swept variable
    (`saturates`: throughput stops gaining 10 % per doubling of the batch inside the sweep,
    analysis.saturation), the ratio of the metric between two of its values (`ratio =
    [numerator, denominator]`) lying `between` two bounds, or every run's modelled FLOP/s as
    a fraction of its device's measured fp32 GEMM ceiling lying within `of_ceiling`."""

    metric: Literal["throughput", "step_time", "modelled_flops_per_s", "modelled_ai"]
    trend: Literal["increases", "decreases", "saturates"] | None = None
    ratio: list[str] | None = Field(default=None, min_length=2, max_length=2)
    between: list[float] | None = Field(default=None, min_length=2, max_length=2)
    of_ceiling: list[float] | None = Field(default=None, min_length=2, max_length=2)

    @model_validator(mode="after")
    def _one_claim(self) -> Expectation:
        claims = [self.trend, self.ratio, self.of_ceiling]
        if sum(claim is not None for claim in claims) != 1:
            raise ValueError("give either trend or ratio (with between) or of_ceiling, exactly one")
        if self.ratio is not None and self.between is None:
            raise ValueError("a ratio needs between = [low, high]")
        if self.trend == "saturates" and self.metric != "throughput":
            raise ValueError('trend = "saturates" is judged on metric = "throughput"')
        if self.of_ceiling is not None and self.metric != "modelled_flops_per_s":
            raise ValueError('of_ceiling is judged on metric = "modelled_flops_per_s"')
        return self


class Group(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
    title: str
    hypothesis: str
    models: list[str] = Field(min_length=1)
    datasets: list[str] = Field(min_length=1)
    batch_sizes: list[int] = Field(min_length=1)
    phases: list[Phase] = Field(default=["train_step"], min_length=1)
    precisions: list[Precision] = Field(default=["fp32"], min_length=1)
    devices: list[Device] = Field(default=["cpu"], min_length=1)
    compile: list[Compile] = Field(default=["eager"], min_length=1)
    input: str | None = None  # "CxHxW": overrides the datasets' image shape
    seq_len: int | None = Field(default=None, gt=0)  # token datasets: the sequence length
    vocab: int | None = Field(default=None, gt=0)  # your own token model's vocabulary
    warmup: int | None = Field(default=None, ge=0)
    iterations: int | None = Field(default=None, ge=2)
    repeats: int | None = Field(default=None, ge=1)
    ci_target: float | None = Field(default=None, ge=0, lt=1)
    max_iterations: int | None = Field(default=None, ge=2)
    max_seconds: float | None = Field(default=None, gt=0)
    interleave: bool | None = None
    method: Literal["blocks", "rounds"] | None = None
    min_blocks: int | None = Field(default=None, ge=2)
    max_blocks: int | None = Field(default=None, ge=2)
    profile: bool | None = None
    expect: Expectation | None = None

    @field_validator("models", "datasets")
    @classmethod
    def _known_names(cls, names: list[str], info: ValidationInfo) -> list[str]:
        what, table = ("model", MODELS) if info.field_name == "models" else ("dataset", DATASETS)
        for index, name in enumerate(names):
            if what == "model" and is_user_model(name):
                continue  # imported when the runs are planned (the report needs no torch)
            if name not in table:
                known = unknown_name(what, name, table)
                raise ValueError(
                    f"[{index}] {known}" + ("; or your own as module:callable" * (what == "model"))
                )
        return names

    @field_validator("batch_sizes")
    @classmethod
    def _positive_batches(cls, sizes: list[int]) -> list[int]:
        for index, size in enumerate(sizes):
            if size <= 0:
                raise ValueError(f"[{index}] batch size must be positive, not {size}")
        return sizes


class ExperimentsFile(_Strict):
    schema_version: int
    defaults: Settings = Settings()
    groups: list[Group] = Field(min_length=1)
    # `measure --executor slurm`: where each device's runs go (the command line overrides).
    slurm: dict[Device, SlurmSettings] = {}
    # `measure --budget`: plan whole configurations into this many seconds (measure/budget.py)
    budget_seconds: float | None = Field(default=None, gt=0)


@dataclass(frozen=True)
class RunConfig:
    """One point of a group's matrix, with everything that determines its result."""

    group: str
    model: str
    dataset: str
    input_shape: tuple[int, ...]
    classes: int
    batch: int
    phase: str
    precision: str
    device: str
    warmup: int
    iterations: int
    repeats: int
    seed: int
    optimizer: str
    learning_rate: float
    profile: bool
    vocab: int | None = None  # token inputs: ids are drawn below it
    ci_target: float = 0.02
    max_iterations: int = 400
    max_seconds: float = 120.0
    interleave: bool = True
    method: str = "blocks"
    min_blocks: int = 5
    max_blocks: int = 12
    compile: str = "eager"

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["input_shape"] = list(self.input_shape)
        if data["vocab"] is None:
            del data["vocab"]  # image and audio runs keep the hash they had before tokens
        if data["compile"] == "eager":
            del data["compile"]  # eager runs keep the ids they had before compile modes
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        """The inverse of as_dict() (a job manifest stores configurations as JSON)."""
        return cls(**{**data, "input_shape": tuple(data["input_shape"])})

    def config_hash(self, device_name: str) -> str:
        """Same config on the same kind of device → same hash (what resume compares). The
        stopping rule is left out: it sets how precise a result is, not what was measured,
        and runs measured before it existed keep their ids."""
        config = {k: v for k, v in self.as_dict().items() if k not in STOPPING_RULE}
        payload = json.dumps({**config, "device_name": device_name}, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    @property
    def lm_phase(self) -> str | None:
        """prefill or decode (a causal language model's inference), else None."""
        return self.phase if self.phase in LM_PHASES else None

    def run_id(self, device_name: str) -> str:
        model = self.model.replace(":", ".")  # your own module:callable, as a folder name
        mode = "" if self.compile == "eager" else f"-{self.compile}"
        return (
            f"{self.group}-{model}-{self.dataset}-b{self.batch}-{self.phase}-"
            f"{self.precision}-{self.device}{mode}-{self.config_hash(device_name)[:8]}"
        )


def _location(error: dict[str, Any]) -> str:
    key = ""
    for part in error["loc"]:
        key += f"[{part}]" if isinstance(part, int) else (f".{part}" if key else str(part))
    return key


def load_experiments(path: Path) -> ExperimentsFile:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(
            "experiments file not found",
            file=path,
            fix="create it (see README.md, 'Add an experiment') or pass --config",
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise UserError(
            f"not valid TOML: {error}", file=path, fix="fix the TOML syntax at that line"
        ) from None
    raw = upgrade(raw, path, SCHEMA_VERSION)
    try:
        experiments = ExperimentsFile.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        message = str(first["msg"]).removeprefix("Value error, ")
        raise UserError(
            f"{message} (got {first.get('input')!r})" if first["type"] != "missing" else message,
            file=path,
            key=_location(dict(first)),
            fix="see the 'Experiment file' section of README.md for the keys and their types",
        ) from None
    ids = [group.id for group in experiments.groups]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise UserError(
            f"group id {duplicates[0]!r} is used twice",
            file=path,
            key="groups.id",
            fix="give every group its own id",
        )
    _check_combinations(experiments, path)
    return experiments


def _check_combinations(experiments: ExperimentsFile, path: Path) -> None:
    for index, group in enumerate(experiments.groups):
        check_cuda_only(group.precisions, group.compile, group.devices, group.phases,
                        f"groups[{index}]", path)  # fmt: skip
        for at, name in enumerate(group.models):
            key = f"groups[{index}].models[{at}]"
            spec = model_spec(name, key)
            for phase in group.phases:
                try:
                    check_phase(spec, phase, f"groups[{index}].phases")
                except UserError as error:
                    raise UserError(error.what, file=path, key=error.key, fix=error.fix) from None
            readable = [d for d in group.datasets if spec.reads(DATASETS[d])]
            if not readable:
                raise UserError(
                    f"no dataset of this group is one model {name!r} reads "
                    f"({', '.join(group.datasets)})",
                    file=path,
                    key=key,
                    fix=f"add its dataset, e.g. {spec.default_dataset!r}, to the group's datasets",
                )
            for data in readable:
                if DATASETS[data].kind == "tokens" and _vocab(group, name, DATASETS[data]) is None:
                    raise UserError(
                        f"model {name!r} reads token ids but its group gives no vocab",
                        file=path,
                        key=f"groups[{index}].vocab",
                        fix="add vocab = <the number of token ids it embeds> to the group",
                    )
                shape = _sample_shape(group, DATASETS[data], index, path)
                try:
                    check_input(spec, DATASETS[data], shape, key)
                except UserError as error:
                    raise UserError(error.what, file=path, key=key, fix=error.fix) from None


def _sample_shape(
    group: Group, data: Any, index: int | None = None, path: Path | None = None
) -> tuple[int, ...]:
    """One sample's shape: the dataset's, the group's `input` for images, or `seq_len`."""
    key = f"groups[{index}]" if index is not None else "groups"
    if data.kind == "tokens":
        return (group.seq_len or data.shape[0],)
    if group.input is None:
        return tuple(data.shape)
    if data.kind != "image":
        raise UserError(
            f"input = {group.input!r} sets an image shape, dataset {data.name!r} is {data.kind}",
            file=path,
            key=f"{key}.input",
            fix="drop input for audio and token datasets (seq_len sets a token length)",
        )
    try:
        return parse_shape(group.input, key=f"{key}.input")
    except UserError as error:
        raise UserError(error.what, file=path, key=f"{key}.input", fix=error.fix) from None


def _vocab(group: Group, model: str, data: Any) -> int | None:
    if data.kind != "tokens":
        return None
    if group.vocab is not None:
        return group.vocab
    return MODELS[model].vocab if model in MODELS else None


def _own_or_default(group: Group, defaults: Settings, keys: tuple[str, ...]) -> dict[str, Any]:
    """The group's own settings of `keys`, else the defaults'."""
    return {
        key: getattr(group, key) if getattr(group, key) is not None else getattr(defaults, key)
        for key in keys
    }


def resolve_runs(
    experiments: ExperimentsFile, group_ids: list[str] | None = None
) -> list[RunConfig]:
    """The matrix of every selected group, in file order."""
    known = [group.id for group in experiments.groups]
    for wanted in group_ids or []:
        if wanted not in known:
            raise UserError(
                f"no experiment group {wanted!r}",
                key="--group",
                fix="use one of: " + ", ".join(known),
            )
    defaults = experiments.defaults
    runs: list[RunConfig] = []
    for group in experiments.groups:
        if group_ids and group.id not in group_ids:
            continue
        matrix = (group.devices, group.models, group.datasets, group.phases, group.precisions,
                  group.batch_sizes, group.compile)  # fmt: skip
        for device, model, data, phase, precision, batch, mode in product(*matrix):
            dataset = DATASETS[data]
            if not model_spec(model).reads(dataset):
                continue  # each model takes the group's datasets of its own kind
            runs.append(
                RunConfig(
                    group=group.id,
                    model=model,
                    dataset=data,
                    input_shape=_sample_shape(group, dataset),
                    classes=dataset.classes,
                    batch=batch,
                    phase=phase,
                    precision=precision,
                    device=device,
                    **_own_or_default(group, defaults, ("warmup", "iterations", "repeats")),
                    **_own_or_default(group, defaults, STOPPING_RULE),
                    seed=defaults.seed,
                    optimizer=defaults.optimizer,
                    learning_rate=defaults.learning_rate,
                    profile=defaults.profile if group.profile is None else group.profile,
                    vocab=_vocab(group, model, dataset),
                    compile=mode,
                )
            )
    return runs
