"""Text generation from a Hugging Face decoder folder (config.json,
tokenizer.json, safetensors; e.g. gpt2 saved with save_pretrained):

    python examples/generate.py gpt2/ "The cat sat on" [MAX_NEW_TOKENS]

compiles the folder with its generation step once (cached in
gpt2/.tfm-cache), then streams the continuation (top-p sampling, seed 0:
the same tokens as tfm-run --top-p 0.9 --seed 0). See docs/python.md."""
import sys

import tfm

model_dir, prompt = sys.argv[1], sys.argv[2]
max_new_tokens = int(sys.argv[3]) if len(sys.argv) > 3 else 40
with tfm.TextGenerator(model_dir) as generator:
    for piece in generator.stream(prompt, max_new_tokens, top_p=0.9, seed=0):
        print(piece, end="", flush=True)
print()
