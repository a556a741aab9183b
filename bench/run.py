#!/usr/bin/env python3
"""tfm against its peers, in one run, on the same shapes.

    python3 bench/run.py [--quick] [--budget S] [--tfm-bench PATH] [--out FILE]
                         [--precision f32|bf16]

Measures, on this machine and in this run:
  * the f32 FMA peak (bench/peak/peak.c, clang -O3 -march=native), one core
    and all cores, and where the CPU has them the AVX512-BF16 and AMX-BF16
    peaks (bf16 rows are reported against the AMX one, else AVX512-BF16);
  * attention (f32, D = 64 and 128, T = 512 ... 8192, causal or not): tfm
    (tools/tfm-bench), PyTorch scaled_dot_product_attention, ONNX Runtime
    (an unfused QK^T/softmax/PV graph);
  * decode attention (one query row against 1k-16k cached keys, MQA and
    GQA, batch 1), with and without tfm's split-K: tfm, PyTorch SDPA;
  * GEMMs at GPT-2 small's linear shapes and its FFN block: tfm, NumPy
    (OpenBLAS sgemm), PyTorch;
  * a GPT-2-small-shaped model (random init from transformers, saved as
    safetensors, compiled by the tfmc path) at seq 512 (16 with --quick),
    batch 1: tfm through
    the C ABI against PyTorch eager on the same weights,
each with 1 thread and with all threads (for tfm: the run-time thread
count, tfm-bench --threads; the code is compiled multithreaded). It prints a table of median times,
GFLOP/s and ratios, and writes everything to bench/results/<date>-<host>.json.

--precision bf16 runs every case with tfm-bench --precision bf16 (on a CPU
with AMX, tile kernels) against PyTorch in bf16 (tensors and the model in
torch.bfloat16: oneDNN's AMX or AVX512-BF16 kernels); NumPy and ONNX
Runtime have no bf16 path and are listed as skipped.

Ratios: "tfm/peer" is peer time / tfm time (above 1: tfm is faster);
"tfm/peak" is tfm GFLOP/s over the measured peak for the same thread count.

Time budget: tfm's generated code is timed only where the estimate (FLOPs
over tfm's rate measured earlier in this run on the same kind of op) stays
under --budget seconds per call; other sizes are listed as skipped with the
estimate. Every tfm-bench call also runs under a hard timeout.

Peers run in worker processes (bench/peers.py), so that each library's
thread pool is sized before it starts: by default one worker per case, run
right after that case's tfm run (tfm and its peers then see the same load
on a shared machine; every result records the load average), or one per
thread count after all tfm cases with --batch-peers. Run it with the
virtual environment of bench/requirements.txt (bench/.venv); run.py switches
to bench/.venv/bin/python by itself when that exists.
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VENV_PY = os.path.join(HERE, ".venv", "bin", "python")
CLANG = "/usr/lib/llvm-22/bin/clang"


def reexec_in_venv():
    if (os.path.exists(VENV_PY) and os.path.realpath(sys.prefix) !=
            os.path.realpath(os.path.join(HERE, ".venv"))
            and not os.environ.get("TFM_BENCH_NO_VENV")):
        os.execv(VENV_PY, [VENV_PY] + sys.argv)


# ------------------------------------------------------------------ machine

def machine_info():
    info = {"host": socket.gethostname(), "platform": platform.platform(),
            "cpus": os.cpu_count()}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        fields = dict(re.findall(r"^([^:]+):\s*(.*)$", out, re.M))
        info["model"] = fields.get("Model name")
        info["cores_per_socket"] = fields.get("Core(s) per socket")
        info["threads_per_core"] = fields.get("Thread(s) per core")
        info["l2"] = fields.get("L2 cache")
        info["l3"] = fields.get("L3 cache")
        flags = fields.get("Flags", "").split()
        info["isa"] = [f for f in ("sse4_2", "avx", "avx2", "fma", "avx512f",
                                   "avx512bw", "avx512vl", "avx512_bf16",
                                   "avx512_fp16", "amx_tile") if f in flags]
    except OSError:
        pass
    try:
        info["loadavg_at_start"] = os.getloadavg()
    except OSError:
        pass
    try:
        info["git_commit"] = subprocess.run(
            ["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain",
                                "--untracked-files=no", "--", "lib", "include",
                                "dialects", "tools"],
                               capture_output=True, text=True).stdout.split("\n")
        info["git_uncommitted_compiler_files"] = [l[3:] for l in dirty if l.strip()]
    except OSError:
        pass
    return info


def measure_peak(build_dir, seconds):
    exe = os.path.join(build_dir, "peak")
    src = os.path.join(HERE, "peak", "peak.c")
    r = subprocess.run([CLANG, "-O3", "-march=native", "-pthread", src, "-o", exe],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return {"error": f"building {src} failed: {r.stderr.strip()}"}
    r = subprocess.run([exe, str(seconds)], capture_output=True, text=True)
    if r.returncode != 0:
        return {"error": f"peak failed: {r.stderr.strip()}"}
    return json.loads(r.stdout)


# -------------------------------------------------------------------- cases

def attention_flops(c):
    return 4.0 * c["batch"] * c["heads"] * c["seq"] * c["seq"] * c["head_dim"] * (
        0.5 if c["causal"] else 1.0)


def gpt2_flops(layers, d, ffn, vocab, seq, batch):
    per_token = layers * (2 * d * 3 * d + 2 * d * d + 4 * d * (seq + 1) / 2
                          + 2 * d * ffn * 2) + 2 * d * vocab
    return per_token * seq * batch


def make_cases(quick, model_seq=None):
    cases = []
    if quick:
        att = [(64, 12, 512), (64, 12, 2048), (128, 8, 512), (128, 8, 2048)]
    else:
        att = [(d, h, t) for d, h in ((64, 12), (128, 8))
               for t in (512, 1024, 2048, 4096, 8192)]
    for d, h, t in att:
        for causal in (False, True):
            c = {"bench": "attention", "batch": 1, "heads": h, "kv_heads": h,
                 "seq": t, "head_dim": d, "causal": causal}
            c["flops"] = attention_flops(c)
            c["label"] = f"attn D={d} H={h} T={t}{' causal' if causal else ''}"
            cases.append(c)
    # Decode attention: one query row per head against a long cache, MQA
    # (8 query heads on one K/V head) and LLaMA-3-8B's GQA (32 on 8), at
    # batch 1; tfm split-K (the default: ceil(threads / K/V heads) key
    # ranges) and without it (decode-key-splits=1).
    dec = [(64, 8, 1, 4096), (64, 8, 1, 16384), (128, 32, 8, 4096)]
    if not quick:
        dec = [(64, 8, 1, 1024)] + dec + [(128, 32, 8, 16384)]
    for d, h, hkv, tk in dec:
        for split in (True, False):
            c = {"bench": "decode", "batch": 1, "heads": h, "kv_heads": hkv,
                 "seq": 1, "kv_seq": tk, "head_dim": d, "causal": True,
                 "flops": 4.0 * h * tk * d,
                 "label": f"decode D={d} H={h}/{hkv} Tk={tk}"
                          f"{'' if split else ' no split-K'}"}
            if not split:
                c["pass_option"] = "tfm-configure-attention:decode-key-splits=1"
            cases.append(c)
    # GPT-2 small (d=768, ffn=3072) at 512 tokens.
    gemms = [("qkv", 512, 768, 2304), ("attn.out", 512, 768, 768),
             ("ffn.up", 512, 768, 3072), ("ffn.down", 512, 3072, 768)]
    if quick:
        gemms = gemms[:1] + gemms[2:]
    for name, m, k, n in gemms:
        cases.append({"bench": "linear", "m": m, "k": k, "n": n, "bias": True,
                      "flops": 2.0 * m * k * n,
                      "label": f"linear {name} {m}x{k}x{n}"})
    cases.append({"bench": "ffn", "tokens": 512, "d_model": 768, "hidden": 3072,
                  "activation": "gelu_tanh", "bias": True,
                  "flops": 2.0 * 512 * 768 * 3072 * 2,
                  "label": "ffn 512x768x3072 gelu_tanh"})
    # Quick mode: seq 16 (the 2026-11-21 baseline's scalar code took about
    # 250 s per call at seq 128; kept at 16 so that runs stay comparable).
    mseq = model_seq or (16 if quick else 512)
    cases.append({"bench": "model", "seq": mseq, "batch": 1,
                  "flops": gpt2_flops(12, 768, 3072, 50257, mseq, 1),
                  "label": f"GPT-2 small seq {mseq}",
                  # Compiling GPT-2 takes minutes today: once in quick mode.
                  "only_threads": [1] if quick else None})
    return cases


def tfm_args(c):
    return [str(x) for x in tfm_bench_args(c) +
            ["--precision", c.get("precision", "f32")]]


def tfm_bench_args(c):
    b = c["bench"]
    if b in ("attention", "decode"):
        a = ["attention", "--batch", c["batch"], "--heads", c["heads"],
             "--kv-heads", c["kv_heads"], "--seq", c["seq"], "--head-dim", c["head_dim"]]
        if "kv_seq" in c:
            a += ["--kv-seq", c["kv_seq"]]
        if c["causal"]:
            a.append("--causal")
    elif b == "linear":
        a = ["linear", "--m", c["m"], "--k", c["k"], "--n", c["n"]]
        if not c["bias"]:
            a.append("--no-bias")
    elif b == "ffn":
        a = ["ffn", "--tokens", c["tokens"], "--d-model", c["d_model"],
             "--hidden", c["hidden"], "--activation", c["activation"]]
    else:
        a = ["model", "--model", c["dir"], "--weights", c["dir"],
             "--seq", c["seq"], "--batch", c["batch"],
             "--save-output", c["tfm_output"], "--save-ids", c["ids"]]
    if c.get("pass_option"):
        a += ["--pass-option", c["pass_option"]]
    return [str(x) for x in a]


# ---------------------------------------------------------------- runners

def run_tfm(exe, c, threads, timing, timeout):
    cmd = ["nice", "-n", "10", exe] + tfm_args(c) + [
        "--threads", str(threads), "--json", "--warmup", str(timing["warmup"]),
        "--iters", str(timing["iters"]), "--min-iters", str(timing["min_iters"]),
        "--max-time", str(timing["max_time"])]
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"skipped": f"timeout after {timeout:.0f} s", "cmd": " ".join(cmd)}
    wall = time.time() - t0
    if r.returncode != 0:
        kind = {3: "WRONG RESULT", 2: "usage error"}.get(r.returncode, "error")
        return {"skipped": f"{kind} (exit {r.returncode}): "
                           f"{r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ''}",
                "stderr": r.stderr[-4000:], "cmd": " ".join(cmd)}
    line = r.stdout.strip().splitlines()[-1]
    res = json.loads(line)
    res["wall_s"] = wall
    return res


def run_peers(cases, threads, timing, timeout):
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    req = {"threads": threads, "timing": timing, "cases": cases}
    try:
        r = subprocess.run(["nice", "-n", "10", sys.executable,
                            os.path.join(HERE, "peers.py")],
                           input=json.dumps(req), capture_output=True, text=True,
                           env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [{"worker": {"skipped": f"peer worker timeout after {timeout} s"}}
                for _ in cases], {}
    if r.returncode != 0:
        msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "no output"
        return [{"worker": {"skipped": f"peer worker failed: {msg}"}} for _ in cases], {}
    out = json.loads(r.stdout)
    return out["results"], out["versions"]


# ------------------------------------------------------------------ report

def gflops(flops, res):
    if not res or "median_s" not in res or not res["median_s"]:
        return None
    return flops / res["median_s"] * 1e-9


def fmt_time(res):
    if res is None:
        return "-"
    if "median_s" in res:
        s = res["median_s"]
        return f"{s * 1e3:.2f} ms" if s < 1 else f"{s:.2f} s"
    return "skipped"


def print_table(report):
    rows = []
    for entry in report["results"]:
        c, thr = entry["case"], entry["threads"]
        tfm = entry["tfm"]
        tg = gflops(c["flops"], tfm)
        # bf16 rows against the bf16 peak of the units tfm can use (AMX,
        # else AVX512-BF16's dot product), f32 rows against the FMA peak.
        kind = ""
        if c.get("precision") == "bf16":
            for k in ("amx_bf16_", "avx512bf16_"):
                if f"{k}single_core_gflops" in report["peak"]:
                    kind = k
                    break
        scope = "single_core_gflops" if thr == 1 else "all_core_gflops"
        peak = report["peak"].get(kind + scope)
        peer_cells = []
        for name, res in entry["peers"].items():
            g = gflops(c["flops"], res)
            ratio = (res["median_s"] / tfm["median_s"]
                     if g and tg else None)
            peer_cells.append(
                f"{name} {fmt_time(res)}" +
                (f" ({g:.1f} GF/s, tfm/peer {ratio:.3f}x)" if ratio else
                 f" ({g:.1f} GF/s)" if g else ""))
        rows.append((c["label"], thr, fmt_time(tfm),
                     f"{tg:.2f}" if tg else "-",
                     f"{100 * tg / peak:.1f}%" if tg and peak else "-",
                     "; ".join(peer_cells),
                     tfm.get("skipped", "") if tfm else ""))
    hdr = ("case", "thr", "tfm median", "tfm GF/s", "tfm/peak", "peers", "note")
    widths = [max(len(str(r[i])) for r in rows + [hdr]) for i in range(5)]
    line = "  ".join(h.ljust(w) for h, w in zip(hdr[:5], widths)) + "  peers / notes"
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(r[:5], widths)) + "  " +
              (r[5] + ("  [" + r[6] + "]" if r[6] else "")))


# -------------------------------------------------------------------- main

def main():
    reexec_in_venv()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="a small subset that finishes in a few minutes")
    ap.add_argument("--budget", type=float, default=None,
                    help="largest estimated tfm seconds per call to run "
                         "(default 5 quick, 20 full)")
    ap.add_argument("--model-budget", type=float, default=None,
                    help="the same for the whole model (default 120 quick, 300 full)")
    ap.add_argument("--tfm-bench", default=None,
                    help="tfm-bench executable (default: build/bin, then build-*/bin)")
    ap.add_argument("--threads", default=None,
                    help="comma-separated thread counts (default: 1 and all CPUs)")
    ap.add_argument("--only", default=None,
                    help="comma-separated benches to run (attention, decode, linear, ffn, model)")
    ap.add_argument("--out", default=None, help="JSON output path")
    ap.add_argument("--precision", default="f32", choices=["f32", "bf16"],
                    help="GEMM and attention inputs: tfm-bench --precision, "
                         "and PyTorch peers in that dtype (bf16: "
                         "model.to(torch.bfloat16); NumPy and ONNX Runtime "
                         "are skipped)")
    ap.add_argument("--model-seq", type=int, default=None,
                    help="sequence length of the GPT-2 row (default 16 with "
                         "--quick, else 512, the target's)")
    ap.add_argument("--batch-peers", action="store_true",
                    help="run all peers of a thread count in one worker after "
                         "all tfm cases (faster: one PyTorch import per "
                         "thread count) instead of each case's peers right "
                         "after its tfm run; on a shared machine whose load "
                         "drifts, interleaving keeps tfm and its peers under "
                         "the same conditions")
    args = ap.parse_args()

    quick = args.quick
    budget = args.budget or (5.0 if quick else 20.0)
    model_budget = args.model_budget or (120.0 if quick else 300.0)
    timing = ({"warmup": 1, "iters": 5, "min_iters": 1, "max_time": 3.0} if quick
              else {"warmup": 2, "iters": 10, "min_iters": 3, "max_time": 10.0})
    ncpu = os.cpu_count() or 1
    threads_list = ([int(t) for t in args.threads.split(",")] if args.threads
                    else sorted({1, ncpu}))

    exe = args.tfm_bench
    if not exe:
        cands = [os.path.join(ROOT, "build", "bin", "tfm-bench")] + sorted(
            os.path.join(ROOT, d, "bin", "tfm-bench") for d in os.listdir(ROOT)
            if d.startswith("build-"))
        exe = next((p for p in cands if os.path.exists(p)), None)
    if not exe or not os.path.exists(exe):
        sys.exit("run.py: no tfm-bench found; build it (ninja tfm-bench) or pass --tfm-bench")

    results_dir = os.path.join(HERE, "results")
    work = os.path.join(results_dir, ".work")
    os.makedirs(work, exist_ok=True)
    started = datetime.datetime.now()
    report = {"date": started.isoformat(timespec="seconds"), "quick": quick,
              "budget_s": budget, "model_budget_s": model_budget,
              "timing": timing, "tfm_bench": exe, "machine": machine_info()}

    print(f"machine: {report['machine'].get('model')}, {ncpu} CPUs, "
          f"ISA {' '.join(report['machine'].get('isa', []))}", flush=True)
    report["peak"] = measure_peak(work, 0.5 if quick else 1.0)
    print(f"peak: {json.dumps(report['peak'])}", flush=True)

    cases = make_cases(quick, args.model_seq)
    report["precision"] = args.precision
    if args.precision != "f32":
        for c in cases:
            c["precision"] = args.precision
            c["label"] += f" {args.precision}"
    if args.only:
        keep = set(args.only.split(","))
        cases = [c for c in cases if c["bench"] in keep]

    # The model's weights: GPT-2 small shape, random init, saved once.
    if any(c["bench"] == "model" for c in cases):
        gdir = os.path.join(work, "gpt2-small-random")
        made, _ = run_peers([{"bench": "make_gpt2", "dir": gdir, "layers": 12,
                              "d_model": 768, "heads": 12, "max_seq": 1024,
                              "vocab": 50257}], 1, timing, 1800)
        info = made[0].get("make", made[0].get("worker", {}))
        for c in cases:
            if c["bench"] == "model":
                c["dir"] = gdir
                c["tfm_output"] = os.path.join(
                    work, f"gpt2-tfm-logits-{args.precision}.npy")
                c["ids"] = os.path.join(work, "gpt2-ids.npy")
                if "skipped" in info:
                    c["unavailable"] = info["skipped"]

    report["results"] = []
    report["peer_versions"] = {}
    rate = {}  # tfm GFLOP/s measured so far, per bench kind (slowest seen)
    for thr in threads_list:
        tfm_res, peer_res = [], []
        thr_cases = [c for c in cases
                     if not c.get("only_threads") or thr in c["only_threads"]]
        for c in thr_cases:
            est = (c["flops"] / (rate[c["bench"]] * 1e9)) if c["bench"] in rate else None
            if c["bench"] == "model" and est is None and "linear" in rate:
                # Mostly GEMMs: estimate from the linear rate.
                est = c["flops"] / (rate["linear"] * 1e9)
            lim = model_budget if c["bench"] == "model" else budget
            if c.get("unavailable"):
                res = {"skipped": c["unavailable"]}
            elif est is not None and est > lim:
                res = {"skipped": f"estimated {est:.1f} s/call > budget {lim:.0f} s",
                       "estimated_s": est}
            else:
                # Compile + check + warm-up + timed calls, with headroom.
                hard = 120 + (lim * (3 + timing["warmup"] + timing["iters"]))
                if c["bench"] == "model":
                    for p in (c["tfm_output"], c["ids"]):
                        if os.path.exists(p):
                            os.remove(p)
                print(f"[tfm  t={thr}] {c['label']} ...", flush=True)
                res = run_tfm(exe, c, thr, timing, hard)
                if "gflops" in res and res["gflops"] > 0:
                    rate[c["bench"]] = (min(rate[c["bench"]], res["gflops"])
                                        if c["bench"] in rate else res["gflops"])
            res["loadavg"] = os.getloadavg()
            tfm_res.append(res)
            if not args.batch_peers:
                print(f"[peers t={thr}] {c['label']} ...", flush=True)
                p, versions = run_peers([c], thr, timing, 3600)
                report["peer_versions"].update(versions)
                peer_res.extend(p)
        if args.batch_peers:
            print(f"[peers t={thr}] {len(thr_cases)} cases ...", flush=True)
            peer_res, versions = run_peers(thr_cases, thr, timing, 3600)
            report["peer_versions"].update(versions)
        peers = peer_res
        for c, tr, pr in zip(thr_cases, tfm_res, peers):
            report["results"].append({"case": c, "threads": thr, "tfm": tr, "peers": pr})

    report["elapsed_s"] = (datetime.datetime.now() - started).total_seconds()
    report["loadavg_at_end"] = os.getloadavg()
    print()
    print_table(report)
    out = args.out or os.path.join(
        results_dir, f"{started.strftime('%Y-%m-%d-%H%M%S')}-{socket.gethostname()}.json")
    with open(out, "w") as f:
        json.dump(report, f, indent=1, default=str)
    print(f"\nwrote {out} ({report['elapsed_s']:.0f} s)")


if __name__ == "__main__":
    main()
