#!/usr/bin/env python3
# ===- hf_generate_check.py - generation against Hugging Face generate ---=== #
#
# Outside CI (needs torch and transformers: pip install -r
# scripts/requirements-oracle.txt, or bench/.venv). For every causal-LM
# variant of hf_compare.py (tiny random GPT-2, LLaMA with GQA and RoPE
# scaling, Mistral, Qwen2/3, Gemma, Phi-3) and T5 (a source per prompt,
# through --source-ids), saves the model as an HF folder, compiles it with
# `tfmc --generation`, and compares
#
#   * greedy generation: `tfm-run --prompt-ids P --max-new-tokens N
#     --greedy` against `model.generate(P, do_sample=False)`, token for
#     token, for prompts of several lengths;
#   * beam search: `tfm-run --beam 4 --length-penalty-form power
#     --length-penalty 1` against `generate(num_beams=4, length_penalty=1.0,
#     early_stopping="never")` (docs/tfm-run.md, "Beam search": the same
#     score), best hypothesis.
#
#     python3 scripts/hf_generate_check.py [--tools build/bin] [--new 12]
#                                          [--only qwen3,gemma]
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
# Encoder-decoders (T5): a source per decoder prompt; the prompts start
# with the decoder start token (T5: the pad id, 0).
SOURCES = [[5, 17, 3, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
            44, 45, 46, 47, 48], [42], [9, 8, 7, 6]]
DECODER_PROMPTS = [[0], [0, 11], [0]]


def tfm_generate(tools, library, folder, prompt, new, extra, source=None):
    src = ["--source-ids", ",".join(map(str, source))] if source else []
    out = subprocess.run(
        [os.path.join(tools, "tfm-run"), library, "--weights", folder] + src +
        ["--prompt-ids", ",".join(map(str, prompt)), "--max-new-tokens",
         str(new)] + extra, check=True, capture_output=True, text=True).stdout
    last = [line for line in out.splitlines() if line.startswith("generated[0]:")]
    return [int(t) for t in last[-1].split(":", 1)[1].split()]


def hf_generate(model, prompt, new, source=None, **kw):
    ids = torch.tensor([prompt])
    with torch.no_grad():
        if source is not None:
            src = torch.tensor([source])
            out = model.generate(input_ids=src, attention_mask=torch.ones_like(src),
                                 decoder_input_ids=ids, max_new_tokens=new,
                                 min_new_tokens=new, pad_token_id=hf_compare.PAD,
                                 decoder_start_token_id=prompt[0],
                                 eos_token_id=None, **kw)
        else:
            out = model.generate(ids, attention_mask=torch.ones_like(ids),
                                 max_new_tokens=new, min_new_tokens=new,
                                 pad_token_id=hf_compare.PAD, eos_token_id=None,
                                 **kw)
    return out[0, len(prompt):].tolist()


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tools", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--new", type=int, default=12)
    ap.add_argument("--only", default="",
                    help="comma-separated substrings: only variants whose "
                         "label contains one of them")
    args = ap.parse_args()
    torch.manual_seed(0)
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        for entry in hf_compare.variants():
            label, config_cls, model_cls, kw = entry[:4]
            opts = entry[4] if len(entry) > 4 else {}
            if args.only and not any(o in label for o in args.only.split(",")):
                continue
            seq2seq = model_cls.__name__ == "T5ForConditionalGeneration"
            if not model_cls.__name__.endswith("ForCausalLM") and \
                    model_cls.__name__ != "GPT2LMHeadModel" and not seq2seq:
                continue
            if opts.get("reject"):
                continue
            model = model_cls(config_cls(**kw)).eval()
            gen = torch.Generator().manual_seed(1)
            hf_compare.randomize(model, gen)
            if opts.get("untie"):
                hf_compare._untie_t5(model, gen)
                model = model.float()  # _untie_t5's head is float64
            folder = os.path.join(work, label)
            model.save_pretrained(folder, safe_serialization=True)
            if opts.get("legacy_rope"):
                hf_compare._legacy_rope(folder)
            library = os.path.join(work, label + ".so")
            subprocess.run([os.path.join(args.tools, "tfmc"), folder,
                            "--generation", "--quiet", "-o", library],
                           check=True)
            for check, tfm_args, hf_kw in [
                    ("greedy", ["--greedy"], dict(do_sample=False)),
                    ("beam4", ["--beam", "4", "--length-penalty-form", "power",
                               "--length-penalty", "1"],
                     dict(do_sample=False, num_beams=4, length_penalty=1.0,
                          early_stopping="never"))]:
                agree = 0
                cases = (list(zip(DECODER_PROMPTS, SOURCES)) if seq2seq
                         else [(p, None) for p in PROMPTS])
                for prompt, source in cases:
                    ours = tfm_generate(args.tools, library, folder, prompt,
                                        args.new, tfm_args, source)
                    theirs = hf_generate(model, prompt, args.new, source,
                                         **hf_kw)
                    if ours == theirs:
                        agree += 1
                    else:
                        print(f"  {label} {check} prompt {prompt}:\n"
                              f"    tfm {ours}\n    HF  {theirs}")
                failures += agree != len(cases)
                print(f"{label:32s} {check:6s} {agree}/{len(cases)} prompts "
                      f"agree ({args.new} new tokens)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
