"""Hugging Face `transformers` models built from their published configs: no weights, no
network. The default config of each class is the reference base model's.

Attention runs through torch's scaled_dot_product_attention ("sdpa"), which the
complexity walk costs as one attention op; a causal mask does not change the count
(full S×S scores, as PyTorch's FlopCounterMode counts them).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

ATTENTION = "sdpa"


def bert_base(classes: int, shape: tuple[int, ...]) -> Any:
    """BERT-base (12 layers, 768 wide, 12 heads) with a sequence-classification head on the
    pooled [CLS] output; encoder and pooler hold 109,482,240 parameters."""
    from transformers import BertConfig, BertForSequenceClassification

    config = BertConfig(num_labels=classes, max_position_embeddings=max(512, shape[0]))
    config._attn_implementation = ATTENTION
    return BertForSequenceClassification(config)


def gpt2(classes: int, shape: tuple[int, ...]) -> Any:
    """GPT-2 small (124M): 12 layers, 768 wide, 12 heads, 1024 positions, LM head tied to
    the token embedding. `classes` is unused: the vocabulary (50,257) is the output."""
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(n_positions=max(1024, shape[0] + 1), use_cache=False)
    config._attn_implementation = ATTENTION
    return GPT2LMHeadModel(config)


def wav2vec2_base(classes: int, shape: tuple[int, ...]) -> Any:
    """wav2vec 2.0 base (facebook/wav2vec2-base-960h's architecture): the 7-layer
    convolutional feature encoder, 12 transformer layers, 768 wide, and a per-frame
    classification head of `classes` outputs (32 letters for CTC)."""
    from transformers import Wav2Vec2Config, Wav2Vec2ForCTC

    # SpecAugment masking and LayerDrop (skipping whole layers at random in training) are
    # off, so that a step's work does not depend on a random draw.
    # (apply_spec_augment=False keeps the reference config's masked_spec_embed parameter.)
    config = Wav2Vec2Config(vocab_size=classes, apply_spec_augment=False, layerdrop=0.0)
    config._attn_implementation = ATTENTION
    return Wav2Vec2ForCTC(config)


@contextlib.contextmanager
def meta_safe() -> Iterator[None]:
    """Let transformers run on the meta device, where tensors have no values.

    Its masking code asks whether position ids hold several packed sequences, a question
    about values; the walk's synthetic inputs are one sequence per row, so the answer,
    None, is known without looking."""
    try:
        from transformers import masking_utils
    except ImportError:  # not installed: no transformers model can be built either
        yield
        return
    original = masking_utils.find_packed_sequence_indices
    masking_utils.find_packed_sequence_indices = lambda position_ids: None
    try:
        yield
    finally:
        masking_utils.find_packed_sequence_indices = original
