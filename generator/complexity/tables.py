"""The complexity checks the report shows, computed with torch and stored as CSV in
measurements/complexity/ (the site build reads them without torch)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.complexity.analyze import analyze
from generator.complexity.flop_counter import flop_counter_summary
from generator.complexity.probes import flop_counter_probes
from generator.complexity.shortcuts import SHORTCUT_MODELS, shortcut_rows
from generator.errors import UserError
from generator.records.complexity_tables import TablesMeta, read_meta
from generator.records.complexity_tables import write_tables as write_complexity_tables

if TYPE_CHECKING:
    from generator.models import Dataset

# torchvision weight enum per model: its meta holds the published num_params and _ops (GMACs).
TORCHVISION_WEIGHTS = {
    "resnet18": "ResNet18_Weights",
    "resnet34": "ResNet34_Weights",
    "resnet50": "ResNet50_Weights",
    "mobilenet_v2": "MobileNet_V2_Weights",
    "vit_b_16": "ViT_B_16_Weights",
    "vgg16": "VGG16_Weights",
    "alexnet": "AlexNet_Weights",
    "densenet121": "DenseNet121_Weights",
    "convnext_tiny": "ConvNeXt_Tiny_Weights",
}


def published_rows() -> list[dict[str, Any]]:
    """Ours against torchvision's published numbers at 224×224, and FlopCounterMode's
    forward and backward (raw and groups-corrected) per model."""
    import torchvision.models as tvm

    rows = []
    for model in SHORTCUT_MODELS:
        meta = getattr(tvm, TORCHVISION_WEIGHTS[model]).DEFAULT.meta
        ours = analyze(model, (3, 224, 224), 1, 1000)
        counter = flop_counter_summary(model, (3, 224, 224), 1, 1000)
        rows.append(
            {
                "model": model,
                "params": ours.params,
                "published_params": meta["num_params"],
                "forward_gmacs": ours.forward_macs / 1e9,
                "published_gmacs": meta["_ops"],
                "gmacs_error_pct": 100 * (ours.forward_macs / 1e9 / meta["_ops"] - 1),
                "forward_flops": ours.forward_flops,
                "backward_flops": ours.backward_flops,
                "backward_over_forward_macs": ours.backward_macs / ours.forward_macs,
                "flop_counter_forward": counter["forward_flops"],
                "flop_counter_backward": counter["backward_flops"],
                "flop_counter_backward_corrected": counter["backward_flops_corrected"],
                "flop_counter_ratio": counter["backward_flops"] / counter["forward_flops"],
                "flop_counter_ratio_corrected": counter["backward_flops_corrected"]
                / counter["forward_flops"],
            }
        )
    return rows


def imported_rows(measurements: Path) -> list[dict[str, Any]]:
    """Analytic counts for every imported export whose source.toml names the registry model,
    dataset and batch that ran (SGD with momentum assumed for the optimizer update)."""
    from generator.models import DATASETS
    from generator.records.import_source import discover

    rows = []
    for item in discover(measurements):
        source = item.source
        if not (source.registry_model and source.dataset and source.batch):
            continue
        data = DATASETS[source.dataset]
        result = analyze(
            source.registry_model,
            data.shape,
            source.batch,
            data.classes,
            training=source.phase == "train_step",
        )
        rows.append(
            {
                "name": item.name,
                "model": source.registry_model,
                "dataset": source.dataset,
                "batch": source.batch,
                "phase": source.phase,
                "forward_flops": result.forward_flops,
                "step_flops": result.step_flops,
                "optimizer": result.optimizer,
            }
        )
    return rows


MODEL_TABLE_BATCHES = (1, 64, 256)  # as seed 003's Figure 2 and roofline (batch 1, 64, 256)
LAYER_TABLE_MODELS = ("alexnet", "resnet18")  # seed 003's Figures 8 and 9


def table_dataset(model: str) -> Dataset:
    """The input the model tables count a model on: torchvision classifiers at 224 with 1000
    classes, as published; every other model on its own dataset."""
    from generator.models import DATASETS, MODELS

    spec = MODELS[model]
    torchvision_classifier = spec.source == "torchvision" and spec.task == "classify"
    return DATASETS["imagenet" if torchvision_classifier else spec.default_dataset]


def model_rows() -> list[dict[str, Any]]:
    """Every registry model on its dataset shape (torchvision classifiers at 224, as
    published; FCN on VOC, BERT and GPT-2 on 128 tokens, wav2vec2 on one second of audio):
    parameters, FLOPs, saved activations, minimal traffic and analytic AI per batch."""
    from generator.models import MODELS

    rows = []
    for name in MODELS:
        data = table_dataset(name)
        for batch in MODEL_TABLE_BATCHES:
            result = analyze(name, data.shape, batch, data.classes)
            rows.append({"model": name, "dataset": data.name, "batch": batch, **result.totals()})
    return rows


# Seed 003's Figure 2: its ten models (experiments.toml's group H runs them too)
SEED_003_MODELS = (
    "alexnet", "vgg16", "resnet18", "resnet50", "mobilenet_v2", "densenet121",
    "convnext_tiny", "vit_b_32", "fcn_resnet50", "wav2vec2_base",
)  # fmt: skip


def seed_footprint_rows() -> list[dict[str, Any]]:
    """Seed 003's Figure 2 by its own definition, on this project's inference counts: forward
    FLOPs over a memory footprint, parameters + input + activations (every layer's output
    once, fp32), at batch 1, 64 and 256; beside it the same FLOPs over the pass's minimal
    traffic (every read and write once), this project's intensity."""
    from generator.complexity.footprint import footprint
    from generator.models import model_spec

    rows = []
    for name in SEED_003_MODELS:
        data = table_dataset(name)
        for batch in MODEL_TABLE_BATCHES:
            result = analyze(name, data.shape, batch, data.classes, training=False)
            parts = footprint(result, token_inputs=model_spec(name).vocab is not None)
            total = parts["parameters_bytes"] + parts["input_bytes"] + result.activation_bytes
            rows.append(
                {
                    "model": name,
                    "dataset": data.name,
                    "batch": batch,
                    "forward_flops": result.forward_flops,
                    "parameter_bytes": parts["parameters_bytes"],
                    "input_bytes": parts["input_bytes"],
                    "activation_bytes": result.activation_bytes,
                    "footprint_bytes": total,
                    "footprint_intensity": result.forward_flops / total,
                    "min_traffic_bytes": result.min_traffic_bytes,
                    "min_traffic_intensity": result.arithmetic_intensity,
                }
            )
    return rows


def layer_rows() -> list[dict[str, Any]]:
    """Per-layer forward and backward FLOPs and saved activations at 224, batch 1."""
    rows = []
    for model in LAYER_TABLE_MODELS:
        result = analyze(model, (3, 224, 224), 1, 1000)
        for order, layer in enumerate(result.layers):
            rows.append(
                {
                    "model": model,
                    "order": order,
                    "layer": layer.name,
                    "kind": layer.kind,
                    "family": layer.family,
                    "params": layer.params,
                    "forward_flops": layer.forward_flops,
                    "backward_flops": layer.backward_flops,
                    "activation_bytes": layer.output_elements * result.element_bytes
                    if layer.saves_activation
                    else 0,
                }
            )
    return rows


def literature_rows(measurements: Path) -> list[dict[str, Any]]:
    """The analytic counts measurements/literature/*.csv asks for (`analytic:` keys)."""
    from generator.catalog import load_catalog
    from generator.models import DATASETS
    from generator.records.literature import analytic_requests, read_literature

    literature = read_literature(measurements, {d.id for d in load_catalog()})
    rows = []
    for model, data_name, batch in analytic_requests(literature):
        data = DATASETS[data_name]
        result = analyze(model, data.shape, batch, data.classes)
        rows.append(
            {
                "model": model,
                "dataset": data_name,
                "batch": batch,
                "params": result.params,
                "forward_macs": result.forward_macs,
                "forward_flops": result.forward_flops,
                "backward_flops": result.backward_flops,
                "step_flops": result.step_flops,
                "sample_forward_flops": result.forward_flops / batch,
                "sample_step_flops": (
                    result.forward_flops + result.loss_flops + result.backward_flops
                )
                / batch,
                "arithmetic_intensity": result.arithmetic_intensity,
                "backward_over_forward": result.backward_flops / result.forward_flops,
                "min_traffic_bytes": result.min_traffic_bytes,
                # what a profiler without a convolution-backward formula still counts
                "linear_backward_flops": sum(
                    layer.backward_input_flops + layer.backward_weight_flops
                    for layer in result.layers
                    if layer.family == "linear"
                ),
            }
        )
    return rows


def imported_workloads(measurements: Path) -> dict[str, tuple[str, str, int, str]]:
    """Imported folder -> (model, dataset, batch, phase), where its source.toml names them."""
    from generator.records.import_source import discover

    found = {}
    for item in discover(measurements):
        source = item.source
        if source.registry_model and source.dataset and source.batch:
            found[item.name] = (source.registry_model, source.dataset, source.batch, source.phase)
    return found


def seed_workload_rows(measurements: Path) -> list[dict[str, Any]]:
    """Analytic FLOPs and minimal bytes of every workload a published time in
    measurements/literature/*.csv ran (records/literature_workload.py reads which): what the
    report's roofline prediction of that time rests on."""
    from generator.catalog import load_catalog
    from generator.models import DATASETS
    from generator.records.literature import read_literature
    from generator.records.literature_workload import workloads_to_count

    literature = read_literature(measurements, {d.id for d in load_catalog()})
    rows = []
    for model, data_name, batch, phase, precision in workloads_to_count(
        literature, imported_workloads(measurements)
    ):
        data = DATASETS[data_name]
        result = analyze(
            model,
            data.shape,
            batch,
            data.classes,
            precision=precision,
            training=phase == "train_step",
        )
        rows.append(
            {
                "model": model,
                "dataset": data_name,
                "batch": batch,
                "phase": phase,
                "precision": precision,
                "forward_flops": result.forward_flops,
                "step_flops": result.step_flops,
                "min_traffic_bytes": result.min_traffic_bytes,
            }
        )
    return rows


def source_hash(measurements: Path | None = None) -> str:
    """Hash of the counter's own code, the models it counts, the imported exports'
    source.toml files and the literature rows: the tables change only when one of these (or torch) does."""
    import hashlib

    import torch
    import torchvision

    root = Path(__file__).resolve().parent.parent
    # Release versions only: a +cpu and a +cu130 build of one release count the same.
    release = f"{torch.__version__.split('+')[0]} {torchvision.__version__.split('+')[0]}"
    digest = hashlib.sha256(release.encode())
    # literature_workload.py decides which seed workloads seed_workloads.csv counts
    code = [*Path(__file__).parent.glob("*.py"), *(root / "models").glob("*.py"),
            root / "records" / "literature_workload.py"]  # fmt: skip
    for path in sorted(code):
        digest.update(path.name.encode() + path.read_bytes())
    if measurements is not None:
        for path in sorted((measurements / "imported").glob("*/source.toml")):
            digest.update(path.parent.name.encode() + path.read_bytes())
        for path in sorted((measurements / "literature").glob("*.csv")):
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def up_to_date(folder: Path) -> bool:
    try:
        meta = read_meta(folder)
    except UserError:
        return False
    return meta is not None and meta.source_hash == source_hash(folder.parent)


def write_tables(folder: Path, command: str, measurements: Path | None = None) -> list[Path]:
    import torch
    import torchvision

    from generator.formatting import utc_now

    tables = {
        "published.csv": published_rows(),
        "shortcuts.csv": shortcut_rows(),
        "flop_counter_probes.csv": flop_counter_probes(),
        "imported.csv": imported_rows(measurements or folder.parent),
        "models.csv": model_rows(),
        "layers.csv": layer_rows(),
        "literature.csv": literature_rows(measurements or folder.parent),
        "seed_workloads.csv": seed_workload_rows(measurements or folder.parent),
        "seed_footprint.csv": seed_footprint_rows(),
    }
    meta = TablesMeta(
        generated_at=utc_now(),
        torch=torch.__version__,
        torchvision=torchvision.__version__,
        command=command,
        source_hash=source_hash(measurements or folder.parent),
        tables=sorted(tables),
    )
    return write_complexity_tables(folder, tables, meta)
