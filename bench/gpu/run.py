#!/usr/bin/env python3
"""Checks and times tfm's GPU libraries, on the machine with the GPU.

    python3 bench/gpu/run.py BUNDLE [--out results.json] [--cpu-only] [--only NAME]

BUNDLE is what bench/gpu/prepare.sh wrote. Needs python3 and numpy; the
GPT-2-small part also torch, transformers and safetensors. No LLVM.

Every model runs in a process of its own, so that a crash, a hung kernel or
a CUDA context poisoned by a faulting kernel costs that model only.

  * Models with a reference: the GPU library, then the CPU library (when it
    loads here), on the bundle's token batch, against the float64 reference
    output. Reported: the largest absolute error and the largest error
    relative to the largest |value| of its reference row (one position's
    logits, or one sequence's class scores; positions past a sequence's
    length are not compared). PASS when every error is within
    atol + rtol * max|row| (1e-6 + 1e-4 * max|row| for f32).
  * gpt2-small: weights drawn with torch (seeded) and written as
    safetensors, loaded into Hugging Face's GPT2LMHeadModel (eager
    attention, float32, TF32 off); tfm's logits against PyTorch's in
    float64 on the same weights (the check) and in float32; then the
    forward time of batch 1 x seq 512 and 8 x 128: warm-up, then the median
    of --reps calls, the wall clock around tfm_model_forward (which copies
    the ids to the GPU and the logits back) and around PyTorch's forward
    with torch.cuda.synchronize() (logits left on the GPU), and PyTorch with
    the same copies as tfm.
  * gpt2-small@bf16: the same with tfm's --precision=bf16 library against
    the model in bf16 (PyTorch eager bf16); PASS when tfm's error against
    float64 is within twice PyTorch's own bf16 error.

--cpu-only runs the same checks with the CPU libraries (no GPU, no torch
needed; the gpt2-small part runs on the CPU when torch is installed, without
timings). Prints a table, writes JSON (and the table beside it, .txt).
Exit status 1 if any check failed or could not run.
"""

import argparse
import copy
import ctypes
import datetime
import json
import lzma
import math
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import weightgen  # noqa: E402

FORMAT = "tfm-gpu-bench/1"
PASS, FAIL, ERROR, SKIP, INFO = "PASS", "FAIL", "ERROR", "SKIP", "INFO"


# ===------------------------------------------------------------------=== #
# The C ABI (include/tfm/Runtime/tfm_runtime.h) through ctypes
# ===------------------------------------------------------------------=== #

class TfmError(Exception):
    pass


class Unavailable(Exception):
    """A library that is not there or does not load: SKIP or ERROR."""

    def __init__(self, status, note):
        super().__init__(note)
        self.status, self.note = status, note


_i32p = ctypes.POINTER(ctypes.c_int32)
_f32p = ctypes.POINTER(ctypes.c_float)


def _ptr(a, kind):
    return None if a is None else a.ctypes.data_as(kind)


class Library:
    """One model library, loaded with dlopen."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        vp, i64 = ctypes.c_void_p, ctypes.c_int64
        lib.tfm_model_create.argtypes = [ctypes.c_char_p, ctypes.POINTER(vp)]
        lib.tfm_model_destroy.argtypes = [vp]
        lib.tfm_model_forward.argtypes = [vp, _i32p, i64, i64, _i32p, _f32p, ctypes.c_size_t]
        lib.tfm_model_forward_masked.argtypes = [vp, _i32p, i64, i64, _i32p, _i32p, _f32p,
                                                 ctypes.c_size_t]
        lib.tfm_model_forward_pixels.argtypes = [vp, _f32p, i64, _f32p, ctypes.c_size_t]
        lib.tfm_model_forward_seq2seq.argtypes = [vp, _i32p, i64, i64, _i32p, _i32p, i64,
                                                  _i32p, _f32p, ctypes.c_size_t]
        lib.tfm_model_output_shape.argtypes = [vp, i64, i64, ctypes.POINTER(i64),
                                               ctypes.POINTER(ctypes.c_int)]
        lib.tfm_library_info.argtypes = [ctypes.POINTER(ctypes.c_char_p)]
        lib.tfm_last_error.restype = ctypes.c_char_p
        lib.tfm_status_string.restype = ctypes.c_char_p
        self.lib = lib

    def check(self, status, what):
        if status != 0:
            raise TfmError("%s: %s: %s" % (what, self.lib.tfm_status_string(status).decode(),
                                          self.lib.tfm_last_error().decode(errors="replace")))

    def manifest(self):
        s = ctypes.c_char_p()
        self.check(self.lib.tfm_library_info(ctypes.byref(s)), "tfm_library_info")
        return json.loads(s.value.decode())

    def create(self, weights):
        handle = ctypes.c_void_p()
        self.check(self.lib.tfm_model_create(weights.encode(), ctypes.byref(handle)),
                   "tfm_model_create")
        return Model(self, handle)


class Model:
    """A tfm_model instance."""

    def __init__(self, library, handle):
        self.library, self.lib, self.handle = library, library.lib, handle

    def output(self, batch, seq):
        """A float32 buffer of the output's shape."""
        shape, rank = (ctypes.c_int64 * 3)(), ctypes.c_int()
        self.library.check(self.lib.tfm_model_output_shape(
            self.handle, batch, seq, shape, ctypes.byref(rank)), "tfm_model_output_shape")
        return np.empty(tuple(shape[:rank.value]), dtype=np.float32)

    def forward(self, ids, lengths=None, out=None):
        batch, seq = ids.shape
        if out is None:
            out = self.output(batch, seq)
        self.library.check(self.lib.tfm_model_forward(
            self.handle, _ptr(ids, _i32p), batch, seq, _ptr(lengths, _i32p),
            _ptr(out, _f32p), out.size), "tfm_model_forward")
        return out

    def forward_pixels(self, pixels, tokens):
        out = self.output(pixels.shape[0], tokens)
        self.library.check(self.lib.tfm_model_forward_pixels(
            self.handle, _ptr(pixels, _f32p), pixels.shape[0], _ptr(out, _f32p), out.size),
            "tfm_model_forward_pixels")
        return out

    def forward_masked(self, ids, attention_mask, position_ids=None):
        batch, seq = ids.shape
        out = self.output(batch, seq)
        out.fill(np.nan)  # every element must be written, zeros under the padding too
        self.library.check(self.lib.tfm_model_forward_masked(
            self.handle, _ptr(ids, _i32p), batch, seq, _ptr(attention_mask, _i32p),
            _ptr(position_ids, _i32p), _ptr(out, _f32p), out.size),
            "tfm_model_forward_masked")
        return out

    def forward_seq2seq(self, src, src_lengths, tgt, tgt_lengths):
        batch, src_seq = src.shape
        out = self.output(batch, tgt.shape[1])
        self.library.check(self.lib.tfm_model_forward_seq2seq(
            self.handle, _ptr(src, _i32p), batch, src_seq, _ptr(src_lengths, _i32p),
            _ptr(tgt, _i32p), tgt.shape[1], _ptr(tgt_lengths, _i32p),
            _ptr(out, _f32p), out.size), "tfm_model_forward_seq2seq")
        return out

    def close(self):
        self.lib.tfm_model_destroy(self.handle)


# ===------------------------------------------------------------------=== #
# Numerics
# ===------------------------------------------------------------------=== #

def compare(actual, expected, lengths=None, rtol=1e-4, atol=1e-6):
    """tfm_ref.py check's measure: per output row (the last axis), the error
    relative to the row's largest |expected|; rows at positions >= length
    of [B, T, X] outputs are left out. Returns (ok, max abs, max rel, note):
    ok when every error is within atol + rtol * max|row|."""
    if actual.shape != expected.shape:
        return False, None, None, "shape %s, expected %s" % (list(actual.shape),
                                                             list(expected.shape))
    actual = actual.astype(np.float64)
    rowmax = np.abs(expected).max(axis=-1, keepdims=True)
    if expected.ndim == 3 and lengths is not None:
        keep = np.arange(expected.shape[1])[None, :] < lengths[:, None]
        actual, expected, rowmax = actual[keep], expected[keep], rowmax[keep]
    err = np.abs(actual - expected)
    err[np.isnan(err)] = np.inf
    ratio = err / (atol + rtol * rowmax)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(err == 0, 0.0, err / rowmax)
    worst = np.unravel_index(np.argmax(ratio), ratio.shape)
    ok = bool(ratio[worst] <= 1.0)
    note = "" if ok else "worst element: %.7g, reference %.7g" % (actual[worst],
                                                                   expected[worst])
    return ok, float(err.max()), float(rel.max()), note


def check_entry(check, ok, max_abs, max_rel, note="", **extra):
    entry = {"check": check, "status": PASS if ok else FAIL, "max_abs": max_abs,
             "max_rel": max_rel, "note": note}
    entry.update(extra)
    return entry


def median_ms(fn, warmup, reps, budget_s):
    """Median and minimum wall time of fn() in ms after `warmup` calls;
    stops early (after at least 3 calls) once `budget_s` is spent."""
    for _ in range(warmup):
        fn()
    times, start = [], time.perf_counter()
    while len(times) < reps:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if len(times) >= 3 and time.perf_counter() - start > budget_s:
            break
    return {"median_ms": 1e3 * float(np.median(times)), "min_ms": 1e3 * min(times),
            "calls": len(times)}


# ===------------------------------------------------------------------=== #
# One model, in a worker process
# ===------------------------------------------------------------------=== #

class Worker:
    """Runs one model's checks and keeps its result file up to date, so that
    the parent knows how far a worker that crashed got."""

    def __init__(self, args, bundle, entry):
        self.args, self.bundle, self.entry = args, bundle, entry
        self.folder = os.path.join(bundle["dir"], entry["name"])
        self.work = args.work_dir
        self.result = {"name": entry["name"], "kind": entry["kind"], "checks": [],
                       "timings": [], "step": "starting"}
        self.targets = [t for t in (["cpu", "emu"] if args.cpu_only else ["gpu", "cpu", "emu"])
                        if t in entry.get("libraries", {"gpu": {}, "cpu": {}})]
        self.truth = "float64 reference" if entry["kind"] == "reference" else "PyTorch float64"
        self.save()

    def save(self):
        tmp = self.args.result + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.result, f)
        os.replace(tmp, self.args.result)

    def step(self, what):
        self.result["step"] = what
        self.save()

    def add(self, check):
        self.result["checks"].append(check)
        self.save()

    def unpack(self, rel, dest_name):
        """Decompresses a file of the bundle into the work folder."""
        dest = os.path.join(self.work, dest_name)
        with lzma.open(os.path.join(self.bundle["dir"], rel)) as f, open(dest, "wb") as g:
            shutil.copyfileobj(f, g)
        os.chmod(dest, 0o755)
        return dest

    def library_path(self, target):
        """Where load() unpacked the target's library."""
        return os.path.join(self.work, "%s-%s.so" % (self.entry["name"], target))

    def load(self, target):
        """The target's Library; raises Unavailable when there is none."""
        lib = self.entry["libraries"][target]
        if "file" not in lib:
            raise Unavailable(ERROR if target == "gpu" else SKIP,
                              "no %s library: %s" % (target, lib["error"]))
        self.step("loading the %s library" % target)
        path = self.unpack(os.path.join(self.entry["name"], lib["file"]),
                           "%s-%s.so" % (self.entry["name"], target))
        try:
            library = Library(path)
        except OSError as e:
            if target == "cpu":
                raise Unavailable(SKIP, "cpu .so not loadable: %s" % e)
            raise
        device = library.manifest().get("device", "cpu")
        # "emu": the GPU pipeline's kernels emulated on the host (--gpu-emulate).
        want = "cuda" if target == "gpu" and not self.bundle.get("gpu_emulate") else "cpu"
        if device != want:
            raise Unavailable(ERROR, "the library's manifest says device %r, expected %r"
                              % (device, want))
        return library

    def for_each_target(self, body):
        """body(target, library) for each target; a library that is missing
        or does not load, or a failing tfm call, is that target's SKIP or
        ERROR, and the next target runs."""
        for target in self.targets:
            what = "%s vs %s" % (target, self.truth)
            try:
                body(target, self.load(target))
            except Unavailable as e:
                self.add({"check": what, "status": e.status, "note": e.note})
            except (TfmError, OSError) as e:
                self.add({"check": what, "status": ERROR,
                          "note": "during %s: %s" % (self.result["step"], e)})

    def run(self):
        libomp = self.bundle.get("libomp")
        if libomp and ("cpu" in self.targets or "emu" in self.targets):
            # The CPU libraries need LLVM's OpenMP runtime; once loaded, the
            # dynamic linker finds it by its soname.
            ctypes.CDLL(self.unpack(libomp, os.path.basename(libomp)[:-3]))
        if self.entry["kind"] == "reference":
            self.run_reference()
        else:
            self.run_gpt2()
        self.step("done")

    # ----- models with a float64 reference

    def weights_file(self):
        spec = self.entry["weights"]
        if "file" in spec:
            return os.path.join(self.folder, spec["file"])
        gen = spec["generate"]
        self.step("generating %.0f MB of weights" % (gen["bytes"] / 1e6))
        path = os.path.join(self.work, self.entry["name"] + ".safetensors")
        digest = weightgen.write_safetensors(path, gen["tensors"], gen["seed"])
        if digest != gen["sha256"]:
            raise TfmError("the weights generated here differ from prepare's (sha256 %s, "
                           "expected %s): the reference does not apply" % (digest, gen["sha256"]))
        return path

    def run_reference(self):
        inputs = {k: np.load(os.path.join(self.folder, v))
                  for k, v in self.entry["inputs"].items()}
        reference = np.load(os.path.join(self.folder, self.entry["reference"]))
        tol = self.entry["tolerance"]
        weights = self.weights_file()
        row_lengths = inputs.get("decoder_lengths", inputs.get("lengths"))
        outputs = {}

        def check(target, library):
            self.step("tfm_model_create (%s)" % target)
            t0 = time.perf_counter()
            model = library.create(weights)
            create_ms = 1e3 * (time.perf_counter() - t0)
            self.step("forward (%s)" % target)
            t0 = time.perf_counter()
            if "pixels" in inputs:
                out = model.forward_pixels(inputs["pixels"].astype(np.float32),
                                           library.manifest()["max_seq_len"])
            elif "decoder_ids" in inputs:
                out = model.forward_seq2seq(inputs["ids"], inputs["lengths"],
                                            inputs["decoder_ids"], inputs["decoder_lengths"])
            else:
                out = model.forward(inputs["ids"], inputs["lengths"])
            forward_ms = 1e3 * (time.perf_counter() - t0)
            outputs[target] = out
            ok, a, r, note = compare(out, reference, row_lengths, tol["rtol"], tol["atol"])
            self.add(check_entry("%s vs %s" % (target, self.truth), ok, a, r, note,
                                 create_ms=create_ms, forward_ms=forward_ms))
            try:
                if "masked" in self.entry:
                    self.check_masked(target, model, tol)
            finally:
                model.close()

        self.for_each_target(check)
        if "gpu" in outputs and "cpu" in outputs:
            _, a, r, _ = compare(outputs["gpu"], outputs["cpu"].astype(np.float64), row_lengths)
            self.add({"check": "gpu vs cpu", "status": INFO, "max_abs": a, "max_rel": r,
                      "note": "informational"})
        if "gpu" in outputs and "emu" in outputs:
            # The same kernels, rounding at the same places: only f32
            # arithmetic differs (FMA contraction, exp/tanh approximations),
            # and a value that lands on the other side of a 16-bit rounding
            # boundary.
            _, a, r, _ = compare(outputs["gpu"], outputs["emu"].astype(np.float64), row_lengths)
            self.add({"check": "gpu vs emulated", "status": INFO, "max_abs": a, "max_rel": r,
                      "note": "same kernels on the host"})

    def check_masked(self, target, model, tol):
        """tfm_model_forward_masked with Hugging Face's attention_mask (left,
        right and both-sided padding) against the reference's masked run:
        the rows under 1s within tolerance, the rows under 0s exactly 0."""
        spec = self.entry["masked"]
        mask = np.load(os.path.join(self.folder, spec["attention_mask"]))
        ids = np.load(os.path.join(self.folder, spec["ids"]))
        reference = np.load(os.path.join(self.folder, spec["reference"]))
        self.step("forward_masked (%s)" % target)
        out = model.forward_masked(ids, mask)
        what = "%s masked vs reference" % target
        if out.ndim == 3:
            keep = mask.astype(bool)
            if out.shape != reference.shape:
                ok, a, r, note = False, None, None, "shape %s, expected %s" % (
                    list(out.shape), list(reference.shape))
            else:
                ok, a, r, note = compare(out[keep][None], reference[keep][None], None,
                                         tol["rtol"], tol["atol"])
                pad = out[~keep]
                if pad.size and not np.all(pad == 0):
                    ok, note = False, "%d of %d outputs under the padding are not 0" % (
                        int(np.count_nonzero(pad != 0)), pad.size)
        else:
            ok, a, r, note = compare(out, reference, None, tol["rtol"], tol["atol"])
        self.add(check_entry(what, ok, a, r, note))

    # ----- GPT-2 small against PyTorch

    def run_gpt2(self):
        try:
            import torch
            import transformers
            from safetensors.torch import save_file
        except ImportError as e:
            status = SKIP if self.args.cpu_only else ERROR
            self.add({"check": "gpt2-small vs PyTorch", "status": status,
                      "note": "needs torch, transformers and safetensors: %s" % e})
            return
        dev = "cpu" if self.args.cpu_only else "cuda"
        if hasattr(torch.backends.cuda.matmul, "fp32_precision"):
            torch.backends.cuda.matmul.fp32_precision = "ieee"
        else:
            torch.backends.cuda.matmul.allow_tf32 = False
        self.result["torch"] = {"torch": torch.__version__,
                                "transformers": transformers.__version__,
                                "device": dev, "float32_matmul": "ieee (TF32 off)"}
        self.step("building the PyTorch model and its weights")
        config = transformers.GPT2Config.from_json_file(
            os.path.join(self.folder, self.entry["config"]))
        torch.manual_seed(self.entry["seed"])
        # The class itself: transformers' lazy Auto* imports can hide the
        # cause of a failure ("Could not import module ...").
        try:
            from transformers.models.gpt2.modeling_gpt2 import GPT2LMHeadModel
        except Exception as e:  # noqa: BLE001 (any import failure is the note)
            cause = e
            while cause.__cause__ is not None:
                cause = cause.__cause__
            raise TfmError("importing GPT2LMHeadModel: %s: %s"
                           % (type(cause).__name__, cause)) from e
        model = GPT2LMHeadModel._from_config(config, attn_implementation="eager")
        # A 16-bit library (gpt2-small@bf16) is checked against float64 like
        # the f32 one, passing where its error is within twice PyTorch's own
        # at that precision, and timed against PyTorch eager at it.
        precision = self.entry.get("precision", "f32")
        half = {"bf16": torch.bfloat16, "f16": torch.float16}.get(precision)
        randomize_gpt2(model, self.entry["seed"])
        model.eval()
        self.result["torch"]["attn_implementation"] = model.config._attn_implementation
        weights = os.path.join(self.work, "gpt2-small.safetensors")
        state = model.state_dict()
        save_file({w["name"]: state[w["name"]].contiguous()
                   for w in self.entry["manifest_weights"]}, weights)

        rng = np.random.default_rng(self.entry["seed"])
        shapes = self.entry.get("check_shapes") or [self.entry["check_shape"]]
        cases = []
        for batch, seq in shapes:
            ids = rng.integers(0, config.vocab_size, size=(batch, seq), dtype=np.int32)
            self.step("PyTorch forward %dx%d (float32 and float64)" % (batch, seq))
            cases.append((ids, self.torch_logits(model, ids, dev, torch, float64=True),
                          self.torch_logits(model, ids, dev, torch, dtype=half)))
            _, a, r, _ = compare(cases[-1][2], cases[-1][1])
            self.add({"check": "PyTorch %s vs float64" % precision, "status": INFO,
                      "max_abs": a, "max_rel": r, "note": "%s, %dx%d" % (dev, batch, seq)})
        if half is not None:
            model.to(half)
        model.to(dev)

        timed = []

        def check(target, library):
            self.step("tfm_model_create (%s)" % target)
            t0 = time.perf_counter()
            tfm_model = library.create(weights)
            create_ms = 1e3 * (time.perf_counter() - t0)
            for ids, expected, expected32 in cases:
                shape = "%dx%d" % ids.shape
                self.step("forward %s (%s)" % (shape, target))
                out = tfm_model.forward(ids)
                if half is None:
                    ok, a, r, note = compare(out, expected)
                else:
                    _, _, torch_rel, _ = compare(expected32, expected)
                    ok, a, r, note = compare(out, expected, rtol=2 * torch_rel, atol=0.0)
                    note = ("within 2x PyTorch %s's %.2e? %s" % (
                        precision, torch_rel, note)).strip()
                self.add(check_entry("%s vs %s" % (target, self.truth), ok, a, r,
                                     ("%s %s" % (shape, note)).strip(), shape=shape,
                                     create_ms=create_ms))
                _, a, r, _ = compare(out, expected32)
                self.add({"check": "%s vs PyTorch %s" % (target, precision), "status": INFO,
                          "max_abs": a, "max_rel": r, "note": "%s, informational" % shape})
            if target == "gpu":
                timed.append(tfm_model)
            else:
                tfm_model.close()
            # While the library is loaded (load() unpacks it again to the
            # same path: not while it is mapped).
            if self.entry.get("generation"):
                self.run_generation(target, library, weights, model, config.vocab_size,
                                    torch, precision)

        self.for_each_target(check)
        for tfm_model in timed:
            self.time_gpt2(tfm_model, model, config.vocab_size, torch)
            tfm_model.close()

    def run_generation(self, target, library, weights, model, vocab, torch, precision):
        """A session of the library's generation entries: its logits against
        forward passes over each slot's whole history (a check), then, on
        the GPU, prefill and decode timed against Hugging Face's KV cache
        loop on the same device (bench/generate.py's sweep, wall clock: tfm
        copies the ids in and the logits out; so does the peer's .cpu())."""
        sys.path.insert(0, os.path.dirname(HERE))
        import generate  # bench/generate.py: the session wrapper and the sweep
        path = self.library_path(target)
        gen = self.entry["generation"]
        what = "%s session vs forward" % target
        if "kv_cache" not in library.manifest():
            self.add({"check": what, "status": SKIP,
                      "note": "the library has no generation entries"})
            return
        # The check: 2 slots, 7 prompt tokens, then 4 greedy decode steps;
        # every row of logits against tfm_model_forward's last position over
        # the slot's tokens so far (the same kernels at T tokens).
        self.step("session check (%s)" % target)
        tol = 1e-4 if precision == "f32" else 2e-2
        rng = np.random.default_rng(self.entry["seed"] + 2)
        history = rng.integers(0, vocab, size=(2, 7), dtype=np.int32)
        session = generate.TfmSession(path, weights, 2, 64, 0)
        forward_model = library.create(weights)
        worst = 0.0
        try:
            logits = session.prefill(history)
            for step in range(5):
                expected = forward_model.forward(np.ascontiguousarray(history))[:, -1, :]
                scale = np.maximum(np.abs(expected).max(axis=1, keepdims=True), 1.0)
                worst = max(worst, float((np.abs(logits - expected) / scale).max()))
                if step == 4:
                    break
                nxt = logits.argmax(axis=1).astype(np.int32)
                history = np.concatenate([history, nxt[:, None]], axis=1)
                logits = session.decode(nxt)
            # The slot functions on the cache (on a GPU: device-to-device
            # copies and memsets): slot 1 becomes a copy of slot 0 and
            # continues exactly like it; then, reset, it starts over.
            lib, vp, i64 = session.lib, ctypes.c_void_p, ctypes.c_int64
            lib.tfm_session_copy_slot.argtypes = [vp, i64, i64]
            lib.tfm_session_reset.argtypes = [vp, i64]
            session.check(lib.tfm_session_copy_slot(session.session, 0, 1))
            same = np.repeat(logits[:1].argmax(axis=1).astype(np.int32), 2)
            copied = session.decode(same)
            copies_agree = bool(np.array_equal(copied[0], copied[1]))
            session.check(lib.tfm_session_reset(session.session, 1))
            session.check(lib.tfm_session_reset(session.session, 0))
            again = session.prefill(history[:, :7])
            first = forward_model.forward(np.ascontiguousarray(history[:, :7]))[:, -1, :]
            scale = np.maximum(np.abs(first).max(axis=1, keepdims=True), 1.0)
            worst = max(worst, float((np.abs(again - first) / scale).max()))
        finally:
            session.close()
            forward_model.close()
        self.add(check_entry(what, worst <= tol and copies_agree, None, worst,
                             "prefill 2x7, 4 decode steps, a copied slot (same bits: %s) and "
                             "reset slots prefilled again; max |diff| / max(1, max|row|) <= %g"
                             % (copies_agree, tol)))
        if target != "gpu":
            return

        contexts, steps = gen["contexts"], gen["steps"]
        dev = next(model.parameters()).device
        for batch in gen["batches"]:
            self.step("generation timing, batch %d" % batch)
            s = generate.TfmSession(path, weights, batch, contexts[-1], 0)
            try:
                s.prefill(np.zeros((batch, 4), dtype=np.int32))  # warm-up
                s.lib.tfm_session_reset.argtypes = [ctypes.c_void_p, ctypes.c_int64]
                for b in range(batch):
                    s.check(s.lib.tfm_session_reset(s.session, b))
                tfm_rows, tfm_tokens = generate.sweep(s.prefill, s.decode, batch,
                                                      contexts, steps, vocab, 7)
            finally:
                s.close()
            state = {"past": None}

            def hf_forward(ids):
                with torch.no_grad():
                    out = model(torch.from_numpy(ids.astype(np.int64)).to(dev),
                                past_key_values=state["past"], use_cache=True)
                state["past"] = out.past_key_values
                return out.logits[:, -1, :].float().cpu().numpy()

            hf_forward(np.zeros((batch, 4), dtype=np.int32))  # warm-up
            state["past"] = None
            hf_rows, hf_tokens = generate.sweep(
                hf_forward, lambda ids: hf_forward(ids.reshape(-1, 1)), batch,
                contexts, steps, vocab, 7)
            state["past"] = None
            torch.cuda.empty_cache()
            self.result.setdefault("generation", []).append({
                "batch": batch, "steps": steps, "tfm": tfm_rows, "hf": hf_rows,
                "tokens_agree": tfm_tokens == hf_tokens})
            self.save()

    @staticmethod
    def torch_logits(model, ids, dev, torch, float64=False, dtype=None):
        """Hugging Face's logits for ids, float64 on the host; float64=True
        runs a float64 copy of the model, dtype (bf16, f16) a copy in it."""
        if float64:
            dtype = torch.float64
        m = copy.deepcopy(model).to(dtype).to(dev) if dtype else model.to(dev)
        with torch.no_grad():
            x = torch.from_numpy(ids).long().to(dev)
            out = m(input_ids=x, use_cache=False).logits.double().cpu().numpy()
        if dtype is not None:
            del m
            if dev == "cuda":
                torch.cuda.empty_cache()
        return out

    def time_gpt2(self, tfm_model, model, vocab, torch):
        args = self.args
        rng = np.random.default_rng(self.entry["seed"] + 1)
        for batch, seq in self.entry["timing_shapes"]:
            self.step("timing %dx%d" % (batch, seq))
            ids = rng.integers(0, vocab, size=(batch, seq), dtype=np.int32)
            out = tfm_model.output(batch, seq)
            ids_gpu = torch.from_numpy(ids).long().cuda()

            def tfm_call():
                tfm_model.forward(ids, None, out)

            def torch_call():
                torch.cuda.synchronize()
                model(input_ids=ids_gpu, use_cache=False)
                torch.cuda.synchronize()

            def torch_copies_call():
                x = torch.from_numpy(ids).long().cuda()
                model(input_ids=x, use_cache=False).logits.cpu()

            row = {"batch": batch, "seq": seq}
            with torch.no_grad():
                for label, fn in (("tfm", tfm_call), ("torch", torch_call),
                                  ("torch_copies", torch_copies_call)):
                    row[label] = median_ms(fn, args.warmup, args.reps, args.time_budget)
                self.step("profiling %dx%d" % (batch, seq))
                row["kernels"] = profile_kernels(tfm_call, torch, calls=3)
                row["torch_kernels"] = profile_kernels(torch_call, torch, calls=3)
            self.result["timings"].append(row)
            self.save()


def profile_kernels(fn, torch, calls):
    """GPU time per call by kernel, from CUPTI through torch.profiler (which
    records every kernel of the process, tfm's driver-API launches too):
    {"kernel_ms", "copy_ms", "launches", "top": [[group, ms, launches]]},
    kernels grouped by name with layer indices folded and launch suffixes
    kept (layers_3_attn_q_1 -> layers_N_attn_q_1). {"error": ...} when the
    profiler is not usable."""
    import re
    try:
        from torch.autograd import DeviceType
        from torch.profiler import ProfilerActivity, profile
        fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                fn()
            torch.cuda.synchronize()
        groups, kernel_us, copy_us, launches = {}, 0.0, 0.0, 0
        for e in prof.events():
            if e.device_type != DeviceType.CUDA:
                continue
            us = e.time_range.elapsed_us()
            if "memcpy" in e.name.lower() or "memset" in e.name.lower():
                copy_us += us
                continue
            kernel_us += us
            launches += 1
            # Layer indices folded, the launch suffix kept: h_3_attn_2 ->
            # h_N_attn_2 (the third kernel of layer 3's attention).
            name = re.sub(r"(?<=_)\d+(?=_)", "N", e.name)
            g = groups.setdefault(name[:80], [0.0, 0])
            g[0] += us
            g[1] += 1
        top = sorted(groups.items(), key=lambda kv: -kv[1][0])[:20]
        return {"kernel_ms": kernel_us / calls / 1e3, "copy_ms": copy_us / calls / 1e3,
                "launches": launches // calls,
                "top": [[k, v[0] / calls / 1e3, v[1] // calls] for k, v in top]}
    except Exception as e:  # informational only
        return {"error": "%s: %s" % (type(e).__name__, e)}


def randomize_gpt2(model, seed):
    """Values that make every tensor matter (HF's init has zero biases and
    unit gammas): gammas 1 +- 0.1, biases +- 0.1, embeddings N(0, 1),
    Conv1D weights ([in, out]) N(0, 1/in). Drawn on the CPU, in name order,
    from one seeded generator."""
    import torch
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            if p.dim() == 1:
                u = torch.rand(p.shape, generator=gen) * 2 - 1
                p.copy_((1.0 if name.endswith("weight") else 0.0) + 0.1 * u)
            elif name.endswith(("wte.weight", "wpe.weight")):
                p.copy_(torch.randn(p.shape, generator=gen))
            else:
                p.copy_(torch.randn(p.shape, generator=gen) / math.sqrt(p.shape[0]))


def worker_main(args):
    bundle = load_bundle(args.bundle)
    entry = next(m for m in bundle["models"] if m["name"] == args.worker)
    worker = Worker(args, bundle, entry)
    try:
        worker.run()
    except Exception as e:  # recorded; the parent reports it as an ERROR
        worker.result["error"] = "%s during %s: %s" % (type(e).__name__,
                                                       worker.result["step"], e)
        worker.save()
        return 1
    return 0


# ===------------------------------------------------------------------=== #
# The parent: one worker per model, the table, the JSON
# ===------------------------------------------------------------------=== #

def load_bundle(path):
    with open(os.path.join(path, "index.json")) as f:
        bundle = json.load(f)
    if bundle.get("format") != FORMAT:
        sys.exit("run.py: %s/index.json is not a %s bundle" % (path, FORMAT))
    bundle["dir"] = os.path.abspath(path)
    return bundle


def run_worker(args, entry, work, timeout):
    """Runs one model in a child process; returns its result."""
    result_path = os.path.join(work, entry["name"] + ".result.json")
    log_path = os.path.join(work, entry["name"] + ".log")
    cmd = [sys.executable, os.path.abspath(__file__), args.bundle, "--worker", entry["name"],
           "--result", result_path, "--work-dir", work, "--reps", str(args.reps),
           "--warmup", str(args.warmup), "--time-budget", str(args.time_budget)]
    if args.cpu_only:
        cmd.append("--cpu-only")
    start = time.time()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = None
    try:
        with open(result_path) as f:
            result = json.load(f)
    except (OSError, ValueError):
        result = {"name": entry["name"], "kind": entry["kind"], "checks": [], "timings": [],
                  "step": "starting"}
    result["seconds"] = round(time.time() - start, 1)
    if code is None:
        result["error"] = "killed after %.3g s during %s" % (timeout, result["step"])
    elif code < 0:
        result["error"] = "crashed (%s) during %s" % (signal.Signals(-code).name, result["step"])
    elif code != 0 and "error" not in result:
        result["error"] = "exited with %d during %s" % (code, result["step"])
    if "error" in result:
        with open(log_path, errors="replace") as f:
            result["log_tail"] = f.read().splitlines()[-30:]
        result["checks"].append({"check": "(%s)" % result["step"], "status": ERROR,
                                 "note": result["error"]})
    return result


def machine_info(cpu_only):
    info = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "host": platform.node(), "python": platform.python_version(),
            "numpy": np.__version__, "cpus": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            info["cpu"] = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    if cpu_only:
        return info
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                              "--format=csv,noheader"], capture_output=True, text=True,
                             timeout=30).stdout.strip()
        info["nvidia_smi"] = out.splitlines()
    except (OSError, subprocess.TimeoutExpired):
        pass
    try:
        import torch
        info["gpu"] = torch.cuda.get_device_name(0)
        info["torch_cuda"] = torch.version.cuda
    except Exception as e:  # no torch, or no GPU: the checks will say more
        info["gpu"] = None
        info["gpu_error"] = str(e)
    return info


def fmt(v, spec="%.2e"):
    return "-" if v is None else spec % v


def table(results, info, bundle, args):
    lines = ["tfm GPU bench: %s, %s" % (
        "CPU libraries only (--cpu-only)" if args.cpu_only else info.get("gpu") or "no GPU found",
        info["date"]),
        "bundle: %s (tfm %s, %s%s)" % (bundle["dir"], bundle.get("tfm_commit"),
                                       bundle["gpu_arch"],
                                       ", GPU libraries EMULATED on the host"
                                       if bundle.get("gpu_emulate") else ""),
        "",
        "%-22s %-26s %-6s %-9s %-9s %9s %9s  %s" % (
            "model", "check", "status", "max abs", "max rel", "create ms", "fwd ms", "note")]
    for r in results:
        for c in r["checks"]:
            lines.append("%-22s %-26s %-6s %-9s %-9s %9s %9s  %s" % (
                r["name"], c["check"], c["status"], fmt(c.get("max_abs")),
                fmt(c.get("max_rel")), fmt(c.get("create_ms"), "%.1f"),
                fmt(c.get("forward_ms"), "%.2f"), c.get("note", "")))
    lines += ["max rel: |error| / max |reference| of the row (a position's logits or a "
              "sequence's scores); PASS: every |error| <= 1e-6 + 1e-4 * max |row| (NAME@bf16: "
              "4e-2, NAME@f16: 5e-3 against the reference that rounds the same inputs, "
              "bench/gpu/prepare.py says why).",
              "create ms: tfm_model_create (weights read and checked; for the GPU: kernels "
              "loaded, weights copied to the device); fwd ms: the one checked forward call."]
    timings = [(r["name"], t) for r in results for t in r.get("timings", [])]
    if timings:
        lines += ["", "forward time, ms (median of up to %d calls after %d warm-up calls; "
                      "float32, TF32 off)" % (args.reps, args.warmup),
                  "%-12s %-9s %12s %12s %16s %10s" % ("model", "shape", "tfm", "PyTorch",
                                                      "PyTorch+copies", "PyTorch/tfm")]
        for name, t in timings:
            lines.append("%-12s %-9s %12.2f %12.2f %16.2f %10.2f" % (
                name, "%dx%d" % (t["batch"], t["seq"]), t["tfm"]["median_ms"],
                t["torch"]["median_ms"], t["torch_copies"]["median_ms"],
                t["torch"]["median_ms"] / t["tfm"]["median_ms"]))
        for name, t in timings:
            for label in ("kernels", "torch_kernels"):
                k = t.get(label)
                if not k:
                    continue
                who = "tfm" if label == "kernels" else "PyTorch"
                if "error" in k:
                    lines.append("%s %dx%d %s kernels: profiler unavailable (%s)"
                                 % (name, t["batch"], t["seq"], who, k["error"][:200]))
                    continue
                lines.append("%s %dx%d %s: %.2f ms in %d kernels, %.2f ms of copies per call; "
                             "by kernel (ms, launches):" % (name, t["batch"], t["seq"], who,
                                                            k["kernel_ms"], k["launches"],
                                                            k["copy_ms"]))
                for group, ms, n in k["top"][:12]:
                    lines.append("    %8.3f %5d  %s" % (ms, n, group))
        lines += ["tfm: wall clock around tfm_model_forward, which includes copying the int32 "
                  "ids to the GPU and the float32 logits back to host memory.",
                  "PyTorch: eager forward between torch.cuda.synchronize() calls, logits left on "
                  "the GPU; PyTorch+copies: ids to the GPU and logits back (.cpu()) included."]
    gens = [(r["name"], g) for r in results for g in r.get("generation", [])]
    if gens:
        lines += ["", "generation: a session filled chunk by chunk to each context, then the "
                      "median of the decode steps there (wall clock: ids in, logits out), "
                      "against Hugging Face's KV cache loop on the same GPU",
                  "%-16s %5s %7s %12s %12s %8s %12s %12s %8s %s" % (
                      "model", "batch", "context", "prefill tfm", "HF", "tfm/HF",
                      "decode ms", "HF ms", "HF/tfm", "tokens")]
        for name, g in gens:
            for t, h in zip(g["tfm"], g["hf"]):
                lines.append("%-16s %5d %7d %12.0f %12.0f %8.2f %12.2f %12.2f %8.2f %s" % (
                    name, g["batch"], t["context"], t["prefill_tok_s"], h["prefill_tok_s"],
                    t["prefill_tok_s"] / h["prefill_tok_s"], 1e3 * t["decode_step_s"],
                    1e3 * h["decode_step_s"], h["decode_step_s"] / t["decode_step_s"],
                    "agree" if g["tokens_agree"] else "differ"))
        lines.append("prefill: tokens/s; tokens: the greedy tokens of the first context's "
                     "decode steps, tfm's against Hugging Face's.")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bundle", help="the folder bench/gpu/prepare.sh wrote")
    ap.add_argument("--out", help="results JSON (default BUNDLE/results.json); the table "
                                  "goes beside it as .txt")
    ap.add_argument("--cpu-only", action="store_true",
                    help="check the CPU libraries only (a dry run without a GPU)")
    ap.add_argument("--only", action="append",
                    help="models whose name contains this (repeatable)")
    ap.add_argument("--reps", type=int, default=20, help="timed calls per shape (median)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--time-budget", type=float, default=30.0,
                    help="seconds of timed calls per shape and implementation; fewer calls "
                         "(at least 3) when they take longer")
    ap.add_argument("--model-timeout", type=float, default=150.0,
                    help="seconds a model with a reference may take (gpt2-small: 3x)")
    ap.add_argument("--deadline", type=float, default=540.0,
                    help="start no model after this many seconds")
    ap.add_argument("--work-dir", help="where libraries are unpacked and weights written "
                                       "(default: a temporary folder, removed at the end)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker_main(args)

    start = time.time()
    bundle = load_bundle(args.bundle)
    out_path = args.out or os.path.join(bundle["dir"], "results.json")
    info = machine_info(args.cpu_only)
    work = args.work_dir or tempfile.mkdtemp(prefix="tfm-gpu-bench-")
    results = []
    try:
        for entry in bundle["models"]:
            if args.only and not any(o in entry["name"] for o in args.only):
                continue
            if "skipped" in entry or "error" in entry:
                why = entry.get("skipped") or "prepare failed: " + entry["error"]
                results.append({"name": entry["name"], "checks": [
                    {"check": "(prepare)", "status": SKIP if "skipped" in entry else ERROR,
                     "note": why}]})
                continue
            left = args.deadline - (time.time() - start)
            if left < 10:
                results.append({"name": entry["name"], "checks": [
                    {"check": "(not run)", "status": ERROR,
                     "note": "--deadline of %.0f s reached" % args.deadline}]})
                continue
            limit = args.model_timeout * (3 if entry["kind"] == "timing" else 1)
            result = run_worker(args, entry, work, min(limit, left))
            results.append(result)
            print("%-22s %s (%.1f s)" % (entry["name"], ", ".join(
                "%s %s" % (c["check"], c["status"]) for c in result["checks"]),
                result["seconds"]), flush=True)
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)

    text = table(results, info, bundle, args)
    print("\n" + text)
    statuses = [c["status"] for r in results for c in r["checks"]]
    summary = {s: statuses.count(s) for s in (PASS, FAIL, ERROR, SKIP)}
    print("\n%d passed, %d failed, %d errors, %d skipped (%.0f s)"
          % (summary[PASS], summary[FAIL], summary[ERROR], summary[SKIP], time.time() - start))
    report = {"format": "tfm-gpu-bench-results/1", "machine": info, "cpu_only": args.cpu_only,
              "bundle": {k: bundle.get(k) for k in ("created", "host", "tfm_commit", "gpu_arch",
                                                     "gpu_emulate", "cpu_target", "cuda_toolkit")},
              "summary": summary, "models": results}
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    with open(os.path.splitext(out_path)[0] + ".txt", "w") as f:
        f.write(text + "\n")
    print("wrote %s" % out_path)
    return 1 if summary[FAIL] or summary[ERROR] else 0


if __name__ == "__main__":
    sys.exit(main())
