"""Tiny randomly initialised models built from a config (nothing downloaded), saved as local model folders
the way `save_pretrained` writes any model: a character tokenizer, a GPT-2 causal LM and a LLaVA VLM
(a CLIP vision tower, a Llama language model)."""

from __future__ import annotations

import string
from pathlib import Path

import torch
import transformers

IMAGE = "<image>"


def char_tokenizer(image_token: bool = False):
    """Single printable characters as the vocabulary; a longer word of a prompt is one `[UNK]` token, so a
    prompt of a few thousand characters stays about a thousand tokens (cheap on a CPU), and everything the
    model writes is characters an action parser can read."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

    symbols = ["[PAD]", "[EOS]", "[UNK]", *([IMAGE] if image_token else []), *dict.fromkeys(string.printable)]
    tok = Tokenizer(models.WordLevel({s: i for i, s in enumerate(symbols)}, unk_token="[UNK]"))
    split = r"<image>|[A-Za-z_]+|[\s\S]"
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(split), behavior="isolated")
    tok.decoder = decoders.Fuse()
    extra = {"extra_special_tokens": {"image_token": IMAGE}} if image_token else {}
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", eos_token="[EOS]",
                                                unk_token="[UNK]", **extra)


def tiny_gpt2(vocab: int):
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=vocab, n_positions=512, n_embd=32, n_layer=2, n_head=2,
                                     bos_token_id=1, eos_token_id=1, pad_token_id=0)
    return transformers.GPT2LMHeadModel(config)


def tiny_vlm(folder: Path, image_size: int = 32, patch: int = 8) -> Path:
    """A LLaVA model with a 1-layer CLIP tower (image_size/patch)^2 image tokens and a 2-layer Llama, and
    its processor, saved to `folder`; returns it."""
    tokenizer = char_tokenizer(image_token=True)
    vision = transformers.CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                           num_attention_heads=2, image_size=image_size, patch_size=patch)
    text = transformers.LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                                    num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                                    max_position_embeddings=32768, pad_token_id=0, eos_token_id=1, bos_token_id=1)
    config = transformers.LlavaConfig(vision_config=vision, text_config=text,
                                      image_token_index=tokenizer.convert_tokens_to_ids(IMAGE),
                                      vision_feature_layer=-1, vision_feature_select_strategy="default")
    torch.manual_seed(0)
    model = transformers.LlavaForConditionalGeneration(config)
    images = transformers.CLIPImageProcessor(size={"shortest_edge": image_size},
                                             crop_size={"height": image_size, "width": image_size})
    processor = transformers.LlavaProcessor(image_processor=images, tokenizer=tokenizer, patch_size=patch,
                                            vision_feature_select_strategy="default", num_additional_image_tokens=1)
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder
