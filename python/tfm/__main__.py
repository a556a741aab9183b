"""``python -m tfm``: embed sentences, generate text, or compile a model.

    python -m tfm embed MODEL_DIR "a sentence" "another one" [--json]
    python -m tfm generate MODEL_DIR "a prompt" [--max-new-tokens N]
                  [--greedy | --top-k K | --top-p P] [--temperature T] [--seed S]
    python -m tfm compile MODEL -o model.so [--target nvptx] [--precision bf16] [-- TFMC_ARGS]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional

from . import Error, compile


def _embed(args: argparse.Namespace) -> int:
    from ._encoder import Encoder

    with Encoder(args.model_dir, args.library, threads=args.threads) as enc:
        vectors = enc.embed(args.sentences)
    if args.json:
        json.dump([{"sentence": s, "embedding": [float(x) for x in v]}
                   for s, v in zip(args.sentences, vectors)], sys.stdout)
        sys.stdout.write("\n")
    else:  # one line per sentence: the floats, space-separated
        for v in vectors:
            print(" ".join(f"{x:.7g}" for x in v))
    return 0


def _generate(args: argparse.Namespace) -> int:
    from ._text import TextGenerator

    sampling = dict(greedy=args.greedy, top_k=args.top_k, top_p=args.top_p,
                    temperature=args.temperature, seed=args.seed, stop_ids=args.stop_id)
    with TextGenerator(args.model_dir, args.library, threads=args.threads) as gen:
        pieces = gen.stream(args.prompt, args.max_new_tokens, **sampling)  # checks first
        for piece in pieces:
            sys.stdout.write(piece)
            sys.stdout.flush()
    sys.stdout.write("\n")
    return 0


def _compile(args: argparse.Namespace) -> int:
    out = compile(args.model, args.output, target=args.target, precision=args.precision,
                  gpu_arch=args.gpu_arch, dump_ir_dir=args.dump_ir_dir,
                  generation=args.generation, extra_args=args.tfmc_args)
    print(out)
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tfm", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("embed", help="print sentence embeddings of a Hugging Face encoder folder")
    p.add_argument("model_dir", help="folder with config.json, tokenizer.json, safetensors")
    p.add_argument("sentences", nargs="+")
    p.add_argument("--library", help="a library compiled from the folder (default: compile, cached)")
    p.add_argument("--threads", type=int, default=0, help="0: one per core (default)")
    p.add_argument("--json", action="store_true",
                   help="print a JSON list of {sentence, embedding} instead of one line of floats per sentence")
    p.set_defaults(run=_embed)

    p = sub.add_parser("generate", help="generate text after a prompt with a Hugging Face "
                       "decoder folder (streamed as it comes; the continuation only)")
    p.add_argument("model_dir", help="folder with config.json, tokenizer.json, safetensors")
    p.add_argument("prompt")
    p.add_argument("--max-new-tokens", type=int, default=32, metavar="N",
                   help="tokens to generate (default 32; fewer at an end of text)")
    p.add_argument("--greedy", action="store_true",
                   help="the most likely token (the default without --top-k/--top-p)")
    p.add_argument("--top-k", type=int, metavar="K", help="sample among the K most likely tokens")
    p.add_argument("--top-p", type=float, metavar="P",
                   help="sample among the most likely tokens whose probabilities add up to P")
    p.add_argument("--temperature", type=float, default=1.0, metavar="T",
                   help="divide the logits by T before sampling (default 1)")
    p.add_argument("--seed", type=int, metavar="S",
                   help="seed of the sampler, as tfm-run's (default: a random one)")
    p.add_argument("--stop-id", type=int, action="append", default=[], metavar="ID",
                   help="also stop after this token (may be repeated)")
    p.add_argument("--library", help="a library compiled from the folder with generation=True "
                   "(default: compile, cached)")
    p.add_argument("--threads", type=int, default=0, help="0: one per core (default)")
    p.set_defaults(run=_generate)

    p = sub.add_parser("compile", help="run tfmc (a thin wrapper); prints the library's path")
    p.add_argument("model", help="tfm spec, config.json, Hugging Face folder or .mlir")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--target", default="cpu", help="cpu (default) or nvptx")
    p.add_argument("--precision", default="f32", help="f32 (default), bf16 or f16")
    p.add_argument("--gpu-arch")
    p.add_argument("--dump-ir-dir")
    p.add_argument("--generation", action="store_true",
                   help="also compile a decoder's generation step (tfmc --generation)")
    p.set_defaults(run=_compile)
    parser.epilog = "compile: options after -- go to tfmc unchanged"

    argv = sys.argv[1:] if argv is None else list(argv)
    extra: List[str] = []
    if "--" in argv:  # the rest is tfmc's
        argv, extra = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    args = parser.parse_args(argv)
    if extra and args.command != "compile":
        parser.error("options after -- are for compile only")
    args.tfmc_args = extra
    try:
        status: int = args.run(args)
        return status
    except Error as e:
        sys.stdout.flush()
        print(f"tfm: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
