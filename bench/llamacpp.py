"""llama.cpp as a generation peer of bench/generate.py.

Two pieces, both used only by bench/generate.py (never by the test suite):

  * `export_gguf(folder, path, dtype)` writes the HF folder's random-weight
    GPT-2 or LLaMA model (the one tfm compiles) as a GGUF file, the way
    llama.cpp's own converter lays these two architectures out: GPT-2's
    Conv1D weights transposed to [out, in], LLaMA's Q and K rows permuted
    from Hugging Face's rotate-half order to llama.cpp's interleaved RoPE
    pairs. Norm weights and biases stay f32 in a bf16 file, as the
    converter keeps 1-D tensors (and GPT-2's position table). The tokenizer is a stand-in (GPT-2's 256
    byte symbols, then placeholder strings up to the vocabulary size): the
    benchmark feeds token ids, never text, and llama.cpp only needs a
    vocabulary it can load.
  * `LlamaCppSession` drives llama.cpp's C API through llama-cpp-python's
    low-level bindings with one sequence per slot (n_seq_max = batch, a
    KV cache of its own per sequence), so that a prefill of B prompts and a
    decode step of B tokens are each one `llama_decode` call, as tfm's
    session does them.

llama-cpp-python has no binary wheel for Linux on PyPI; pip builds it from
its source distribution (a CPU build of llama.cpp for the host's
instruction set, about half an hour on a 2-core machine):

    CMAKE_ARGS="-DGGML_NATIVE=ON -DLLAMA_BUILD_TESTS=OFF \\
      -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF" \\
      bench/.venv/bin/pip install llama-cpp-python gguf
"""

import ctypes
import json
import os

# ggml.h's enum ggml_type (llama-cpp-python exports F32 and F16, not BF16).
GGML_TYPE_F32 = 0
GGML_TYPE_BF16 = 30


def available():
    """None if llama-cpp-python and gguf import, else why not."""
    try:
        import gguf  # noqa: F401
        import llama_cpp  # noqa: F401
    except Exception as e:  # noqa: BLE001 - any import failure: not there
        return f"{e.__class__.__name__}: {e}"
    return None


def _byte_symbols():
    """GPT-2's byte-level BPE alphabet: each byte as a printable character."""
    printable = (list(range(ord("!"), ord("~") + 1)) +
                 list(range(ord("\xa1"), ord("\xac") + 1)) +
                 list(range(ord("\xae"), ord("\xff") + 1)))
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return [chars[b] for b in range(256)]


def _llama_permute(w, n_head):
    """Hugging Face's rotate-half rows of one head -> interleaved pairs."""
    return (w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def export_gguf(folder, path, dtype="f32"):
    """Writes the model of `folder` (config.json, model.safetensors) to
    `path` as GGUF with `dtype` ("f32" or "bf16") matrices."""
    import gguf
    import numpy as np
    from safetensors.numpy import load_file

    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    tensors = load_file(os.path.join(folder, "model.safetensors"))
    kind = config["model_type"]
    if kind not in ("gpt2", "llama"):
        raise ValueError(f"{folder}: no GGUF export for model_type {kind!r}")
    tmp = path + ".tmp"
    writer = gguf.GGUFWriter(tmp, kind)
    bf16 = dtype == "bf16"
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_BF16 if bf16 else
                         gguf.LlamaFileType.ALL_F32)
    vocab = config["vocab_size"]

    def add(name, array, keep_f32=False):
        array = np.ascontiguousarray(array, dtype=np.float32)
        if bf16 and array.ndim == 2 and not keep_f32:
            writer.add_tensor(name, gguf.quants.quantize(
                array, gguf.GGMLQuantizationType.BF16),
                raw_dtype=gguf.GGMLQuantizationType.BF16)
        else:
            writer.add_tensor(name, array)

    if kind == "gpt2":
        d, layers = config["n_embd"], config["n_layer"]
        writer.add_context_length(config["n_positions"])
        writer.add_embedding_length(d)
        writer.add_feed_forward_length(config.get("n_inner") or 4 * d)
        writer.add_block_count(layers)
        writer.add_head_count(config["n_head"])
        writer.add_layer_norm_eps(config["layer_norm_epsilon"])
        prefix = "transformer." if "transformer.wte.weight" in tensors else ""
        t = lambda n: tensors[prefix + n]  # noqa: E731
        add("token_embd.weight", t("wte.weight"))
        # f32 in every file, as llama.cpp's converter keeps it.
        add("position_embd.weight", t("wpe.weight"), keep_f32=True)
        for i in range(layers):
            h = f"h.{i}."
            for hf, ours in (("ln_1", "attn_norm"), ("ln_2", "ffn_norm")):
                add(f"blk.{i}.{ours}.weight", t(h + hf + ".weight"))
                add(f"blk.{i}.{ours}.bias", t(h + hf + ".bias"))
            for hf, ours in (("attn.c_attn", "attn_qkv"),
                             ("attn.c_proj", "attn_output"),
                             ("mlp.c_fc", "ffn_up"),
                             ("mlp.c_proj", "ffn_down")):
                add(f"blk.{i}.{ours}.weight", t(h + hf + ".weight").T)
                add(f"blk.{i}.{ours}.bias", t(h + hf + ".bias"))
        add("output_norm.weight", t("ln_f.weight"))
        add("output_norm.bias", t("ln_f.bias"))
        # GPT-2 ties its LM head to the token embedding; llama.cpp reuses
        # token_embd when `output` is absent.
    else:
        d, layers = config["hidden_size"], config["num_hidden_layers"]
        heads = config["num_attention_heads"]
        kv_heads = config.get("num_key_value_heads") or heads
        writer.add_context_length(config["max_position_embeddings"])
        writer.add_embedding_length(d)
        writer.add_feed_forward_length(config["intermediate_size"])
        writer.add_block_count(layers)
        writer.add_head_count(heads)
        writer.add_head_count_kv(kv_heads)
        writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
        # transformers 5 keeps it in rope_parameters.
        theta = config.get("rope_theta") or config.get(
            "rope_parameters", {}).get("rope_theta", 10000.0)
        writer.add_rope_freq_base(theta)
        writer.add_rope_dimension_count(config.get("head_dim") or d // heads)
        writer.add_vocab_size(vocab)
        t = lambda n: tensors["model." + n]  # noqa: E731
        add("token_embd.weight", t("embed_tokens.weight"))
        for i in range(layers):
            h = f"layers.{i}."
            add(f"blk.{i}.attn_norm.weight", t(h + "input_layernorm.weight"))
            add(f"blk.{i}.ffn_norm.weight",
                t(h + "post_attention_layernorm.weight"))
            add(f"blk.{i}.attn_q.weight",
                _llama_permute(t(h + "self_attn.q_proj.weight"), heads))
            add(f"blk.{i}.attn_k.weight",
                _llama_permute(t(h + "self_attn.k_proj.weight"), kv_heads))
            add(f"blk.{i}.attn_v.weight", t(h + "self_attn.v_proj.weight"))
            add(f"blk.{i}.attn_output.weight", t(h + "self_attn.o_proj.weight"))
            for hf, ours in (("gate_proj", "ffn_gate"), ("up_proj", "ffn_up"),
                             ("down_proj", "ffn_down")):
                add(f"blk.{i}.{ours}.weight", t(h + "mlp." + hf + ".weight"))
        add("output_norm.weight", t("norm.weight"))
        head = tensors.get("lm_head.weight")
        if head is not None:
            add("output.weight", head)

    symbols = _byte_symbols()
    tokens = symbols + [f"<t{i}>" for i in range(len(symbols), vocab)]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list(tokens[:vocab])
    writer.add_token_types([gguf.TokenType.NORMAL] * vocab)
    writer.add_token_merges([symbols[ord(" ")] + " " + symbols[ord("t")]])
    writer.add_bos_token_id(0)
    writer.add_eos_token_id(0)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(tmp, path)


_QUIET = None


class LlamaCppSession:
    """`batch` sequences of up to `context` tokens each; prefill(ids[B, T])
    appends T tokens to every sequence, decode(ids[B]) one; both return the
    last position's logits of every sequence, float32 [B, vocab]."""

    def __init__(self, gguf_path, batch, context, threads, cache_type):
        import llama_cpp as L
        self.L = L
        global _QUIET
        if _QUIET is None:  # llama.cpp logs every load at length: not here
            _QUIET = L.llama_log_callback(lambda level, text, data: None)
            L.llama_log_set(_QUIET, ctypes.c_void_p())
        L.llama_backend_init()
        mparams = L.llama_model_default_params()
        self.model = L.llama_model_load_from_file(gguf_path.encode(), mparams)
        if not self.model:
            raise RuntimeError(f"{gguf_path}: llama.cpp could not load it")
        cparams = L.llama_context_default_params()
        cparams.n_ctx = batch * context
        cparams.n_batch = batch * context
        cparams.n_seq_max = batch
        cparams.n_threads = threads
        cparams.n_threads_batch = threads
        cparams.kv_unified = False
        cparams.type_k = cache_type
        cparams.type_v = cache_type
        self.ctx = L.llama_init_from_model(self.model, cparams)
        if not self.ctx:
            raise RuntimeError(f"{gguf_path}: llama.cpp could not create a "
                               f"context for {batch} x {context} tokens")
        self.vocab = L.llama_vocab_n_tokens(L.llama_model_get_vocab(self.model))
        self.batch_size = batch
        self.capacity = batch * context
        self.cbatch = L.llama_batch_init(self.capacity, 0, 1)
        self.positions = [0] * batch

    @staticmethod
    def cache_type(dtype):
        """The KV cache type matching tfm's: f32, or bf16 beside bf16
        weights (tfm keeps a 16-bit cache under --precision=bf16)."""
        return GGML_TYPE_BF16 if dtype == "bf16" else GGML_TYPE_F32

    def _run(self, ids):
        import numpy as np
        b, t = ids.shape
        batch = self.cbatch
        n = 0
        for s in range(b):
            for j in range(t):
                batch.token[n] = int(ids[s, j])
                batch.pos[n] = self.positions[s] + j
                batch.n_seq_id[n] = 1
                batch.seq_id[n][0] = s
                batch.logits[n] = 1 if j == t - 1 else 0
                n += 1
        batch.n_tokens = n
        status = self.L.llama_decode(self.ctx, batch)
        if status != 0:
            raise RuntimeError(f"llama_decode returned {status}")
        logits = np.empty((b, self.vocab), dtype=np.float32)
        for s in range(b):
            ptr = self.L.llama_get_logits_ith(self.ctx, s * t + t - 1)
            logits[s] = np.ctypeslib.as_array(
                ctypes.cast(ptr, ctypes.POINTER(ctypes.c_float)),
                shape=(self.vocab,))
            self.positions[s] += t
        return logits

    def prefill(self, ids):
        return self._run(ids)

    def decode(self, ids):
        return self._run(ids.reshape(-1, 1))

    def reset(self):
        self.L.llama_memory_clear(self.L.llama_get_memory(self.ctx), True)
        self.positions = [0] * self.batch_size

    def close(self):
        self.L.llama_batch_free(self.cbatch)
        self.L.llama_free(self.ctx)
        self.L.llama_model_free(self.model)
