#!/usr/bin/env python3
"""Generation speed: tfm's KV-cache session against Hugging Face on PyTorch.

    python3 bench/generate.py [--quick] [--models gpt2,llama,mqa]
                              [--batches 1,8] [--contexts 128,512,1024,2048]
                              [--threads N] [--steps K] [--rounds R]
                              [--out FILE]
                              [--variant 'NAME:TFMC FLAGS' ...]
                              [--library NAME:PATH ...]

For each model (random weights from transformers, saved as an HF folder and
compiled by `tfmc --generation`, so both sides run the same weights):

  * GPT-2 small shaped (12 x 768, 12 heads, vocab 50257; n_positions 2048
    so that the context reaches 2048);
  * LLaMA shaped, small enough for a 2-core machine (12 x 768, 12 query and
    4 key/value heads (GQA), SwiGLU 2048, vocab 32000, RoPE);
  * `mqa`: the same LLaMA with one key/value head (multi-query attention,
    as in Falcon and Gemma 2B), where one sequence's decode attention is a
    single K/V head: the case split-K decode exists for;

and each batch size B, it fills B sequences chunk by chunk up to each
context length c (a chunked prefill, timed: prefill tokens/s) and, at each
c, times K decode steps of one token per sequence (decode tokens/s =
B / time per step). The peer is transformers' model with its KV cache
(`past_key_values`), driven by the same loop that `generate` runs: one
forward per chunk, then one per decode step, greedy. That loop is a lower
bound of `generate`'s own time (no logits processors, no stopping
criteria), so the ratios below favour the peer; one end-to-end
`model.generate` per model is also timed for reference.

Each `--variant NAME:FLAGS` also compiles the model with those extra tfmc
flags (e.g. `nosplit:--pass-option=tfm-configure-attention:decode-key-splits=1`,
or `bf16:--precision=bf16`) and runs it in the same process, printed as
`tfm@NAME` rows beside the default library's. `--library NAME:PATH` times a
library built elsewhere (by another commit's tfmc: a before/after in one
run) the same way, for every model of `--models` (give one model then).

Every measurement (each tfm library, each batch size, and the HF side)
runs in a process of its own, so that no side's thread pool spins beside
another's. `--rounds R` repeats the whole set R times, interleaved (every
library and HF once per round), and reports each number as the median
over the rounds: on a shared machine whose speed drifts, a slow spell then
hits every side alike instead of one library (the JSON keeps every round).

A decode step at batch 1 reads every weight once, so its bound is the
memory's read bandwidth: the run starts with bench/peak/peak.c (its
`read_*_gbs`, summing a 1 GiB buffer on one and on all cores; the
all-core figure is the bound for any --threads above 1), and each
decode row also prints the weights' bytes over the step time (GB/s, the
matrices at 4 bytes, or 2 under --precision=bf16 / llama.cpp@bf16).

Threads: tfm's run-time count and torch.set_num_threads both get --threads
(default: all cores). Results print as a table and go to
bench/results/generate-<date>-<host>.json; docs/performance.md records them
with the CPU, the date and the commit.

`--llamacpp f32,bf16` also times llama.cpp (through llama-cpp-python, on
the same weights exported to GGUF by bench/llamacpp.py, in f32 and in bf16
with a KV cache of the same type) the same way, printed as `llama.cpp@DTYPE`
rows and as tfm / llama.cpp ratios. The default, `auto`, times f32 where
llama-cpp-python is installed (it has no binary wheel: bench/llamacpp.py
says how to build it) and says so where it is not.
"""

import argparse
import ctypes
import datetime
import json
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VENV_PY = os.path.join(HERE, ".venv", "bin", "python")


def reexec_in_venv():
    if (os.path.exists(VENV_PY) and os.path.realpath(sys.prefix) !=
            os.path.realpath(os.path.join(HERE, ".venv"))
            and not os.environ.get("TFM_BENCH_NO_VENV")):
        os.execv(VENV_PY, [VENV_PY] + sys.argv)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def make_folder(kind, path, seed=0):
    """An HF folder with random weights (config.json + model.safetensors)."""
    import torch
    import transformers
    if os.path.exists(os.path.join(path, "config.json")):
        return
    torch.manual_seed(seed)
    if kind == "gpt2":
        config = transformers.GPT2Config(n_positions=2048, n_embd=768,
                                         n_layer=12, n_head=12,
                                         vocab_size=50257)
        model = transformers.GPT2LMHeadModel(config)
    else:
        config = transformers.LlamaConfig(
            hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
            num_key_value_heads=1 if kind == "mqa" else 4,
            intermediate_size=2048, vocab_size=32000,
            max_position_embeddings=2048, tie_word_embeddings=False)
        model = transformers.LlamaForCausalLM(config)
    model.eval()
    model.save_pretrained(path, safe_serialization=True)


# --- tfm through the C ABI (tfm_runtime.h) -----------------------------------

class TfmSession:
    def __init__(self, library, weights, slots, context, threads):
        lib = ctypes.CDLL(os.path.abspath(library))
        self.lib = lib
        c_void_p, c_int64 = ctypes.c_void_p, ctypes.c_int64
        i32p = ctypes.POINTER(ctypes.c_int32)
        i64p = ctypes.POINTER(ctypes.c_int64)
        f32p = ctypes.POINTER(ctypes.c_float)
        lib.tfm_model_create.argtypes = [ctypes.c_char_p,
                                         ctypes.POINTER(c_void_p)]
        lib.tfm_model_set_num_threads.argtypes = [c_void_p, ctypes.c_int]
        lib.tfm_session_create.argtypes = [c_void_p, c_int64, c_int64,
                                           ctypes.POINTER(c_void_p)]
        lib.tfm_session_prefill.argtypes = [c_void_p, i64p, c_int64, i32p,
                                            c_int64, i32p, f32p, c_int64]
        lib.tfm_session_decode.argtypes = [c_void_p, i64p, c_int64, i32p,
                                           f32p, c_int64]
        lib.tfm_session_destroy.argtypes = [c_void_p]
        lib.tfm_model_destroy.argtypes = [c_void_p]
        lib.tfm_last_error.restype = ctypes.c_char_p
        self.model = c_void_p()
        self.check(lib.tfm_model_create(weights.encode(),
                                        ctypes.byref(self.model)))
        if threads:
            self.check(lib.tfm_model_set_num_threads(self.model, threads))
        self.session = c_void_p()
        self.check(lib.tfm_session_create(self.model, slots, context,
                                          ctypes.byref(self.session)))
        info = ctypes.c_char_p()
        lib.tfm_model_info.argtypes = [c_void_p, ctypes.POINTER(ctypes.c_char_p)]
        self.check(lib.tfm_model_info(self.model, ctypes.byref(info)))
        self.vocab = json.loads(info.value)["vocab_size"]

    def check(self, status):
        if status != 0:
            raise RuntimeError(self.lib.tfm_last_error().decode())

    def prefill(self, ids):
        """ids: numpy int32 [B, T]; every row appends T tokens to its slot."""
        import numpy as np
        b, t = ids.shape
        slots = np.arange(b, dtype=np.int64)
        lengths = np.full(b, t, dtype=np.int32)
        logits = np.empty((b, self.vocab), dtype=np.float32)
        ids = np.ascontiguousarray(ids, dtype=np.int32)
        self.check(self.lib.tfm_session_prefill(
            self.session, slots.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
            b, ids.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)), t,
            lengths.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)),
            logits.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
            logits.size))
        return logits

    def decode(self, ids):
        import numpy as np
        b = ids.shape[0]
        slots = np.arange(b, dtype=np.int64)
        logits = np.empty((b, self.vocab), dtype=np.float32)
        ids = np.ascontiguousarray(ids, dtype=np.int32)
        self.check(self.lib.tfm_session_decode(
            self.session, slots.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
            b, ids.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)),
            logits.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
            logits.size))
        return logits

    def close(self):
        self.lib.tfm_session_destroy(self.session)
        self.lib.tfm_model_destroy(self.model)


def isolated(fn, *args):
    """fn(*args) in a fresh process: each side's thread pools (tfm's libomp,
    PyTorch's OpenMP, NumPy's OpenBLAS) start, spin and stop there, so one
    side's idle spinning threads never compete with the other's for the
    cores (in one process, tfm's batch-8 bf16 steps measured after a
    PyTorch run took 335 ms instead of 27)."""
    import multiprocessing
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(fn, args)


# --- the measurement loop, the same for both sides ----------------------------

def sweep(prefill, decode, batch, contexts, steps, vocab, seed):
    """Fills `batch` sequences up to each context (chunked prefill), then
    times `steps` decode steps there. Returns rows of dicts and the greedy
    tokens of the first decode steps (to compare the two sides)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    rows, first_tokens = [], None
    held = 0
    for c in contexts:
        # Prefill up to c - steps (the decode steps then end at c).
        target = c - steps
        chunk = rng.integers(0, vocab, size=(batch, target - held),
                             dtype=np.int32)
        t0 = time.perf_counter()
        logits = prefill(chunk)
        t_prefill = time.perf_counter() - t0
        prefill_tokens = batch * (target - held)
        held = target
        next_ids = logits.argmax(axis=-1).astype(np.int32)
        times, tokens = [], []
        for _ in range(steps):
            t0 = time.perf_counter()
            logits = decode(next_ids)
            times.append(time.perf_counter() - t0)
            next_ids = logits.argmax(axis=-1).astype(np.int32)
            tokens.append(next_ids.tolist())
        held += steps
        if first_tokens is None:
            first_tokens = tokens
        times.sort()
        step = times[len(times) // 2]
        rows.append({"context": c, "prefill_tokens": prefill_tokens,
                     "prefill_s": t_prefill,
                     "prefill_tok_s": prefill_tokens / t_prefill,
                     "decode_step_s": step, "decode_tok_s": batch / step})
    return rows, first_tokens


def median_rows(rounds, batch):
    """Per context, the median over rounds of the prefill time and of the
    decode step (each on its own), and the rates they give."""
    rows = []
    for i, first in enumerate(rounds[0]):
        def median(key):
            return statistics.median(r[i][key] for r in rounds)
        prefill_s, step = median("prefill_s"), median("decode_step_s")
        rows.append({"context": first["context"],
                     "prefill_tokens": first["prefill_tokens"],
                     "prefill_s": prefill_s,
                     "prefill_tok_s": first["prefill_tokens"] / prefill_s,
                     "decode_step_s": step, "decode_tok_s": batch / step})
    return rows


def run_tfm(library, folder, batch, contexts, steps, threads, vocab):
    weights = os.path.join(folder, "model.safetensors")
    s = TfmSession(library, weights, batch, contexts[-1], threads)
    try:
        # Warm-up (first-touch of the cache pages, thread pool start).
        import numpy as np
        s.prefill(np.zeros((batch, 4), dtype=np.int32))
        s.lib.tfm_session_reset.argtypes = [ctypes.c_void_p, ctypes.c_int64]
        for b in range(batch):
            s.check(s.lib.tfm_session_reset(s.session, b))
        return sweep(s.prefill, s.decode, batch, contexts, steps, vocab, 7)
    finally:
        s.close()


def run_llamacpp(folder, gguf_dir, dtype, batch, contexts, steps, threads,
                 vocab):
    import numpy as np
    import llamacpp
    path = os.path.join(gguf_dir, f"model-{dtype}.gguf")
    # Made again when the exporter is newer than the file.
    if not os.path.exists(path) or (os.path.getmtime(path) <
                                    os.path.getmtime(llamacpp.__file__)):
        llamacpp.export_gguf(folder, path, dtype)
    s = llamacpp.LlamaCppSession(path, batch, contexts[-1], threads,
                                 llamacpp.LlamaCppSession.cache_type(dtype))
    try:
        s.prefill(np.zeros((batch, 4), dtype=np.int32))  # warm-up
        s.reset()
        return sweep(s.prefill, s.decode, batch, contexts, steps, vocab, 7)
    finally:
        s.close()


def weight_bytes(folder, matrix_bytes):
    """Bytes a decode step streams: the matrices (2-D tensors) at
    `matrix_bytes` each element, vectors at 4; of the embedding tables,
    which a step reads one row of, only a tied LM head (GPT-2's wte)."""
    import struct
    with open(os.path.join(folder, "model.safetensors"), "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    total = 0
    untied = "lm_head.weight" in header
    for name, t in header.items():
        if name == "__metadata__" or name.endswith("wpe.weight") or (
                untied and name.endswith("embed_tokens.weight")):
            continue
        count = 1
        for d in t["shape"]:
            count *= d
        total += count * (matrix_bytes if len(t["shape"]) == 2 else 4)
    return total


def cache_bytes(folder, context, element_bytes):
    """Bytes of one sequence's K and V caches at `context` tokens."""
    with open(os.path.join(folder, "config.json")) as f:
        c = json.load(f)
    layers = c.get("n_layer") or c["num_hidden_layers"]
    width = c.get("n_embd") or c["hidden_size"]
    heads = c.get("n_head") or c["num_attention_heads"]
    kv_heads = c.get("num_key_value_heads") or heads
    return 2 * layers * context * (width // heads) * kv_heads * element_bytes


def run_hf(folder, batch, contexts, steps, threads, vocab, dtype="float32"):
    import numpy as np
    import torch
    import transformers
    torch.set_num_threads(threads)
    model = transformers.AutoModelForCausalLM.from_pretrained(
        folder, dtype=getattr(torch, dtype))
    model.eval()
    state = {"past": None}

    def forward(ids):
        with torch.no_grad():
            out = model(torch.from_numpy(ids.astype(np.int64)),
                        past_key_values=state["past"], use_cache=True)
        state["past"] = out.past_key_values
        return out.logits[:, -1, :].float().numpy()

    def decode(next_ids):
        return forward(next_ids.reshape(-1, 1))

    forward(np.zeros((batch, 4), dtype=np.int32))  # warm-up
    state["past"] = None
    rows, tokens = sweep(forward, decode, batch, contexts, steps, vocab, 7)

    # One end-to-end generate, for reference: prompt 128, 32 new tokens.
    ids = torch.from_numpy(np.random.default_rng(3).integers(
        0, vocab, size=(batch, 128)).astype(np.int64))
    with torch.no_grad():
        t0 = time.perf_counter()
        model.generate(ids, attention_mask=torch.ones_like(ids),
                       max_new_tokens=32, min_new_tokens=32, do_sample=False,
                       use_cache=True, pad_token_id=0)
        t_generate = time.perf_counter() - t0
    return rows, tokens, t_generate


def main():
    reexec_in_venv()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="contexts 64,128, batch 1, 4 steps")
    ap.add_argument("--models", default="gpt2,llama")
    ap.add_argument("--batches", default="1,8")
    ap.add_argument("--contexts", default="128,512,1024,2048")
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure every library and HF this many times, "
                    "interleaved, and report the medians")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--tfmc", default=os.path.join(ROOT, "build", "bin",
                                                    "tfmc"))
    ap.add_argument("--work", default=os.path.join(HERE, "work"))
    ap.add_argument("--out")
    ap.add_argument("--hf-dtype", default="float32",
                    choices=["float32", "bfloat16"],
                    help="the peer's dtype (bfloat16: the HF model in "
                    "torch.bfloat16, the peer of tfmc --precision=bf16)")
    ap.add_argument("--variant", action="append", default=[],
                    metavar="NAME:FLAGS",
                    help="also compile with these tfmc flags (split on "
                    "spaces) and time it as tfm@NAME")
    ap.add_argument("--library", action="append", default=[],
                    metavar="NAME:PATH",
                    help="also time this prebuilt library (for the model of "
                    "--models) as tfm@NAME")
    ap.add_argument("--llamacpp", default="auto", metavar="DTYPES",
                    help="time llama.cpp too, in these dtypes (f32,bf16); "
                    "'auto': f32 where llama-cpp-python is installed; "
                    "'none': not at all")
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    variants = [("", [])]
    names = {""}
    for v in args.variant:
        name, sep, flags = v.partition(":")
        if not sep or not name or "/" in name or name in names:
            ap.error(f"--variant {v!r}: expected NAME:FLAGS, a new NAME")
        names.add(name)
        variants.append((name, flags.split()))
    prebuilt = []
    for v in args.library:
        name, sep, path = v.partition(":")
        if not sep or not name or name in names or not os.path.isfile(path):
            ap.error(f"--library {v!r}: expected NAME:PATH, a new NAME and "
                     "an existing file")
        names.add(name)
        prebuilt.append((name, os.path.abspath(path)))
    if prebuilt and "," in args.models:
        ap.error("--library: give one model in --models")
    if args.quick:
        args.contexts, args.batches, args.steps = "64,128", "1", 4
    sys.path.insert(0, HERE)
    import llamacpp
    llama_missing = llamacpp.available()
    if args.llamacpp == "none":
        llama_dtypes = []
    elif args.llamacpp == "auto":
        llama_dtypes = [] if llama_missing else ["f32"]
        if llama_missing:
            print(f"# llama.cpp not measured: {llama_missing} "
                  "(bench/llamacpp.py says how to install it)")
    else:
        llama_dtypes = args.llamacpp.split(",")
        if any(d not in ("f32", "bf16") for d in llama_dtypes):
            ap.error(f"--llamacpp {args.llamacpp!r}: f32 and/or bf16")
        if llama_missing:
            ap.error(f"--llamacpp: llama-cpp-python or gguf missing: "
                     f"{llama_missing}")
    contexts = [int(c) for c in args.contexts.split(",")]
    batches = [int(b) for b in args.batches.split(",")]
    import torch
    import transformers
    os.makedirs(args.work, exist_ok=True)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short",
                             "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    report = {"date": datetime.date.today().isoformat(), "host":
              socket.gethostname(), "cpu": cpu_name(), "cores":
              os.cpu_count(), "threads": args.threads, "commit": commit,
              "torch": torch.__version__, "transformers":
              transformers.__version__, "steps": args.steps,
              "hf_dtype": args.hf_dtype, "llamacpp": llama_dtypes,
              "results": []}
    if llama_dtypes:
        import llama_cpp
        report["llama_cpp_python"] = llama_cpp.__version__
    import run as bench_run
    report["peak"] = bench_run.measure_peak(args.work, 0.5)
    print(f"# {report['cpu']}, {report['cores']} cores, {args.threads} "
          f"threads, torch {torch.__version__}, HF in {args.hf_dtype}, "
          f"commit {commit}")
    print(f"# peak: {json.dumps(report['peak'])}")
    read_gbs = report["peak"].get("read_all_core_gbs" if args.threads > 1
                                  else "read_single_core_gbs")
    for kind in args.models.split(","):
        folder = os.path.join(args.work, kind)
        make_folder(kind, folder)
        libraries = []
        for name, flags in variants:
            library = os.path.join(args.work, kind + (f"@{name}" if name
                                                      else "") + ".so")
            # A library is reused only if this tfmc built it with these
            # flags (a stale one would time yesterday's compiler).
            command = [args.tfmc, folder, "--generation", "--quiet", "-o",
                       library] + flags
            stamp = library + ".cmd"
            fresh = (os.path.exists(library) and os.path.exists(stamp) and
                     open(stamp).read() == " ".join(command) and
                     os.path.getmtime(library) >
                     os.path.getmtime(args.tfmc))
            if not fresh:
                t0 = time.perf_counter()
                subprocess.run(command, check=True)
                with open(stamp, "w") as f:
                    f.write(" ".join(command))
                print(f"# {kind}{'@' + name if name else ''}: tfmc "
                      f"--generation {' '.join(flags)} took "
                      f"{time.perf_counter() - t0:.0f} s")
            libraries.append((name, library))
        libraries += prebuilt
        with open(os.path.join(folder, "config.json")) as f:
            vocab = json.load(f)["vocab_size"]
        for batch in batches:
            tfm_rounds = {name: [] for name, _ in libraries}
            tfm_tokens_of = {}
            hf_rounds, generate_s = [], []
            llama_rounds = {d: [] for d in llama_dtypes}
            llama_tokens_of = {}
            for _ in range(args.rounds):
                for dtype in llama_dtypes:
                    rows, tokens = isolated(run_llamacpp, folder, folder,
                                            dtype, batch, contexts,
                                            args.steps, args.threads, vocab)
                    llama_rounds[dtype].append(rows)
                    llama_tokens_of.setdefault(dtype, tokens)
                for name, library in libraries:
                    rows, tokens = isolated(run_tfm, library, folder, batch,
                                            contexts, args.steps,
                                            args.threads, vocab)
                    tfm_rounds[name].append(rows)
                    tfm_tokens_of.setdefault(name, tokens)
                rows, hf_tokens, t_generate = isolated(
                    run_hf, folder, batch, contexts, args.steps,
                    args.threads, vocab, args.hf_dtype)
                hf_rounds.append(rows)
                generate_s.append(t_generate)
            hf_rows = median_rows(hf_rounds, batch)
            t_generate = statistics.median(generate_s)
            runs = [(name, median_rows(tfm_rounds[name], batch),
                     tfm_tokens_of[name]) for name, _ in libraries]
            for name, tfm_rows, tfm_tokens in runs:
                same = tfm_tokens == hf_tokens
                label = f"tfm@{name}" if name else "tfm"
                print(f"\n## {kind}, batch {batch}, {label} (greedy tokens of "
                      f"the first decode steps "
                      f"{'agree' if same else 'DIFFER'}; HF generate 128+32 "
                      f"tokens: {t_generate:.2f} s)")
                # A prebuilt library's precision is unknown: no GB/s.
                flags = dict(variants).get(name)
                bytes_ = 2 if flags and re.search(r"--precision[= ]bf16",
                                                  " ".join(flags)) else 4
                streamed = (None if flags is None else
                            weight_bytes(folder, bytes_))
                print("| context | prefill tok/s tfm | HF | tfm/HF | decode "
                      "tok/s tfm | HF | tfm/HF | decode ms/step tfm | "
                      f"weights + KV GB/s (read peak {read_gbs}) |")
                print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
                for t, h in zip(tfm_rows, hf_rows):
                    gbs = "-" if streamed is None else "%.1f" % (
                        (streamed + batch * cache_bytes(folder, t["context"],
                                                        bytes_))
                        / t["decode_step_s"] * 1e-9)
                    print(f"| {t['context']} | {t['prefill_tok_s']:.0f} | "
                          f"{h['prefill_tok_s']:.0f} | "
                          f"{t['prefill_tok_s'] / h['prefill_tok_s']:.2f} | "
                          f"{t['decode_tok_s']:.1f} | "
                          f"{h['decode_tok_s']:.1f} | "
                          f"{t['decode_tok_s'] / h['decode_tok_s']:.2f} | "
                          f"{1000 * t['decode_step_s']:.1f} | {gbs} |")
                report["results"].append({
                    "model": kind, "variant": name, "batch": batch,
                    "tfm": tfm_rows, "hf": hf_rows,
                    "tfm_rounds": tfm_rounds[name], "hf_rounds": hf_rounds,
                    "hf_generate_128_32_s": t_generate,
                    "tokens_agree": same})
            for dtype in llama_dtypes:
                rows = median_rows(llama_rounds[dtype], batch)
                same = llama_tokens_of[dtype] == hf_tokens
                print(f"\n## {kind}, batch {batch}, llama.cpp@{dtype} "
                      f"(greedy tokens of the first decode steps "
                      f"{'agree' if same else 'DIFFER'} with HF's)")
                bytes_ = 2 if dtype == "bf16" else 4
                streamed = weight_bytes(folder, bytes_)
                print("| context | prefill tok/s llama.cpp | decode tok/s "
                      "llama.cpp | decode ms/step | weights + KV GB/s | "
                      + " | ".join(f"tfm{'@' + n if n else ''} / llama.cpp "
                                   "prefill, decode"
                                   for n, _, _ in runs) + " |")
                print("| --- " * (5 + len(runs)) + "|")
                for i, l in enumerate(rows):
                    gbs = (streamed + batch * cache_bytes(
                        folder, l["context"], bytes_)) / l["decode_step_s"]
                    ratios = " | ".join(
                        f"{t[i]['prefill_tok_s'] / l['prefill_tok_s']:.2f}, "
                        f"{t[i]['decode_tok_s'] / l['decode_tok_s']:.2f}"
                        for _, t, _ in runs)
                    print(f"| {l['context']} | {l['prefill_tok_s']:.0f} | "
                          f"{l['decode_tok_s']:.1f} | "
                          f"{1000 * l['decode_step_s']:.1f} | "
                          f"{gbs * 1e-9:.1f} | "
                          f"{ratios} |")
                report["results"].append({
                    "model": kind, "peer": f"llama.cpp@{dtype}",
                    "batch": batch, "llamacpp": rows,
                    "llamacpp_rounds": llama_rounds[dtype],
                    "tokens_agree_with_hf": same})
    out = args.out or os.path.join(
        HERE, "results", "generate-%s-%s.json" % (report["date"],
                                                   report["host"]))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(report, f, indent=1)
    print(f"\n# written to {out}")


if __name__ == "__main__":
    main()
