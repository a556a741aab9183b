#!/usr/bin/env python3
"""Peer measurements for bench/run.py, one thread setting per process.

run.py starts this worker with the thread count fixed in the environment
(OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MKL_NUM_THREADS) before NumPy,
PyTorch or ONNX Runtime load their thread pools, feeds it a JSON request on
stdin ({"threads": N, "timing": {...}, "cases": [...]}) and reads one JSON
object back: for every case, one entry per peer with median/min/p90 seconds,
or {"skipped": reason}.

Every peer computes the same function as the tfm kernel of its case, on
inputs of the same shape; timing follows tfm-bench (warm-up calls, then up
to `iters` timed calls bounded by `max_time`, median/min/p90 of the calls).
"""

import json
import math
import os
import sys
import time


def stats(times):
    s = sorted(times)
    n = len(s)
    med = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    p90 = s[max(1, math.ceil(0.9 * n)) - 1]
    return {"median_s": med, "min_s": s[0], "p90_s": p90, "iters": n}


def time_calls(fn, timing):
    for _ in range(timing["warmup"]):
        fn()
    times, total = [], 0.0
    for i in range(timing["iters"]):
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        times.append(dt)
        total += dt
        if total >= timing["max_time"] and i + 1 >= timing["min_iters"]:
            break
    return stats(times)


def try_import(name):
    try:
        return __import__(name), None
    except Exception as e:  # noqa: BLE001 - any import failure means "absent"
        return None, f"{name} unavailable: {e.__class__.__name__}: {e}"


np, NP_ERR = try_import("numpy")
torch, TORCH_ERR = try_import("torch")
ort, ORT_ERR = try_import("onnxruntime")


def gelu_tanh_np(x):
    return 0.5 * x * (1.0 + np.tanh(np.float32(math.sqrt(2 / math.pi)) *
                                    (x + np.float32(0.044715) * x * x * x)))


def torch_dtype(c):
    """The dtype a case runs its torch peer in: bf16 for --precision bf16
    (what a user who wants speed on a CPU runs), else f32."""
    return torch.bfloat16 if c.get("precision") == "bf16" else torch.float32


def f32_only(c):
    """A skip record for peers that have no bf16 path (NumPy, ONNX Runtime's
    CPU provider for these graphs), None when the case is f32."""
    if c.get("precision", "f32") != "f32":
        return {"skipped": f"no {c['precision']} path"}
    return None


# ---------------------------------------------------------------- attention

def attention_torch(c, threads, timing):
    if torch is None:
        return {"skipped": TORCH_ERR}
    g = torch.Generator().manual_seed(0)
    b, h, hkv, t, d = c["batch"], c["heads"], c["kv_heads"], c["seq"], c["head_dim"]
    tk = c.get("kv_seq", t)
    dt = torch_dtype(c)
    q = (torch.rand(b, h, t, d, generator=g) * 2 - 1).to(dt)
    k = (torch.rand(b, hkv, tk, d, generator=g) * 2 - 1).to(dt)
    v = (torch.rand(b, hkv, tk, d, generator=g) * 2 - 1).to(dt)
    gqa = hkv != h
    # SDPA's is_causal aligns the mask top-left; a decode row (the last
    # query, Tq < Tk) sees every key, so it runs unmasked.
    causal = c["causal"] and tk == t
    F = torch.nn.functional

    def fn():
        with torch.inference_mode():
            if gqa:
                F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                               enable_gqa=True)
            else:
                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return time_calls(fn, timing)


def attention_onnx_model(c):
    from onnx import TensorProto, helper, numpy_helper
    b, h, t, d = c["batch"], c["heads"], c["seq"], c["head_dim"]
    scale = 1.0 / math.sqrt(d)
    shape = [b, h, t, d]
    nodes = [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Mul", ["s", "scale"], ["ss"]),
    ]
    inits = [numpy_helper.from_array(np.array(scale, dtype=np.float32), "scale")]
    scores = "ss"
    if c["causal"]:
        mask = np.triu(np.full((t, t), -np.inf, dtype=np.float32), k=1)
        inits.append(numpy_helper.from_array(mask, "mask"))
        nodes.append(helper.make_node("Add", ["ss", "mask"], ["sm"]))
        scores = "sm"
    nodes += [
        helper.make_node("Softmax", [scores], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["o"]),
    ]
    graph = helper.make_graph(
        nodes, "attention",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape)
         for n in ("q", "k", "v")],
        [helper.make_tensor_value_info("o", TensorProto.FLOAT, shape)],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def attention_ort(c, threads, timing):
    if f32_only(c):
        return f32_only(c)
    if ort is None:
        return {"skipped": ORT_ERR}
    if c["kv_heads"] != c["heads"]:
        return {"skipped": "grouped K/V not expressed in the ONNX graph"}
    score_bytes = 4 * c["batch"] * c["heads"] * c["seq"] * c["seq"]
    if score_bytes > 2 << 30:
        return {"skipped": f"the unfused graph needs {score_bytes / 2**30:.1f} GiB of scores"}
    try:
        model = attention_onnx_model(c)
    except Exception as e:  # noqa: BLE001
        return {"skipped": f"onnx unavailable: {e}"}
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    shape = (c["batch"], c["heads"], c["seq"], c["head_dim"])
    feeds = {n: rng.uniform(-1, 1, shape).astype(np.float32) for n in ("q", "k", "v")}
    return time_calls(lambda: sess.run(None, feeds), timing)


# ------------------------------------------------------------------- GEMMs

def linear_numpy(c, threads, timing):
    if f32_only(c):
        return f32_only(c)
    if np is None:
        return {"skipped": NP_ERR}
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (c["m"], c["k"])).astype(np.float32)
    w = rng.uniform(-1, 1, (c["n"], c["k"])).astype(np.float32)
    wt = w.T  # a view: sgemm with a transposed operand, as tfm reads W
    bias = rng.uniform(-1, 1, (c["n"],)).astype(np.float32)
    out = np.empty((c["m"], c["n"]), dtype=np.float32)

    def fn():
        np.matmul(x, wt, out=out)
        if c["bias"]:
            np.add(out, bias, out=out)
    return time_calls(fn, timing)


def linear_torch(c, threads, timing):
    if torch is None:
        return {"skipped": TORCH_ERR}
    g = torch.Generator().manual_seed(0)
    dt = torch_dtype(c)
    x = torch.rand(c["m"], c["k"], generator=g).to(dt)
    w = torch.rand(c["n"], c["k"], generator=g).to(dt)
    bias = torch.rand(c["n"], generator=g).to(dt) if c["bias"] else None

    def fn():
        with torch.inference_mode():
            torch.nn.functional.linear(x, w, bias)
    return time_calls(fn, timing)


def ffn_numpy(c, threads, timing):
    if f32_only(c):
        return f32_only(c)
    if np is None:
        return {"skipped": NP_ERR}
    if c["activation"] != "gelu_tanh":
        return {"skipped": "the NumPy peer implements gelu_tanh only"}
    rng = np.random.default_rng(0)
    t, d, f = c["tokens"], c["d_model"], c["hidden"]
    x = rng.uniform(-1, 1, (t, d)).astype(np.float32)
    wu = rng.uniform(-1, 1, (f, d)).astype(np.float32) / np.float32(math.sqrt(d))
    wd = rng.uniform(-1, 1, (d, f)).astype(np.float32) / np.float32(math.sqrt(f))
    bu = np.zeros(f, np.float32)
    bd = np.zeros(d, np.float32)

    def fn():
        hdn = x @ wu.T
        hdn += bu
        y = gelu_tanh_np(hdn) @ wd.T
        y += bd
    return time_calls(fn, timing)


def ffn_torch(c, threads, timing):
    if torch is None:
        return {"skipped": TORCH_ERR}
    acts = {"gelu_tanh": lambda z: torch.nn.functional.gelu(z, approximate="tanh"),
            "gelu": torch.nn.functional.gelu, "relu": torch.relu,
            "silu": torch.nn.functional.silu, "tanh": torch.tanh}
    if c["activation"] not in acts:
        return {"skipped": f"no torch peer for {c['activation']}"}
    act = acts[c["activation"]]
    g = torch.Generator().manual_seed(0)
    t, d, f = c["tokens"], c["d_model"], c["hidden"]
    dt = torch_dtype(c)
    x = torch.rand(t, d, generator=g).to(dt)
    wu, bu = torch.rand(f, d, generator=g).to(dt), torch.rand(f, generator=g).to(dt)
    wd, bd = torch.rand(d, f, generator=g).to(dt), torch.rand(d, generator=g).to(dt)
    F = torch.nn.functional

    def fn():
        with torch.inference_mode():
            F.linear(act(F.linear(x, wu, bu)), wd, bd)
    return time_calls(fn, timing)


# ------------------------------------------------------------------- model

def model_torch(c, threads, timing):
    """PyTorch eager forward of the Hugging Face model saved in c["dir"]
    (the same weights tfm compiled); compares the logits with tfm's when
    tfm-bench saved them."""
    if torch is None:
        return {"skipped": TORCH_ERR}
    tr, err = try_import("transformers")
    if tr is None:
        return {"skipped": err}
    model = tr.AutoModelForCausalLM.from_pretrained(c["dir"], dtype=torch_dtype(c))
    model.eval()
    ids_path, out_path = c.get("ids"), c.get("tfm_output")
    compare = None
    if ids_path and out_path and os.path.exists(ids_path) and os.path.exists(out_path):
        ids = torch.from_numpy(np.load(ids_path).astype(np.int64))
        with torch.inference_mode():
            ref = model(ids).logits.float().numpy()
        got = np.load(out_path)
        diff = np.abs(got.astype(np.float64) - ref.astype(np.float64))
        compare = {"max_abs_err": float(diff.max()),
                   "max_abs_ref": float(np.abs(ref).max()),
                   "argmax_agreement": float((got.argmax(-1) == ref.argmax(-1)).mean())}
    else:
        g = torch.Generator().manual_seed(1)
        ids = torch.randint(0, model.config.vocab_size, (c["batch"], c["seq"]), generator=g)

    def fn():
        with torch.inference_mode():
            model(ids)
    r = time_calls(fn, timing)
    r["attn_implementation"] = getattr(model.config, "_attn_implementation", None)
    if compare:
        r["tfm_vs_torch"] = compare
    return r


def make_gpt2(c, threads, timing):
    """Random-init GPT-2 (small shape) saved as safetensors, for tfmc."""
    if torch is None:
        return {"skipped": TORCH_ERR}
    tr, err = try_import("transformers")
    if tr is None:
        return {"skipped": err}
    if os.path.exists(os.path.join(c["dir"], "config.json")):
        return {"dir": c["dir"], "cached": True}
    torch.manual_seed(0)
    cfg = tr.GPT2Config(n_layer=c["layers"], n_embd=c["d_model"], n_head=c["heads"],
                        n_positions=c["max_seq"], vocab_size=c["vocab"])
    model = tr.GPT2LMHeadModel(cfg).eval()
    model.save_pretrained(c["dir"], safe_serialization=True)
    return {"dir": c["dir"], "cached": False}


PEERS = {
    "attention": {"pytorch_sdpa": attention_torch, "onnxruntime": attention_ort},
    "decode": {"pytorch_sdpa": attention_torch},
    "linear": {"numpy_sgemm": linear_numpy, "pytorch": linear_torch},
    "ffn": {"numpy_sgemm": ffn_numpy, "pytorch": ffn_torch},
    "model": {"pytorch_eager": model_torch},
    "make_gpt2": {"make": make_gpt2},
}


def main():
    req = json.load(sys.stdin)
    threads, timing = req["threads"], req["timing"]
    if torch is not None:
        torch.set_num_threads(threads)
    out = []
    for case in req["cases"]:
        res = {}
        for name, fn in PEERS[case["bench"]].items():
            if case.get("peers") and name not in case["peers"]:
                continue
            try:
                res[name] = fn(case, threads, timing)
            except Exception as e:  # noqa: BLE001 - report, keep going
                res[name] = {"skipped": f"failed: {e.__class__.__name__}: {e}"}
        out.append(res)
    versions = {"python": sys.version.split()[0]}
    for mod in (np, torch, ort):
        if mod is not None:
            versions[mod.__name__] = mod.__version__
    if np is not None:
        try:
            cfg = np.show_config(mode="dicts")
            blas = cfg.get("Build Dependencies", {}).get("blas", {})
            versions["numpy_blas"] = f"{blas.get('name')} {blas.get('version')}"
        except Exception:  # noqa: BLE001
            pass
    json.dump({"results": out, "versions": versions}, sys.stdout)


if __name__ == "__main__":
    main()
