"""The workload a published time ran, read from its literature row: model, input, batch,
phase and precision, plus the words that name its device (the catalog resolves them, in
analysis/seed_prediction.py). No torch, no catalog here: `complexity-tables` counts the
workloads this finds, and the report predicts their time from those counts.

Where the row says it: the `derive` key for `measured:` and `analytic:` rows (model, dataset,
batch, and a measured row's phase); an imported export's source.toml for `imported:` rows;
otherwise the row's `configuration` and `quantity` text, read by the rules below. What none of
them says is listed as missing, so the page states it instead of a number."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from generator.models import DATASETS, MODELS
from generator.records.literature import UNITS, LiteratureRow

# Words in a row's text that name its input (lower case; shapes as printed, × or x).
DATASET_WORDS: dict[str, str] = {
    "mnist": "mnist",
    "cifar-100": "cifar100",
    "cifar100": "cifar100",
    "cifar-10": "cifar10",
    "cifar10": "cifar10",
    "imagenet": "imagenet",
    "voc": "voc",
    "1×28×28": "mnist",
    "3×32×32": "cifar10",
    "3×224×224": "imagenet",
}
# Words naming a precision, most specific first; none of them: fp32 (the seeds' default).
PRECISION_WORDS: tuple[tuple[str, str], ...] = (
    ("bf16", "bf16-amp"),
    ("fp16", "fp16-amp"),
    ("amp", "fp16-amp"),
    ("mixed precision", "fp16-amp"),
    ("tf32", "tf32"),
)
# A `floor:` derive key's FLOP quantity -> the phase whose analytic counts it is (the
# forward pass of a training step does an inference's work)
FLOOR_PHASES = {"step_flops": "train_step", "forward_flops": "inference"}
INFERENCE_WORDS = ("inference", "latency", "forward pass")
TRAINING_WORDS = ("train", "step time", "per step", "epoch")


@dataclass(frozen=True)
class RowWorkload:
    """What a published time ran; a field is None where the row does not say it."""

    model: str | None
    dataset: str | None
    batch: int | None
    phase: str | None  # train_step or inference
    precision: str  # a run precision (fp32, tf32, bf16-amp, fp16-amp)
    device_words: tuple[str, ...]  # the row's text parts that may name its device
    device_kind: str | None  # cpu or cuda where a `measured:` key says it
    imported: str | None = None  # the imported folder whose export gave the time
    steps: int = 1  # steps in the timed span (an epoch's, where the row says so)
    part: str | None = None  # a part of the step the time is of alone (its backward pass)

    @property
    def key(self) -> tuple[str, str, int, str, str] | None:
        """(model, dataset, batch, phase, precision), or None while any is unknown."""
        if self.model and self.dataset and self.batch and self.phase:
            return (self.model, self.dataset, self.batch, self.phase, self.precision)
        return None

    def missing(self) -> list[str]:
        """What the row does not say, in words a transcriber can act on."""
        gaps = []
        if self.model is None:
            gaps.append("the model (no registry model is named in its configuration)")
        if self.dataset is None:
            gaps.append("the input (name a dataset or a shape such as 3×224×224)")
        if self.batch is None:
            gaps.append("the batch (write 'batch N' in its configuration)")
        if self.part is not None:
            gaps.append(f"a roofline count of {self.part} alone (the prediction is of whole steps)")
        elif self.phase is None:
            gaps.append("the phase (training step or inference)")
        return gaps


# words of a quantity that is a spread of times, not a time: no floor predicts it
SPREADS = ("standard deviation",)


def is_time(row: LiteratureRow) -> bool:
    """A published time: what the roofline predicts (a spread of times is not one)."""
    spread = any(word in row.quantity for word in SPREADS)
    return UNITS[row.unit][1] == "time" and not spread


def is_rate(row: LiteratureRow) -> bool:
    """A published throughput (img/s): the roofline predicts it as batch ÷ the step's floor."""
    return UNITS[row.unit][1] == "sample_rate"


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


MODEL_NAMES = {_squash(name): name for name in MODELS}


def _parts(row: LiteratureRow) -> list[str]:
    return [part.strip() for part in row.configuration.split(",") if part.strip()]


def model_in(parts: list[str]) -> str | None:
    """The one registry model a configuration part names ('ResNet-50', 'MobileNetV2',
    'SimpleMLP'), ignoring case and punctuation; None when none or several do."""
    found = {MODEL_NAMES[_squash(part)] for part in parts if _squash(part) in MODEL_NAMES}
    return found.pop() if len(found) == 1 else None


def dataset_in(text: str, model: str | None) -> str | None:
    """The input the text names; else the model's own where it takes only one kind of
    input (MNIST for the seed 004 models, tokens for BERT)."""
    lowered = re.sub(r"(\d)\s*[x×]\s*(?=\d)", r"\1×", text.lower())
    for word, name in DATASET_WORDS.items():
        if re.search(rf"(?<![\w×]){re.escape(word)}(?![\w×])", lowered):
            spec = MODELS.get(model or "")
            if name == "imagenet" and spec is not None and spec.task == "segment":
                return "voc"  # a segmentation model on 224×224 input
            return name
    spec = MODELS.get(model or "")
    if spec is None:
        return None
    own = DATASETS[spec.default_dataset]
    if spec.input_kind != "image" or spec.fixed_input is not None or own.name == "mnist":
        return own.name
    return None


def batch_in(text: str) -> int | None:
    found = re.search(r"\bbatch(?:\s+size)?\s*(?:=\s*)?(\d+)", text, re.IGNORECASE)
    return int(found.group(1)) if found and int(found.group(1)) > 0 else None


def _says(text: str, word: str) -> bool:
    """Whether `word` stands in `text` as a word ('amp' not in 'example'; 'train' in
    'training')."""
    return re.search(rf"\b{re.escape(word)}", text, re.IGNORECASE) is not None


def phase_in(text: str) -> str | None:
    if any(_says(text, word) for word in INFERENCE_WORDS):
        return "inference"
    if any(_says(text, word) for word in TRAINING_WORDS):
        return "train_step"
    return None


def precision_in(text: str) -> str:
    return next((run for word, run in PRECISION_WORDS if _says(text, word)), "fp32")


def row_workload(
    row: LiteratureRow, imported: Mapping[str, tuple[str, str, int, str]] | None = None
) -> RowWorkload:
    """The workload of a published time. imported: folder -> (model, dataset, batch, phase)
    from each imported export's source.toml."""
    parts = _parts(row)
    text = f"{row.configuration}, {row.quantity}"
    derive = row.derive
    precision = precision_in(text)
    if derive.kind == "imported":
        known = (imported or {}).get(derive.folder)
        if known is not None:
            return RowWorkload(*known, precision, tuple(parts), "cuda", derive.folder)
    if derive.kind in ("measured", "analytic"):
        measured = derive.kind == "measured"
        return RowWorkload(
            derive.model, derive.dataset, derive.batch,
            derive.quantity if measured else phase_in(text), precision, tuple(parts),
            derive.device if measured else None,
        )  # fmt: skip
    if derive.kind == "floor":  # the row's own floor names its workload and its span
        return RowWorkload(
            derive.model, derive.dataset, derive.batch, FLOOR_PHASES.get(derive.quantity),
            row.precision or precision, tuple(parts), None, steps=derive.steps,
            part="the backward pass" if derive.quantity == "backward_flops" else None,
        )  # fmt: skip
    model = model_in(parts)
    return RowWorkload(
        model, dataset_in(text, model), batch_in(text), phase_in(text), precision, tuple(parts),
        None,
    )  # fmt: skip


def workloads_to_count(
    rows: list[LiteratureRow], imported: Mapping[str, tuple[str, str, int, str]] | None = None
) -> list[tuple[str, str, int, str, str]]:
    """The distinct complete workloads of the published times and throughputs, sorted: what
    `complexity-tables` counts into seed_workloads.csv."""
    keys = {row_workload(row, imported).key for row in rows if is_time(row) or is_rate(row)}
    return sorted(key for key in keys if key is not None)
