"""Issue 16's registry additions: ViT-B/32, FCN-ResNet50 (torchvision), BERT-base, GPT-2 and
wav2vec2-base (transformers configs, no weights), counted by the complexity walk on the
meta device. Published parameter counts are the tests."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from generator.complexity import analyze  # noqa: E402
from generator.models import DATASETS, MODELS, build_model  # noqa: E402

# name → (dataset, published parameters of the part the publication counts)
PUBLISHED = {
    "vit_b_32": ("imagenet", 88_224_232),  # torchvision's model card
    "fcn_resnet50": ("voc", 35_322_218),  # torchvision's, with the auxiliary head
    "bert_base": ("tokens", 109_482_240),  # encoder and pooler (Devlin et al.'s 110M)
    "gpt2": ("tokens", 124_439_808),  # GPT-2 small, LM head tied to the token embedding
    # facebook/wav2vec2-base-960h: the 95M base model (94,371,712) + its 32-letter CTC head
    "wav2vec2_base": ("audio-16k", 94_371_712 + 768 * 32 + 32),
}


def _module(name: str) -> torch.nn.Module:
    data = DATASETS[PUBLISHED[name][0]]
    with torch.device("meta"):
        return build_model(name, data.classes, data.shape)


def _published_part(name: str, module: torch.nn.Module) -> torch.nn.Module:
    # BERT's sequence-classification head sits outside the published encoder + pooler.
    return module.bert if name == "bert_base" else module


@pytest.fixture(scope="module")
def walked() -> dict[str, object]:
    results = {}
    for name, (data_name, _) in PUBLISHED.items():
        data = DATASETS[data_name]
        results[name] = analyze(name, data.shape, 2, data.classes)
    return results


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_parameter_count(name: str) -> None:
    module = _module(name)
    part = _published_part(name, module)
    # parameters() yields a tied weight once, as publications count it
    assert sum(p.numel() for p in part.parameters()) == PUBLISHED[name][1]


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_walk_counts_every_parameter_once(name: str, walked: dict[str, object]) -> None:
    module = _module(name)
    result = walked[name]
    assert result.params == sum(p.numel() for p in module.parameters())  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_backward_costs_about_twice_the_forward(name: str, walked: dict[str, object]) -> None:
    result = walked[name]
    ratio = result.backward_flops / result.forward_flops  # type: ignore[attr-defined]
    # Every multiply-accumulate layer's backward repeats its forward twice (input and
    # weight gradients); the first layer needs no input gradient and elementwise ops differ,
    # so the ratio lands a little under 2.
    assert 1.7 <= ratio <= 2.2
    assert result.uncounted_functions == {}  # type: ignore[attr-defined]
    assert not [n for layer in result.layers for n in layer.notes]  # type: ignore[attr-defined]


def test_causal_attention_is_counted_over_the_kept_pairs() -> None:
    # GPT-2 at 128 tokens calls SDPA with is_causal: 12 layers x 12 heads x 128·129/2 kept
    # query-key pairs x (64 + 64) MACs, not the 128 x 128 square FlopCounterMode counts.
    result = analyze("gpt2", (128,), 1, 2)
    attention = [layer for layer in result.layers if layer.family == "attention"]
    assert len(attention) == 12
    assert sum(layer.forward_macs for layer in attention) == 12 * 12 * (128 * 129 // 2) * 128


def test_decode_is_memory_bound_and_prefill_is_not() -> None:
    prefill = analyze("gpt2", (512,), 1, 2, training=False, lm_phase="prefill")
    decode = analyze("gpt2", (512,), 1, 2, training=False, lm_phase="decode")
    assert decode.arithmetic_intensity < 1.0 < 10.0 < prefill.arithmetic_intensity
    # one token: 2 FLOPs per weight of every matrix product (12 blocks of 7,077,888 and
    # the 50,257 x 768 LM head; the embeddings are lookups), plus attention over the 513
    # cached positions (12 layers x 12 heads x 513 x (64 + 64) MACs); elementwise ops add <1%
    matmul_weights = 12 * 7_077_888 + 50_257 * 768
    attention = 2 * 12 * 12 * 513 * 128
    assert decode.forward_flops == pytest.approx(2 * matmul_weights + attention, rel=0.01)
    # the KV cache: 12 layers x (K and V) x 512 tokens x 768 values, read and written once more
    append = next(layer for layer in decode.layers if layer.name == "kv_cache.append")
    assert append.input_elements == 12 * 2 * 512 * 768
    assert append.output_elements == 12 * 2 * 513 * 768
    assert all(layer.name != "kv_cache.append" for layer in prefill.layers)


def test_decode_traffic_grows_with_the_cache() -> None:
    short = analyze("gpt2", (128,), 8, 2, training=False, lm_phase="decode")
    long = analyze("gpt2", (1024,), 8, 2, training=False, lm_phase="decode")
    assert long.min_traffic_bytes > short.min_traffic_bytes
    assert long.arithmetic_intensity < short.arithmetic_intensity


def test_models_are_registered_with_their_inputs() -> None:
    assert MODELS["gpt2"].causal_lm and MODELS["gpt2"].vocab == 50257
    assert MODELS["bert_base"].input_kind == "tokens"
    assert MODELS["wav2vec2_base"].input_kind == "audio"
    assert MODELS["fcn_resnet50"].task == "segment"
    assert MODELS["vit_b_32"].fixed_input == (3, 224, 224)
