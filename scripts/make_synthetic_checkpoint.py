#!/usr/bin/python3
"""Writes a synthetic checkpoint with Llama-2-7B's layer shapes, for timing `warpsparse analyze`.

32 layers of q, k, v, o (4096 x 4096), gate and up (11008 x 4096), down (4096 x 11008), and the two
RMSNorm weights (4096, 1-D); fp16, Gaussian, magnitude-pruned per row to --density (default 0.5);
written as safetensors shards plus a model.safetensors.index.json, the way Hugging Face shards a
checkpoint. About 13 GB at the full 32 layers (--layers N for a slice). Not committed: generate it.

  /usr/bin/python3 scripts/make_synthetic_checkpoint.py OUT_DIR [--layers 32] [--shards 3] [--density 0.5]

Needs only numpy (Debian: python3-numpy); the safetensors format is written by hand (an 8-byte
little-endian header length, a JSON header, the data).
"""
import argparse
import json
import os
import struct
import sys

import numpy as np


def layer_tensors(i):
    p = f"model.layers.{i}."
    h, f = 4096, 11008
    return [(p + "self_attn.q_proj.weight", (h, h)), (p + "self_attn.k_proj.weight", (h, h)),
            (p + "self_attn.v_proj.weight", (h, h)), (p + "self_attn.o_proj.weight", (h, h)),
            (p + "mlp.gate_proj.weight", (f, h)), (p + "mlp.up_proj.weight", (f, h)),
            (p + "mlp.down_proj.weight", (h, f)), (p + "input_layernorm.weight", (h,)),
            (p + "post_attention_layernorm.weight", (h,))]


def make(shape, density, rng):
    w = rng.standard_normal(shape, dtype=np.float32)
    if len(shape) == 2 and density < 1:
        keep = int(round(density * shape[1]))
        a = np.abs(w)
        # The keep-th largest magnitude of each row; everything below it is zeroed.
        kth = np.partition(a, shape[1] - keep, axis=1)[:, shape[1] - keep][:, None]
        w[a < kth] = 0
    return (w * 0.02).astype(np.float16) if len(shape) == 2 else np.ones(shape, np.float16)


def write_shard(path, specs, density, rng):
    """Writes the header from the shapes, then each tensor as it is made (one in memory at a time)."""
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shape in specs:
        nbytes = 2 * int(np.prod(shape))
        header[name] = {"dtype": "F16", "shape": list(shape), "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, shape in specs:
            f.write(make(shape, density, rng).tobytes())
    return offset


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=32)
    ap.add_argument("--shards", type=int, default=3)
    ap.add_argument("--density", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    per = -(-a.layers // a.shards)
    weight_map, total = {}, 0
    for s in range(a.shards):
        layers = range(s * per, min(a.layers, (s + 1) * per))
        if not layers:
            break
        name = f"model-{s + 1:05d}-of-{a.shards:05d}.safetensors"
        specs = [(n, shape) for i in layers for n, shape in layer_tensors(i)]
        nbytes = write_shard(os.path.join(a.out, name), specs, a.density, rng)
        for n, _ in specs:
            weight_map[n] = name
        total += nbytes
        print(f"{name}: layers {layers.start}-{layers.stop - 1}, {nbytes / 1e9:.2f} GB", file=sys.stderr)
    with open(os.path.join(a.out, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=1)
    print(f"{a.out}: {len(weight_map)} tensors, {total / 1e9:.2f} GB", file=sys.stderr)


if __name__ == "__main__":
    main()
