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
#      message otherwise).
#
# Token batches include padded, ragged batches with odd lengths. Errors are
# measured as in tfm_ref.py's `check`: per output row (one position's logits,
# hidden state or class scores), |actual - expected| / max|expected row|.
# Only positions < length are compared.
#
# Needs: pip install -r scripts/requirements-oracle.txt
#
# ===----------------------------------------------------------------------=== #

import argparse
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


def variants():
    """(label, config class, model class, config kwargs)."""
    T = transformers
    llama_kw = dict(hidden_size=D, intermediate_size=FFN, num_hidden_layers=LAYERS,
                    num_attention_heads=HEADS, num_key_value_heads=2,
                    max_position_embeddings=MAXPOS, rms_norm_eps=1e-6)
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
    ]


def randomize(model, gen):
    """Replaces HF's init (std 0.02, gammas 1, biases 0) by values that make
    every tensor matter: gammas 1 +- 0.1, biases +- 0.1, matrices std 0.2,
    embeddings std 1."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1:
                u = torch.rand(p.shape, generator=gen, dtype=torch.float64) * 2 - 1
                base = 1.0 if name.endswith("weight") else 0.0
                p.copy_(base + 0.1 * u)
            else:
                std = 1.0 if ("embed" in name or name.split(".")[-2] in ("wte", "wpe")) \
                    else 0.2
                p.copy_(torch.randn(p.shape, generator=gen, dtype=torch.float64) * std)


def make_float64(model):
    """HF computes RMSNorm and the RoPE tables in float32 even in a float64
    model (they upcast half precision that way). Swap those two pieces for
    float64 versions of the same formulas, so that the PyTorch side is a
    float64 oracle too. The float64 inverse frequencies are checked against
    HF's own float32 ones before use."""
    for module in model.modules():
        cls = type(module).__name__
        if cls.endswith("RMSNorm"):
            eps = getattr(module, "variance_epsilon", getattr(module, "eps", None))

            def rms(h, module=module, eps=eps):
                h = h.double()
                r = torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
                return module.weight.double() * (h * r)
            module.forward = rms
        elif cls.endswith("RotaryEmbedding"):
            cfg = module.config
            params = getattr(cfg, "rope_parameters", None) or {}
            theta = params.get("rope_theta", getattr(cfg, "rope_theta", 10000.0))
            rope_type = params.get("rope_type", "default")
            factor = params.get("factor", 1.0) if rope_type == "linear" else 1.0
            if rope_type not in ("default", "linear"):
                raise SystemExit("hf_compare.py: rope type %r not handled" % rope_type)
            dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
            inv = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
            inv = inv / factor
            if not torch.allclose(inv.float(), module.inv_freq.float(), rtol=1e-6, atol=0):
                raise SystemExit("hf_compare.py: float64 RoPE frequencies of %s differ "
                                 "from HF's" % cls)
            scaling = float(module.attention_scaling)

            def rot(x, position_ids, inv=inv, scaling=scaling):
                freqs = position_ids[..., None].double() * inv
                emb = torch.cat((freqs, freqs), dim=-1)
                return emb.cos() * scaling, emb.sin() * scaling
            module.forward = rot


def batches(rng, seq):
    """(label, ids [B, T] int32, lengths [B] int32): one full batch and one
    padded, ragged batch with odd lengths."""
    out = []
    for label, lengths in (("full", [seq, seq]), ("ragged", [seq, 1, seq - 4, 7])):
        b = len(lengths)
        ids = rng.integers(1, VOCAB, size=(b, seq)).astype(np.int32)
        for i, n in enumerate(lengths):
            ids[i, n:] = PAD
        out.append((label, ids, np.array(lengths, dtype=np.int32)))
    return out


def _torch_call(model, ids, mask):
    with torch.no_grad():
        res = model(input_ids=torch.from_numpy(ids.astype(np.int64)),
                    attention_mask=torch.from_numpy(mask.astype(np.int64)))
    out = res.logits if hasattr(res, "logits") else res.last_hidden_state
    return out.double().numpy()


def torch_forward(model, ids, lengths):
    """The PyTorch output. A full batch runs batched; a padded batch runs one
    unpadded sequence at a time, which is what padding must reproduce (and
    avoids HF's NaN or arbitrary values in rows whose keys are all masked)."""
    b, t = ids.shape
    if (lengths == t).all():
        return _torch_call(model, ids, np.ones_like(ids))
    parts = [_torch_call(model, ids[i:i + 1, :n], np.ones((1, n)))
             for i, n in enumerate(lengths)]
    if parts[0].ndim == 2:  # classes [1, C]
        return np.concatenate(parts, axis=0)
    out = np.zeros((b, t, parts[0].shape[-1]))
    for i, (n, p) in enumerate(zip(lengths, parts)):
        out[i, :n] = p[0]
    return out


def row_errors(actual, expected, lengths):
    """(max abs error, max error relative to the row's max |expected|) over
    positions < length ([B, T, X]) or over all rows ([B, C])."""
    if actual.shape != expected.shape:
        raise ValueError("shape %s differs from %s" % (actual.shape, expected.shape))
    err = np.abs(actual.astype(np.float64) - expected)
    rowmax = np.abs(expected).max(axis=-1, keepdims=True)
    rel = err / np.maximum(rowmax, 1e-300)
    if expected.ndim == 3:
        keep = np.arange(expected.shape[1])[None, :] < lengths[:, None]
        err, rel = err[keep], rel[keep]
    return float(err.max()), float(rel.max())


def reference_forward(folder, ids, lengths):
    m = tfm_ref.load_model(folder)
    st = tfm_ref.read_safetensors(os.path.join(folder, "model.safetensors"))
    P = tfm_ref.Params(tfm_ref.logical_weights(m, st, folder))
    out = tfm_ref.forward(m, P, ids.tolist(), lengths.tolist())
    return np.array(out, dtype=np.float64)


def compiled_forward(tools, folder, work, ids, lengths):
    """Runs tfmc + tfm-run; returns the float32 output or raises."""
    so = os.path.join(work, "model.so")
    if not os.path.exists(so):
        subprocess.run([tools["tfmc"], folder, "--emit=so", "-o", so], check=True,
                       capture_output=True, text=True)
    ids_path, len_path, out_path = (os.path.join(work, n) for n in
                                    ("ids.npy", "lengths.npy", "out.npy"))
    np.save(ids_path, ids)
    np.save(len_path, lengths)
    subprocess.run([tools["tfm-run"], so, "--weights",
                    os.path.join(folder, "model.safetensors"), "--tokens", ids_path,
                    "--lengths", len_path, "--out", out_path],
                   check=True, capture_output=True, text=True)
    return np.load(out_path)


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
            ids, lengths = np.load(ids_p), np.load(len_p)
            out = torch_forward(model, ids, lengths)
            ref_out = reference_forward(folder, ids, lengths)
            a, r = row_errors(ref_out, out, lengths)
            dest = os.path.join(REF_DIR, "Inputs", "golden-%s.npy" % fam)
            np.save(dest, out.astype(np.float64))
            print("%s: wrote %s %s (lengths %s); tfm_ref.py differs by abs %.2e rel %.2e"
                  % (fam, os.path.relpath(dest, ROOT), list(out.shape), lengths.tolist(),
                     a, r))
    return 0


def main():
    ap = argparse.ArgumentParser(description="Compare tfm_ref.py and compiled tfm models with Hugging Face PyTorch models.")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seq", type=int, default=11)
    ap.add_argument("--only", help="run only variants whose label contains this")
    ap.add_argument("--keep", help="keep the model folders under this directory")
    ap.add_argument("--write-golden", action="store_true",
                    help="regenerate test/Integration/reference/Inputs/golden-*.npy "
                         "and exit")
    args = ap.parse_args()
    if args.write_golden:
        return write_golden()

    tools = {t: os.path.join(args.build_dir, "bin", t) for t in ("tfmc", "tfm-run")}
    have_tools = all(os.access(p, os.X_OK) for p in tools.values())
    if not have_tools:
        print("note: %s or %s not found: skipping the compiled-model comparison "
              "(build tfm first); comparing the reference with PyTorch only"
              % (tools["tfmc"], tools["tfm-run"]))
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    failures = 0
    rows = []
    root = args.keep or tempfile.mkdtemp(prefix="tfm-hf-compare-")
    try:
        for label, cfg_cls, model_cls, kw in variants():
            if args.only and args.only not in label:
                continue
            cfg = cfg_cls(**kw)
            # Eager attention of the LLaMA family runs softmax in float32; SDPA on
            # CPU stays in float64.
            cfg._attn_implementation = "sdpa"
            gen = torch.Generator().manual_seed(args.seed)
            model = model_cls(cfg).double().eval()
            randomize(model, gen)
            # Weights are stored as float32 (what tfm loads); the float64
            # oracles then run on exactly those values.
            model = model.float()
            folder = os.path.join(root, label)
            model.save_pretrained(folder, safe_serialization=True)
            model = model.double()
            make_float64(model)
            work = os.path.join(folder, "run")
            os.makedirs(work, exist_ok=True)
            for blabel, ids, lengths in batches(rng, args.seq):
                expected = torch_forward(model, ids, lengths)
                ref = reference_forward(folder, ids, lengths)
                ra, rr = row_errors(ref, expected, lengths)
                line = {"variant": label, "batch": blabel, "ref_abs": ra, "ref_rel": rr,
                        "tfm_abs": None, "tfm_rel": None, "note": ""}
                if rr > 1e-9:
                    failures += 1
                    line["note"] = "REFERENCE MISMATCH"
                if have_tools:
                    try:
                        got = compiled_forward(tools, folder, work, ids, lengths)
                        ta, tr = row_errors(got, expected, lengths)
                        line["tfm_abs"], line["tfm_rel"] = ta, tr
                        if tr > 1e-4:
                            failures += 1
                            line["note"] = "TFM MISMATCH"
                    except (subprocess.CalledProcessError, ValueError, OSError) as e:
                        failures += 1
                        msg = getattr(e, "stderr", None) or str(e)
                        line["note"] = "tfm failed: " + msg.strip().splitlines()[-1][:120]
                rows.append(line)
                fmt = lambda v: "-" if v is None else "%.2e" % v
                print("%-30s %-7s ref-vs-torch abs %s rel %s | tfm-vs-torch abs %s rel %s %s"
                      % (label, blabel, fmt(ra), fmt(rr), fmt(line["tfm_abs"]),
                         fmt(line["tfm_rel"]), line["note"]), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print("transformers %s, torch %s: %d comparisons, %d failures"
          % (transformers.__version__, torch.__version__, len(rows), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
