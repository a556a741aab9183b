#!/usr/bin/env python3
# ===- hf_compare.py - Hugging Face / PyTorch oracle for tfm -------------=== #
#
# Outside CI. For every supported Hugging Face model_type this builds tiny,
# randomly initialised models with transformers, saves them with
# save_pretrained (config.json + model.safetensors), and compares
#
#   1. the independent float64 reference (scripts/tfm_ref.py) against the PyTorch forward in float64: this validates
#      the reference itself;
#   2. the compiled model (tfmc MODEL_DIR --emit=so -o model.so, then tfm-run) against
#      the PyTorch forward in float32, when the tools exist (skipped with a
#      message otherwise, or with --ref-only).
#
# Token batches include padded, ragged batches with odd lengths; T5 rows get
# decoder tokens too, ViT rows random pixels. Single-stack token models also
# run Hugging Face's attention_mask (tfm-run --attention-mask): a batch
# padded on the left (and on both sides), and for decoders the same batch
# with the position_ids that generate passes (--position-ids). Errors are
# measured as in tfm_ref.py's `check`: per output row (one position's
# logits, hidden state or class scores), |actual - expected| / max|expected
# row|. Only positions < length (under a 1 of the mask) are compared.
#
# --check-configs runs the other direction for the integration-test configs
# test/Integration/reference/Inputs/hf-*.json: weights from `tfm_ref.py init`
# must load into the transformers class with no missing, unexpected or
# mismatched tensor, and the two forwards must agree.
#
# Needs: pip install -r scripts/requirements-oracle.txt
#
# ===----------------------------------------------------------------------=== #

import argparse
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
    import transformers
except ImportError as e:  # pragma: no cover
    sys.exit("hf_compare.py: missing package (%s); run: pip install -r "
             "scripts/requirements-oracle.txt" % e)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import tfm_ref  # noqa: E402

VOCAB, D, LAYERS, HEADS, FFN, MAXPOS = 64, 32, 2, 4, 64, 32
PAD = 0  # pad token id; sampled tokens avoid it


def _common(**kw):
    kw.setdefault("vocab_size", VOCAB)
    kw.setdefault("pad_token_id", PAD)
    return kw


# Odd sizes for the newer families: nothing a power of two where the family
# allows it.
ODD = dict(vocab_size=67, hidden_size=48, intermediate_size=56, num_hidden_layers=LAYERS,
           num_attention_heads=3, num_key_value_heads=1, head_dim=12,
           max_position_embeddings=40, pad_token_id=PAD)
LONGROPE = {"rope_type": "longrope", "rope_theta": 10000.0,
            "short_factor": [1.0, 1.05, 1.2, 1.5, 2.1, 3.0],
            "long_factor": [1.1, 1.6, 2.5, 4.0, 7.5, 13.0]}


def variants():
    """(label, config class, model class, config kwargs[, options]).
    Options: seq (token batch width), padded (PyTorch runs the padded batch
    in one call, as longrope's switch depends on the padded width), legacy_rope
    (config.json rewritten in the transformers 4.x spelling: rope_theta and
    rope_scaling with "type"), untie (T5: an lm_head of its own), reject
    (tfm_ref must refuse the config with an error containing this)."""
    T = transformers
    llama_kw = dict(hidden_size=D, intermediate_size=FFN, num_hidden_layers=LAYERS,
                    num_attention_heads=HEADS, num_key_value_heads=2,
                    max_position_embeddings=MAXPOS, rms_norm_eps=1e-6)
    odd_llama = dict(ODD, head_dim=16)
    phi3_kw = dict(ODD, original_max_position_embeddings=16)
    del phi3_kw["head_dim"]
    bert_odd = dict(vocab_size=61, hidden_size=40, intermediate_size=56,
                    num_hidden_layers=LAYERS, num_attention_heads=5,
                    max_position_embeddings=40, type_vocab_size=1, pad_token_id=1,
                    layer_norm_eps=1e-5)
    distil_kw = dict(vocab_size=71, dim=40, n_heads=5, hidden_dim=56, n_layers=LAYERS,
                     max_position_embeddings=24, pad_token_id=PAD)
    t5_kw = dict(vocab_size=83, d_model=40, d_kv=12, d_ff=56, num_layers=LAYERS,
                 num_heads=3, relative_attention_num_buckets=10,
                 relative_attention_max_distance=20, pad_token_id=PAD)
    vit_kw = dict(hidden_size=40, intermediate_size=56, num_hidden_layers=LAYERS,
                  num_attention_heads=5, image_size=20, patch_size=4, num_channels=3)
    return [
        ("gpt2", T.GPT2Config, T.GPT2LMHeadModel,
         _common(n_embd=D, n_layer=LAYERS, n_head=HEADS, n_positions=MAXPOS)),
        ("gpt2-relu-untied-inner", T.GPT2Config, T.GPT2LMHeadModel,
         _common(n_embd=D, n_layer=LAYERS, n_head=HEADS, n_positions=MAXPOS,
                 n_inner=48, activation_function="relu", tie_word_embeddings=False)),
        ("gpt2-classifier", T.GPT2Config, T.GPT2ForSequenceClassification,
         _common(n_embd=D, n_layer=LAYERS, n_head=HEADS, n_positions=MAXPOS,
                 num_labels=3)),
        ("bert-classifier", T.BertConfig, T.BertForSequenceClassification,
         _common(hidden_size=D, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                 intermediate_size=FFN, max_position_embeddings=MAXPOS, num_labels=3)),
        ("bert-model", T.BertConfig, T.BertModel,
         _common(hidden_size=D, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                 intermediate_size=FFN, max_position_embeddings=MAXPOS)),
        ("bert-mlm", T.BertConfig, T.BertForMaskedLM,
         _common(hidden_size=D, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                 intermediate_size=FFN, max_position_embeddings=MAXPOS)),
        ("llama-gqa", T.LlamaConfig, T.LlamaForCausalLM, _common(**llama_kw)),
        ("llama-linear-rope-tied-bias", T.LlamaConfig, T.LlamaForCausalLM,
         _common(**llama_kw, rope_scaling={"rope_type": "linear", "factor": 2.0},
                 rope_theta=500.0, tie_word_embeddings=True, attention_bias=True,
                 mlp_bias=True)),
        ("llama-mqa-classifier", T.LlamaConfig, T.LlamaForSequenceClassification,
         _common(**dict(llama_kw, num_key_value_heads=1), num_labels=3)),
        ("mistral-window4", T.MistralConfig, T.MistralForCausalLM,
         _common(**llama_kw, sliding_window=4)),
        ("mistral-nowindow", T.MistralConfig, T.MistralForCausalLM,
         _common(**llama_kw, sliding_window=None)),
        ("qwen2", T.Qwen2Config, T.Qwen2ForCausalLM, _common(**llama_kw)),
        ("qwen2-tied-window", T.Qwen2Config, T.Qwen2ForCausalLM,
         _common(**llama_kw, tie_word_embeddings=True, use_sliding_window=True,
                 sliding_window=5, max_window_layers=1)),
        # RoPE scaling types (llama): transformers 5 and 4.x spellings.
        ("llama-llama3-rope", T.LlamaConfig, T.LlamaForCausalLM,
         dict(odd_llama, rope_parameters={
             "rope_type": "llama3", "rope_theta": 10000.0, "factor": 5.0,
             "low_freq_factor": 1.0, "high_freq_factor": 4.0,
             "original_max_position_embeddings": 32})),
        ("llama-yarn-4x", T.LlamaConfig, T.LlamaForCausalLM,
         dict(odd_llama, max_position_embeddings=39, num_key_value_heads=3,
              rope_scaling={"type": "yarn", "factor": 3.0,
                            "original_max_position_embeddings": 13},
              rope_theta=100.0), {"legacy_rope": True}),
        ("llama-yarn-mscale-4x", T.LlamaConfig, T.LlamaForCausalLM,
         dict(odd_llama, rope_scaling={
             "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 10,
             "mscale": 0.7, "mscale_all_dim": 0.3, "beta_fast": 16, "beta_slow": 2,
             "truncate": False}, rope_theta=50.0), {"legacy_rope": True}),
        ("llama-longrope-long", T.LlamaConfig, T.LlamaForCausalLM,
         dict(odd_llama, rope_parameters=dict(
             LONGROPE, short_factor=[1.0, 1.1, 1.3, 1.6, 2.0, 2.6, 3.3, 4.1],
             long_factor=[1.2, 1.7, 2.5, 3.6, 5.0, 7.0, 9.5, 12.5],
             original_max_position_embeddings=16)), {"seq": 20, "padded": True}),
        # Qwen3: per-head q/k RMSNorm, head_dim independent of hidden_size.
        ("qwen3-gqa", T.Qwen3Config, T.Qwen3ForCausalLM, dict(ODD)),
        ("qwen3-bias-tied-window", T.Qwen3Config, T.Qwen3ForCausalLM,
         dict(ODD, num_key_value_heads=3, attention_bias=True, tie_word_embeddings=True,
              use_sliding_window=True, sliding_window=5, max_window_layers=1)),
        ("qwen3-yarn", T.Qwen3Config, T.Qwen3ForCausalLM,
         dict(ODD, rope_parameters={"rope_type": "yarn", "rope_theta": 200.0,
                                    "factor": 2.5, "original_max_position_embeddings": 16})),
        ("qwen3-classifier", T.Qwen3Config, T.Qwen3ForSequenceClassification,
         dict(ODD, num_labels=3)),
        # Gemma: (1 + w) RMSNorm, sqrt(hidden) embedding scale, tanh GeGLU.
        ("gemma-mqa", T.GemmaConfig, T.GemmaForCausalLM,
         dict(ODD, hidden_size=40, num_attention_heads=5, intermediate_size=72)),
        ("gemma-bias-untied-linear", T.GemmaConfig, T.GemmaForCausalLM,
         dict(ODD, num_key_value_heads=3, attention_bias=True, tie_word_embeddings=False,
              rope_parameters={"rope_type": "linear", "factor": 1.5, "rope_theta": 3000.0})),
        ("gemma-model", T.GemmaConfig, T.GemmaModel, dict(ODD)),
        ("gemma2-rejected", T.Gemma2Config, T.Gemma2ForCausalLM,
         dict(ODD, attn_logit_softcapping=50.0, final_logit_softcapping=30.0),
         {"reject": "soft-capping"}),
        # Phi-3: fused projections, partial rotary, longrope, sliding window.
        ("phi3-window", T.Phi3Config, T.Phi3ForCausalLM, dict(phi3_kw, sliding_window=5)),
        ("phi3-longrope-short", T.Phi3Config, T.Phi3ForCausalLM,
         dict(phi3_kw, num_key_value_heads=3, partial_rotary_factor=0.75,
              rope_parameters=dict(LONGROPE, partial_rotary_factor=0.75)),
         {"seq": 12, "padded": True}),
        ("phi3-longrope-long", T.Phi3Config, T.Phi3ForCausalLM,
         dict(phi3_kw, partial_rotary_factor=0.75, sliding_window=11,
              rope_parameters=dict(LONGROPE, partial_rotary_factor=0.75)),
         {"seq": 20, "padded": True}),
        # RoBERTa: positions from padding_idx + 1.
        ("roberta-classifier", T.RobertaConfig, T.RobertaForSequenceClassification,
         dict(bert_odd, num_labels=3)),
        ("roberta-mlm", T.RobertaConfig, T.RobertaForMaskedLM, dict(bert_odd, hidden_act="relu")),
        ("roberta-model", T.RobertaConfig, T.RobertaModel,
         dict(bert_odd, type_vocab_size=2, pad_token_id=0)),
        # DistilBERT: no token types, LayerNorm eps 1e-12, pre_classifier +
        # ReLU, MLM head with config.activation and a tied vocab_projector.
        ("distilbert-classifier", T.DistilBertConfig, T.DistilBertForSequenceClassification,
         dict(distil_kw, num_labels=3)),
        ("distilbert-mlm", T.DistilBertConfig, T.DistilBertForMaskedLM, dict(distil_kw)),
        ("distilbert-mlm-relu-untied", T.DistilBertConfig, T.DistilBertForMaskedLM,
         dict(distil_kw, activation="relu", tie_word_embeddings=False)),
        ("distilbert-model-sinusoidal", T.DistilBertConfig, T.DistilBertModel,
         dict(distil_kw, sinusoidal_pos_embds=True)),
        # T5: relative buckets, unscaled scores, tied head rescaled.
        ("t5-gated-gelu-tied", T.T5Config, T.T5ForConditionalGeneration,
         dict(t5_kw, feed_forward_proj="gated-gelu"), {"seq": 13}),
        ("t5-relu-untied-dec1", T.T5Config, T.T5ForConditionalGeneration,
         dict(t5_kw, num_decoder_layers=1, relative_attention_num_buckets=12,
              relative_attention_max_distance=14, tie_word_embeddings=False),
         {"untie": True}),
        ("t5-model", T.T5Config, T.T5Model, dict(t5_kw, feed_forward_proj="gated-silu")),
        ("t5-encoder", T.T5Config, T.T5EncoderModel,
         dict(t5_kw, feed_forward_proj="gated-gelu"), {"seq": 15}),
        # ViT: pixels in, CLS classifier or last hidden state out.
        ("vit-classifier", T.ViTConfig, T.ViTForImageClassification,
         dict(vit_kw, num_labels=5)),
        ("vit-model-noqkvbias", T.ViTConfig, T.ViTModel,
         dict(vit_kw, image_size=[15, 10], patch_size=5, qkv_bias=False,
              hidden_act="gelu_new")),
    ]


def kind_of(cfg):
    """tokens | seq2seq (T5 with a decoder; T5EncoderModel takes tokens) |
    pixels (ViT)."""
    if cfg.model_type == "vit":
        return "pixels"
    if cfg.model_type == "t5" and "T5EncoderModel" not in (cfg.architectures or []):
        return "seq2seq"
    return "tokens"


def randomize(model, gen):
    """Replaces HF's init (std 0.02, gammas 1, biases 0) by values that make
    every tensor matter: gammas 1 +- 0.1 (Gemma's stored gamma - 1: +- 0.1),
    biases +- 0.1, matrices std 0.2, embeddings std 1."""
    with torch.no_grad():
        for mname, module in model.named_modules():
            cls = type(module).__name__
            for pname, p in module.named_parameters(recurse=False):
                name = (mname + "." if mname else "") + pname
                if p.dim() == 1:
                    u = torch.rand(p.shape, generator=gen, dtype=torch.float64) * 2 - 1
                    base = 1.0 if name.endswith("weight") else 0.0
                    if cls.startswith("Gemma") and cls.endswith("RMSNorm"):
                        base = 0.0
                    p.copy_(base + 0.1 * u)
                else:
                    emb = ("embed" in name or name.split(".")[-2] in ("wte", "wpe")) \
                        and "projection" not in name
                    std = 1.0 if emb else 0.2
                    p.copy_(torch.randn(p.shape, generator=gen, dtype=torch.float64) * std)


def rope64(cfg, seq_len=None):
    """(inverse frequencies, attention factor) of cfg's RoPE in float64,
    written from the RoPE scaling papers (an oracle independent of
    tfm_ref.py); make_float64 checks them against HF's float32 ones."""
    p = cfg.rope_parameters
    kind = p.get("rope_type", "default")
    theta = float(p["rope_theta"])
    prf = p.get("partial_rotary_factor") or 1.0
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    dim = int(head_dim * prf)
    powers = theta ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    inv = 1.0 / powers
    af = 1.0
    if kind == "default":
        pass
    elif kind == "linear":
        inv = inv / p["factor"]
    elif kind == "llama3":
        factor, orig = p["factor"], p["original_max_position_embeddings"]
        lo, hi = p["low_freq_factor"], p["high_freq_factor"]
        wavelen = 2 * math.pi / inv
        smooth = (orig / wavelen - lo) / (hi - lo)
        blended = (1 - smooth) * inv / factor + smooth * inv
        inv = torch.where(wavelen > orig / lo, inv / factor,
                          torch.where(wavelen < orig / hi, inv, blended))
    elif kind == "yarn":
        orig = p["original_max_position_embeddings"]
        factor = p.get("factor") or cfg.max_position_embeddings / orig

        def mscale(s, m=1.0):
            return 1.0 if s <= 1 else 0.1 * m * math.log(s) + 1.0
        af = p.get("attention_factor")
        if af is None:
            if p.get("mscale") and p.get("mscale_all_dim"):
                af = mscale(factor, p["mscale"]) / mscale(factor, p["mscale_all_dim"])
            else:
                af = mscale(factor)
        fast, slow = p.get("beta_fast") or 32, p.get("beta_slow") or 1

        def cdim(rot):
            return dim * math.log(orig / (rot * 2 * math.pi)) / (2 * math.log(theta))
        lo, hi = cdim(fast), cdim(slow)
        if p.get("truncate", True):
            lo, hi = math.floor(lo), math.ceil(hi)
        lo, hi = max(lo, 0), min(hi, dim - 1)
        if lo == hi:
            hi += 0.001
        ramp = ((torch.arange(dim // 2, dtype=torch.float64) - lo) / (hi - lo)).clamp(0, 1)
        inv = inv / factor * ramp + inv * (1 - ramp)
    elif kind == "longrope":
        orig = p["original_max_position_embeddings"]
        factor = p.get("factor") or cfg.max_position_embeddings / orig
        af = p.get("attention_factor")
        if af is None:
            af = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(orig))
        ext = p["long_factor"] if seq_len is not None and seq_len > orig else p["short_factor"]
        inv = 1.0 / (torch.tensor(ext, dtype=torch.float64) * powers)
    else:
        raise SystemExit("hf_compare.py: rope type %r not handled" % kind)
    return inv, float(af)


def make_float64(model):
    """HF computes RMSNorm (T5LayerNorm too) and the RoPE tables in float32
    even in a float64 model (they upcast half precision that way), and Gemma
    keeps sqrt(hidden_size) in a buffer that a float32 round trip rounds.
    Swap those pieces for float64 versions of the same formulas, so that the
    PyTorch side is a float64 oracle too. The float64 inverse frequencies
    and attention factors are checked against HF's own before use."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    for module in model.modules():
        cls = type(module).__name__
        if cls.endswith("RMSNorm") or cls == "T5LayerNorm":
            eps = getattr(module, "variance_epsilon", getattr(module, "eps", None))
            offset = 1.0 if cls.startswith("Gemma") else 0.0

            def rms(h, module=module, eps=eps, offset=offset):
                h = h.double()
                r = torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
                return (offset + module.weight.double()) * (h * r)
            module.forward = rms
        elif hasattr(module, "scalar_embed_scale") and hasattr(module, "embed_scale"):
            with torch.no_grad():
                module.embed_scale.fill_(float(module.scalar_embed_scale))
        elif cls.endswith("RotaryEmbedding"):
            cfg = module.config
            inv, scaling = rope64(cfg)
            if not torch.allclose(inv.float(), module.inv_freq.float(), rtol=1e-6, atol=0):
                raise SystemExit("hf_compare.py: float64 RoPE frequencies of %s differ "
                                 "from HF's:\n%s\n%s" % (cls, inv, module.inv_freq))
            if abs(scaling - float(module.attention_scaling)) > 1e-12 * abs(scaling):
                raise SystemExit("hf_compare.py: RoPE attention factor %r of %s differs from "
                                 "HF's %r" % (scaling, cls, module.attention_scaling))
            p = cfg.rope_parameters
            if p.get("rope_type") == "longrope":
                orig = p["original_max_position_embeddings"]
                hf_long, _ = ROPE_INIT_FUNCTIONS["longrope"](cfg, None, seq_len=orig + 1)
                mine, _ = rope64(cfg, seq_len=orig + 1)
                if not torch.allclose(mine.float(), hf_long.float(), rtol=1e-6, atol=0):
                    raise SystemExit("hf_compare.py: long RoPE frequencies of %s differ" % cls)

            def rot(x, position_ids, module=module):
                # longrope: the long factors when max(position_ids) + 1 exceeds
                # original_max_position_embeddings, as HF's dynamic update.
                inv, af = rope64(module.config, seq_len=int(position_ids.max()) + 1)
                freqs = position_ids[..., None].double() * inv
                emb = torch.cat((freqs, freqs), dim=-1)
                return emb.cos() * af, emb.sin() * af
            module.forward = rot
        elif cls == "T5Attention" and module.has_relative_attention_bias:
            # HF buckets with a float32 log: the same buckets as tfm_ref's?
            for bidir in (True, False):
                rel = torch.arange(-64, 65)
                hf = module._relative_position_bucket(
                    rel, bidirectional=bidir, num_buckets=module.relative_attention_num_buckets,
                    max_distance=module.relative_attention_max_distance).tolist()
                mine = [tfm_ref.t5_bucket(r, bidir, module.relative_attention_num_buckets,
                                          module.relative_attention_max_distance)
                        for r in rel.tolist()]
                if hf != mine:
                    raise SystemExit("hf_compare.py: T5 buckets differ from HF's")


class Batch:
    """One input batch: ids [B, T] int32 and lengths [B] (None: full), plus
    decoder ids and lengths (T5) or pixels [B, C, H, W] float32 (ViT); or,
    instead of lengths, Hugging Face's attention_mask [B, T] of 0/1 (one
    run of 1s a row) and optional position_ids [B, T]."""

    def __init__(self, label, ids=None, lengths=None, dec_ids=None, dec_lengths=None,
                 pixels=None, mask=None, positions=None):
        self.label, self.ids, self.lengths = label, ids, lengths
        self.dec_ids, self.dec_lengths, self.pixels = dec_ids, dec_lengths, pixels
        self.mask, self.positions = mask, positions

    def row_lengths(self):
        """What row_errors compares: lengths [B] or the mask [B, T]."""
        if self.mask is not None:
            return self.mask
        return self.dec_lengths if self.dec_ids is not None else self.lengths


def _ids(rng, vocab, lengths, seq, pad=PAD):
    """Token ids that avoid the pad id (RoBERTa's positions count non-pad
    tokens), padded with it."""
    ids = rng.integers(0, vocab - 1, size=(len(lengths), seq))
    ids = (ids + (ids >= pad)).astype(np.int32)
    for i, n in enumerate(lengths):
        ids[i, n:] = pad
    return ids


ENCODER_TYPES = ("bert", "roberta", "distilbert")
# Single-stack token models: the ones that take Hugging Face's attention_mask
# through tfm_model_forward_masked (tfm-run --attention-mask); not T5, not ViT.
MASKED_TYPES = ENCODER_TYPES + ("gpt2", "llama", "mistral", "qwen2", "qwen3", "gemma",
                                "phi3")


def batches(rng, seq, cfg):
    """One full batch and one padded, ragged batch with odd lengths (ViT:
    one batch of three random images); single-stack token models also a
    batch with an attention mask ("left": runs [0:T], [3:T], [T-1:T] and
    [2:T-3], the pad id under the 0s, default position ids) and decoders
    that batch again with generate's position_ids ("left-pos":
    max(cumsum(mask) - 1, 0))."""
    kind = kind_of(cfg)
    if kind == "pixels":
        c = cfg.num_channels
        h, w = (cfg.image_size, cfg.image_size) if isinstance(cfg.image_size, int) \
            else cfg.image_size
        px = rng.uniform(-1, 1, size=(3, c, h, w)).astype(np.float32)
        return [Batch("images", pixels=px)]
    out = []
    pad = cfg.pad_token_id if cfg.pad_token_id is not None else PAD
    for label, lengths in (("full", [seq, seq]), ("ragged", [seq, 1, seq - 4, 7])):
        b = Batch(label, _ids(rng, cfg.vocab_size, lengths, seq, pad),
                  np.array(lengths, dtype=np.int32))
        if kind == "seq2seq":
            dseq = 7
            dl = [dseq] * len(lengths) if label == "full" else [dseq, 3, 1, 6]
            b.dec_ids = _ids(rng, cfg.vocab_size, dl, dseq, pad)
            b.dec_lengths = np.array(dl, dtype=np.int32)
        out.append(b)
    if cfg.model_type in MASKED_TYPES:
        runs = [(0, seq), (3, seq), (seq - 1, seq), (2, seq - 3)]
        label = "left"
        # HF's BERT, RoBERTa and DistilBERT classifiers pool index 0 even
        # when it is padding; tfm pools the first token of each run. The two
        # differ on left-padded rows by design, so these heads get runs that
        # start at 0 (right padding through the mask) instead.
        if cfg.model_type in ENCODER_TYPES and \
                any("SequenceClassification" in a for a in cfg.architectures or []):
            runs, label = [(0, seq), (0, seq - 3), (0, 1), (0, 7)], "mask-r"
        mask = np.zeros((len(runs), seq), dtype=np.int64)
        for i, (s, e) in enumerate(runs):
            mask[i, s:e] = 1
        # From a spawned stream: the full and ragged batches of every
        # variant stay those of the runs recorded in docs/numerics.md.
        ids = _ids(rng.spawn(1)[0], cfg.vocab_size, [seq] * len(runs), seq, pad)
        ids[mask == 0] = pad  # RoBERTa's positions come from the ids
        out.append(Batch(label, ids, mask=mask))
        if cfg.model_type not in ENCODER_TYPES:
            out.append(Batch("left-pos", ids, mask=mask,
                             positions=np.maximum(mask.cumsum(1) - 1, 0)))
    return out


def _torch_call(model, ids, mask, dec_ids=None, dec_mask=None, positions=None):
    kw = {"input_ids": torch.from_numpy(ids.astype(np.int64)),
          "attention_mask": torch.from_numpy(mask.astype(np.int64))}
    if positions is not None:
        kw["position_ids"] = torch.from_numpy(positions.astype(np.int64))
    if dec_ids is not None:
        kw["decoder_input_ids"] = torch.from_numpy(dec_ids.astype(np.int64))
        kw["decoder_attention_mask"] = torch.from_numpy(dec_mask.astype(np.int64))
    with torch.no_grad():
        res = model(**kw)
    out = res.logits if hasattr(res, "logits") else res.last_hidden_state
    return out.double().numpy()


def torch_forward(model, batch, padded=False):
    """The PyTorch output. A full batch runs batched; a padded batch runs one
    unpadded sequence at a time, which is what padding must reproduce (and
    avoids HF's NaN or arbitrary values in rows whose keys are all masked),
    or, with padded=True, as one padded call (longrope decides long or
    short on the padded width). A batch with a mask runs as one call with
    it (what tfm's masked forward must reproduce on the rows under a 1)."""
    if batch.mask is not None:
        return _torch_call(model, batch.ids, batch.mask, positions=batch.positions)
    if batch.pixels is not None:
        with torch.no_grad():
            res = model(pixel_values=torch.from_numpy(batch.pixels).double())
        out = res.logits if hasattr(res, "logits") else res.last_hidden_state
        return out.double().numpy()
    ids, lengths = batch.ids, batch.lengths
    b, t = ids.shape
    seq2seq = batch.dec_ids is not None
    full = (lengths == t).all() and (not seq2seq or
                                     (batch.dec_lengths == batch.dec_ids.shape[1]).all())
    if full or padded:
        mask = (np.arange(t)[None, :] < lengths[:, None]).astype(np.int64)
        dmask = None
        if seq2seq:
            td = batch.dec_ids.shape[1]
            dmask = (np.arange(td)[None, :] < batch.dec_lengths[:, None]).astype(np.int64)
        return _torch_call(model, ids, mask, batch.dec_ids, dmask)
    parts = []
    for i, n in enumerate(lengths):
        if seq2seq:
            m = batch.dec_lengths[i]
            parts.append(_torch_call(model, ids[i:i + 1, :n], np.ones((1, n)),
                                     batch.dec_ids[i:i + 1, :m], np.ones((1, m))))
        else:
            parts.append(_torch_call(model, ids[i:i + 1, :n], np.ones((1, n))))
    if parts[0].ndim == 2:  # classes [1, C]
        return np.concatenate(parts, axis=0)
    rows = batch.row_lengths()
    width = batch.dec_ids.shape[1] if seq2seq else t
    out = np.zeros((b, width, parts[0].shape[-1]))
    for i, (n, p) in enumerate(zip(rows, parts)):
        out[i, :n] = p[0]
    return out


def row_errors(actual, expected, lengths):
    """(max abs error, max error relative to the row's max |expected|) over
    positions < length ([B, T, X]; lengths [B], or a mask [B, T]: positions
    under a 1) or over all rows ([B, C])."""
    if actual.shape != expected.shape:
        raise ValueError("shape %s differs from %s" % (actual.shape, expected.shape))
    err = np.abs(actual.astype(np.float64) - expected)
    rowmax = np.abs(expected).max(axis=-1, keepdims=True)
    rel = err / np.maximum(rowmax, 1e-300)
    if expected.ndim == 3 and lengths is not None:
        if lengths.ndim == 2:
            keep = lengths == 1
        else:
            keep = np.arange(expected.shape[1])[None, :] < lengths[:, None]
        err, rel = err[keep], rel[keep]
    return float(err.max()), float(rel.max())


def reference_forward(folder, batch, weights=None):
    m = tfm_ref.load_model(folder)
    st = tfm_ref.read_safetensors(weights or os.path.join(folder, "model.safetensors"))
    P = tfm_ref.Params(tfm_ref.logical_weights(m, st, folder))
    if batch.pixels is not None:
        out = tfm_ref.forward(m, P, batch.pixels.astype(np.float64).tolist())
    elif batch.mask is not None:
        pos = batch.positions.tolist() if batch.positions is not None else None
        out = tfm_ref.forward_masked(m, P, batch.ids.tolist(), batch.mask.tolist(), pos)
    else:
        dec = batch.dec_ids.tolist() if batch.dec_ids is not None else None
        dlen = batch.dec_lengths.tolist() if batch.dec_lengths is not None else None
        out = tfm_ref.forward(m, P, batch.ids.tolist(), batch.lengths.tolist(), dec, dlen)
    return np.array(out, dtype=np.float64)


def compiled_forward(tools, folder, work, batch):
    """Runs tfmc + tfm-run; returns the float32 output or raises. Image
    models take --pixels (float32 [B, C, H, W]); a batch with a mask
    --attention-mask (and --position-ids) instead of --lengths."""
    so = os.path.join(work, "model.so")
    if not os.path.exists(so):
        subprocess.run([tools["tfmc"], folder, "--emit=so", "-o", so], check=True,
                       capture_output=True, text=True)
    path = lambda n: os.path.join(work, n)
    cmd = [tools["tfm-run"], so, "--weights", os.path.join(folder, "model.safetensors"),
           "--out", path("out.npy")]
    if batch.pixels is not None:
        np.save(path("pixels.npy"), np.ascontiguousarray(batch.pixels, dtype=np.float32))
        cmd += ["--pixels", path("pixels.npy")]
    else:
        np.save(path("ids.npy"), batch.ids)
        cmd += ["--tokens", path("ids.npy")]
        if batch.mask is not None:
            np.save(path("mask.npy"), batch.mask)
            cmd += ["--attention-mask", path("mask.npy")]
            if batch.positions is not None:
                np.save(path("positions.npy"), batch.positions)
                cmd += ["--position-ids", path("positions.npy")]
        else:
            np.save(path("lengths.npy"), batch.lengths)
            cmd += ["--lengths", path("lengths.npy")]
        if batch.dec_ids is not None:
            np.save(path("dec.npy"), batch.dec_ids)
            np.save(path("dec-lengths.npy"), batch.dec_lengths)
            cmd += ["--decoder-tokens", path("dec.npy"),
                    "--decoder-lengths", path("dec-lengths.npy")]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return np.load(path("out.npy"))


def _legacy_rope(folder):
    """Rewrites config.json's rope_parameters in the transformers 4.x
    spelling: a top-level rope_theta and rope_scaling with "type"."""
    path = os.path.join(folder, "config.json")
    with open(path) as f:
        c = json.load(f)
    rp = dict(c.pop("rope_parameters"))
    c["rope_theta"] = rp.pop("rope_theta")
    rp["type"] = rp.pop("rope_type")
    c["rope_scaling"] = rp
    with open(path, "w") as f:
        json.dump(c, f, indent=2, sort_keys=True)


def _untie_t5(model, gen):
    """A T5ForConditionalGeneration with an lm_head of its own and no
    rescale: what 4.x checkpoints with tie_word_embeddings false hold."""
    with torch.no_grad():
        w = torch.randn(model.lm_head.weight.shape, generator=gen, dtype=torch.float64) * 0.2
    model.lm_head.weight = torch.nn.Parameter(w)
    model.config.tie_word_embeddings = False
    model.config.scale_decoder_outputs = False


REF_DIR = os.path.join(ROOT, "test", "Integration", "reference")
GOLDEN_FAMILIES = ("gpt2", "bert", "llama", "mistral", "qwen2")
# How the golden inputs are made; test/Integration/reference/hf-golden.test
# repeats these exact commands.
GOLDEN_SEED, GOLDEN_TOKEN_SEED, GOLDEN_BATCH, GOLDEN_SEQ = 7, 12, 3, 9


def write_golden():
    """Writes Inputs/golden-<family>.npy: the PyTorch float64 output of
    Inputs/hf-<family>.json with the weights and tokens tfm_ref.py makes, so
    that CI can check the reference against PyTorch without PyTorch."""
    ref = os.path.join(ROOT, "scripts", "tfm_ref.py")
    for fam in GOLDEN_FAMILIES:
        cfg_path = os.path.join(REF_DIR, "Inputs", "hf-%s.json" % fam)
        with tempfile.TemporaryDirectory(prefix="tfm-golden-") as folder:
            shutil.copy(cfg_path, os.path.join(folder, "config.json"))
            w = os.path.join(folder, "model.safetensors")
            ids_p, len_p = os.path.join(folder, "ids.npy"), os.path.join(folder, "len.npy")
            subprocess.run([sys.executable, ref, "init", cfg_path, w, "--seed",
                            str(GOLDEN_SEED)], check=True)
            subprocess.run([sys.executable, ref, "tokens", cfg_path, ids_p, "--batch",
                            str(GOLDEN_BATCH), "--seq", str(GOLDEN_SEQ), "--seed",
                            str(GOLDEN_TOKEN_SEED), "--lengths-out", len_p, "--ragged"],
                           check=True)
            cfg = transformers.AutoConfig.from_pretrained(folder)
            cls = getattr(transformers, cfg.architectures[0])
            model = cls.from_pretrained(folder, attn_implementation="sdpa")
            model = model.double().eval()
            make_float64(model)
            batch = Batch("golden", np.load(ids_p), np.load(len_p))
            out = torch_forward(model, batch)
            ref_out = reference_forward(folder, batch)
            a, r = row_errors(ref_out, out, batch.lengths)
            dest = os.path.join(REF_DIR, "Inputs", "golden-%s.npy" % fam)
            np.save(dest, out.astype(np.float64))
            print("%s: wrote %s %s (lengths %s); tfm_ref.py differs by abs %.2e rel %.2e"
                  % (fam, os.path.relpath(dest, ROOT), list(out.shape),
                     batch.lengths.tolist(), a, r))
    return 0


def selected(only, label):
    """--only: comma-separated substrings of the labels to run."""
    return not only or any(o in label for o in only.split(","))


def check_configs(only=None):
    """For each Inputs/hf-*.json: tfm_ref.py init's weights must load into the
    transformers class exactly (no missing, unexpected or mismatched
    tensors), and tfm_ref.py's forward must agree with PyTorch float64 on
    tfm_ref.py's own inputs (a ragged batch; longrope configs also at
    widths on both sides of original_max_position_embeddings)."""
    ref = os.path.join(ROOT, "scripts", "tfm_ref.py")
    failures = 0
    for cfg_path in sorted(glob.glob(os.path.join(REF_DIR, "Inputs", "hf-*.json"))):
        name = os.path.basename(cfg_path)[3:-5]
        if not selected(only, name):
            continue
        with tempfile.TemporaryDirectory(prefix="tfm-cfg-") as folder:
            shutil.copy(cfg_path, os.path.join(folder, "config.json"))
            p = lambda n: os.path.join(folder, n)
            run = lambda *a: subprocess.run([sys.executable, ref] + [str(x) for x in a],
                                            check=True)
            run("init", cfg_path, p("model.safetensors"), "--seed", 7)
            m = tfm_ref.load_model(cfg_path)
            cfg = transformers.AutoConfig.from_pretrained(folder)
            cls = getattr(transformers, cfg.architectures[0])
            model, info = cls.from_pretrained(folder, attn_implementation="sdpa",
                                              output_loading_info=True)
            bad = {k: sorted(v) for k, v in info.items()
                   if k in ("missing_keys", "unexpected_keys", "mismatched_keys") and v}
            model = model.double().eval()
            make_float64(model)
            widths = [9]
            longrope = (m.rope_tables or {}).get("long") is not None
            if longrope:
                sw = m.rope_tables["switch"]
                widths = [sw - 4, sw + 4]
            for w in widths:
                if m.input == "pixels":
                    run("pixels", cfg_path, p("px.npy"), "--batch", 3, "--seed", 12)
                    batch = Batch("pixels", pixels=np.load(p("px.npy")))
                else:
                    run("tokens", cfg_path, p("ids.npy"), "--batch", 3, "--seq", w, "--seed",
                        12, "--lengths-out", p("len.npy"), "--ragged")
                    batch = Batch("ragged", np.load(p("ids.npy")), np.load(p("len.npy")))
                    if m.architecture == "encoder_decoder":
                        run("tokens", cfg_path, p("dec.npy"), "--batch", 3, "--seq", 7,
                            "--seed", 13, "--lengths-out", p("dlen.npy"), "--ragged")
                        batch.dec_ids, batch.dec_lengths = np.load(p("dec.npy")), \
                            np.load(p("dlen.npy"))
                expected = torch_forward(model, batch, padded=longrope)
                got = reference_forward(folder, batch)
                a, r = row_errors(got, expected, batch.row_lengths())
                note = ""
                if bad:
                    note = "LOADING: %s" % bad
                elif r > 1e-9:
                    note = "REFERENCE MISMATCH"
                failures += bool(note)
                print("%-28s width %-3s %-32s ref-vs-torch abs %.2e rel %.2e %s"
                      % ("hf-%s.json" % name, w if m.input != "pixels" else "-",
                         cls.__name__, a, r, note), flush=True)
    print("transformers %s, torch %s: %d failures" % (transformers.__version__,
                                                      torch.__version__, failures))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description="Compare tfm_ref.py and compiled tfm models with Hugging Face PyTorch models.")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--ref-only", action="store_true",
                    help="compare only tfm_ref.py with PyTorch (skip tfmc/tfm-run)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seq", type=int, default=11)
    ap.add_argument("--only", help="comma-separated substrings: run only variants "
                                   "whose label contains one of them")
    ap.add_argument("--keep", help="keep the model folders under this directory")
    ap.add_argument("--write-golden", action="store_true",
                    help="regenerate test/Integration/reference/Inputs/golden-*.npy "
                         "and exit")
    ap.add_argument("--check-configs", action="store_true",
                    help="check tfm_ref.py's weights and forward for "
                         "test/Integration/reference/Inputs/hf-*.json against "
                         "transformers, and exit")
    args = ap.parse_args()
    if args.write_golden:
        return write_golden()
    if args.check_configs:
        return check_configs(args.only)

    tools = {t: os.path.join(args.build_dir, "bin", t) for t in ("tfmc", "tfm-run")}
    have_tools = not args.ref_only and all(os.access(p, os.X_OK) for p in tools.values())
    if not have_tools:
        print("note: %s: skipping the compiled-model comparison; comparing the "
              "reference with PyTorch only"
              % ("--ref-only" if args.ref_only else "%s or %s not found (build tfm first)"
                 % (tools["tfmc"], tools["tfm-run"])))
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    failures = 0
    rows = []
    fmt = lambda v: "-" if v is None else "%.2e" % v
    root = args.keep or tempfile.mkdtemp(prefix="tfm-hf-compare-")
    try:
        for entry in variants():
            label, cfg_cls, model_cls, kw = entry[:4]
            opts = entry[4] if len(entry) > 4 else {}
            if not selected(args.only, label):
                continue
            cfg = cfg_cls(**kw)
            # Eager attention of the LLaMA family runs softmax in float32; SDPA on
            # CPU stays in float64.
            cfg._attn_implementation = "eager" if opts.get("reject") else "sdpa"
            gen = torch.Generator().manual_seed(args.seed)
            model = model_cls(cfg).double().eval()
            randomize(model, gen)
            if opts.get("untie"):
                _untie_t5(model, gen)
            # Weights are stored as float32 (what tfm loads); the float64
            # oracles then run on exactly those values.
            model = model.float()
            folder = os.path.join(root, label)
            model.save_pretrained(folder, safe_serialization=True)
            if opts.get("legacy_rope"):
                _legacy_rope(folder)
            if opts.get("reject"):
                try:
                    tfm_ref.load_model(folder)
                    note, ok = "NOT REJECTED", False
                except tfm_ref.RefError as e:
                    ok = opts["reject"] in str(e)
                    note = ("rejected as expected: " if ok else "WRONG ERROR: ") + \
                        str(e).split(": ", 1)[-1][:90]
                failures += not ok
                rows.append({"variant": label, "batch": "-", "note": note})
                print("%-30s %-8s %s" % (label, "-", note), flush=True)
                continue
            model = model.double()
            make_float64(model)
            work = os.path.join(folder, "run")
            os.makedirs(work, exist_ok=True)
            for batch in batches(rng, opts.get("seq", args.seq), cfg):
                expected = torch_forward(model, batch, opts.get("padded", False))
                ref = reference_forward(folder, batch)
                ra, rr = row_errors(ref, expected, batch.row_lengths())
                line = {"variant": label, "batch": batch.label, "ref_abs": ra,
                        "ref_rel": rr, "tfm_abs": None, "tfm_rel": None, "note": ""}
                if rr > 1e-9:
                    failures += 1
                    line["note"] = "REFERENCE MISMATCH"
                if have_tools:
                    try:
                        got = compiled_forward(tools, folder, work, batch)
                        ta, tr = row_errors(got, expected, batch.row_lengths())
                        line["tfm_abs"], line["tfm_rel"] = ta, tr
                        if tr > 1e-4:
                            failures += 1
                            line["note"] = "TFM MISMATCH"
                    except (subprocess.CalledProcessError, ValueError, OSError) as e:
                        failures += 1
                        msg = getattr(e, "stderr", None) or str(e)
                        line["note"] = "tfm failed: " + \
                            (msg.strip().splitlines() or ["?"])[-1][:120]
                rows.append(line)
                print("%-30s %-8s ref-vs-torch abs %s rel %s | tfm-vs-torch abs %s rel %s %s"
                      % (label, batch.label, fmt(ra), fmt(rr), fmt(line["tfm_abs"]),
                         fmt(line["tfm_rel"]), line["note"]), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print("transformers %s, torch %s: %d comparisons, %d failures"
          % (transformers.__version__, torch.__version__, len(rows), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
