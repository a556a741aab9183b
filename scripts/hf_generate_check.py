#!/usr/bin/env python3
# ===- hf_generate_check.py - generation against Hugging Face generate ---=== #
#
# Outside CI (needs torch and transformers: pip install -r
# scripts/requirements-oracle.txt, or bench/.venv). For every causal-LM
# variant of hf_compare.py (tiny random GPT-2, LLaMA with GQA and linear
# RoPE scaling, Mistral with and without a window, Qwen2), saves the model
# as an HF folder, compiles it with `tfmc --generation`, and compares
#
#   * greedy generation: `tfm-run --prompt-ids P --max-new-tokens N
#     --greedy` against `model.generate(P, do_sample=False)`, token for
#     token, for prompts of several lengths;
#   * beam search: `tfm-run --beam 4 --length-penalty 1` against
#     `generate(num_beams=4, length_penalty=1.0, early_stopping="never")`
#     (docs/tfm-run.md, "Beam search": the same score), best hypothesis.
#
#     python3 scripts/hf_generate_check.py [--tools build/bin] [--new 12]
#
# Prints one line per variant and check; exits 1 on any mismatch.
#
# ===----------------------------------------------------------------------=== #

import argparse
import os
import subprocess
import sys
import tempfile

try:
    import torch
    import transformers
except ImportError as e:  # pragma: no cover
    sys.exit("hf_generate_check.py: missing package (%s); run: pip install -r "
             "scripts/requirements-oracle.txt" % e)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import hf_compare  # noqa: E402

PROMPTS = [[5, 17, 3], [42], [9, 8, 7, 6, 5, 4, 3, 2]]


def tfm_generate(tools, library, folder, prompt, new, extra):
    out = subprocess.run(
        [os.path.join(tools, "tfm-run"), library, "--weights", folder,
         "--prompt-ids", ",".join(map(str, prompt)), "--max-new-tokens",
         str(new)] + extra, check=True, capture_output=True, text=True).stdout
    last = [line for line in out.splitlines() if line.startswith("generated[0]:")]
    return [int(t) for t in last[-1].split(":", 1)[1].split()]


def hf_generate(model, prompt, new, **kw):
    ids = torch.tensor([prompt])
    with torch.no_grad():
        out = model.generate(ids, attention_mask=torch.ones_like(ids),
                             max_new_tokens=new, min_new_tokens=new,
                             pad_token_id=hf_compare.PAD, eos_token_id=None,
                             **kw)
    return out[0, len(prompt):].tolist()


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tools", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--new", type=int, default=12)
    args = ap.parse_args()
    torch.manual_seed(0)
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        for label, config_cls, model_cls, kw in hf_compare.variants():
            if not model_cls.__name__.endswith("ForCausalLM") and \
                    model_cls.__name__ != "GPT2LMHeadModel":
                continue
            model = model_cls(config_cls(**kw)).eval()
            hf_compare.randomize(model, torch.Generator().manual_seed(1))
            folder = os.path.join(work, label)
            model.save_pretrained(folder, safe_serialization=True)
            library = os.path.join(work, label + ".so")
            subprocess.run([os.path.join(args.tools, "tfmc"), folder,
                            "--generation", "--quiet", "-o", library],
                           check=True)
            for check, tfm_args, hf_kw in [
                    ("greedy", ["--greedy"], dict(do_sample=False)),
                    ("beam4", ["--beam", "4", "--length-penalty", "1"],
                     dict(do_sample=False, num_beams=4, length_penalty=1.0,
                          early_stopping="never"))]:
                agree = 0
                for prompt in PROMPTS:
                    ours = tfm_generate(args.tools, library, folder, prompt,
                                        args.new, tfm_args)
                    theirs = hf_generate(model, prompt, args.new, **hf_kw)
                    if ours == theirs:
                        agree += 1
                    else:
                        print(f"  {label} {check} prompt {prompt}:\n"
                              f"    tfm {ours}\n    HF  {theirs}")
                failures += agree != len(PROMPTS)
                print(f"{label:32s} {check:6s} {agree}/{len(PROMPTS)} prompts "
                      f"agree ({args.new} new tokens)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
