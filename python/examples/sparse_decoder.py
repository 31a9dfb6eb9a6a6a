"""A small decoder stack with Llama-7B layer shapes (hidden 4096, MLP 11008), randomly initialised,
magnitude-pruned to d = 0.5 (warpsparse.prune, per row), every nn.Linear replaced by SparseLinear;
prints tokens/s at batch 1 for the dense and the sparse stack on the GPU and the largest error of the
sparse output against the dense one.
Usage: python sparse_decoder.py [--layers 4] [--dtype float16|bfloat16] [--steps 200]"""
import argparse
import copy
import time

import numpy as np
import torch

import warpsparse as ws
import warpsparse.torch as wt


class Block(torch.nn.Module):
    """The seven projections of a Llama layer (attention's q, k, v, o and the gated MLP) at one
    token: attention reduced to its projections, as decoding at batch 1 is bound by them."""

    def __init__(self, hidden, mlp, dtype):
        super().__init__()
        lin = lambda i, o: torch.nn.Linear(i, o, bias=False, device="cuda", dtype=dtype)  # noqa: E731
        self.q, self.k, self.v, self.o = (lin(hidden, hidden) for _ in range(4))
        self.gate, self.up, self.down = lin(hidden, mlp), lin(hidden, mlp), lin(mlp, hidden)
        self.norm1 = torch.nn.RMSNorm(hidden, device="cuda", dtype=dtype)
        self.norm2 = torch.nn.RMSNorm(hidden, device="cuda", dtype=dtype)

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.o(self.q(h) * torch.sigmoid(self.k(h)) + self.v(h))
        h = self.norm2(x)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))


def host_bits(w):
    """A weight as numpy: float16, or bf16 bits as uint16."""
    w = w.detach().cpu()
    return w.view(torch.int16).numpy().view(np.uint16) if w.dtype == torch.bfloat16 else w.numpy()


def prune_(model):
    """Magnitude pruning to d = 0.5 per row, by the library (warpsparse.prune), in place."""
    for m in model.modules():
        if isinstance(m, torch.nn.Linear):
            pruned = torch.from_numpy(ws.prune(host_bits(m.weight), density=0.5).view(np.int16 if m.weight.dtype == torch.bfloat16 else np.float16))
            m.weight.copy_(pruned.view(m.weight.dtype))


def tokens_per_s(model, x, steps):
    graph = torch.cuda.CUDAGraph()  # one launch per step: what a decoder's loop runs
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        model(x)
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(graph):
        y = model(x)
    for _ in range(10):
        graph.replay()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(steps):
        graph.replay()
    stop.record()
    stop.synchronize()
    return steps / (start.elapsed_time(stop) / 1000), y.clone()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--mlp", type=int, default=11008)
    p.add_argument("--dtype", choices=["float16", "bfloat16"], default="float16")
    p.add_argument("--steps", type=int, default=200)
    a = p.parse_args()
    dtype = getattr(torch, a.dtype)
    torch.manual_seed(0)
    with torch.no_grad():
        dense = torch.nn.Sequential(*(Block(a.hidden, a.mlp, dtype) for _ in range(a.layers)))
        prune_(dense)
        t0 = time.perf_counter()
        sparse = wt.sparsify(copy.deepcopy(dense), format="macko")
        encode_s = time.perf_counter() - t0
        x = torch.randn(1, a.hidden, device="cuda", dtype=dtype)
        dense_tps, y_dense = tokens_per_s(dense, x, a.steps)
        sparse_tps, y_sparse = tokens_per_s(sparse, x, a.steps)
    err = (y_sparse.float() - y_dense.float()).abs().max().item()
    scale = y_dense.float().abs().max().item()
    print(f"{torch.cuda.get_device_name()}  {a.layers} layers  {a.hidden}/{a.mlp}  {a.dtype}  d = 0.5  "
          f"(encode + upload {encode_s:.1f} s)")
    print(f"dense : {dense_tps:8.1f} tokens/s")
    print(f"sparse: {sparse_tps:8.1f} tokens/s  ({sparse_tps / dense_tps:.2f}x)")
    print(f"max |sparse - dense| = {err:.3g}  (max |dense| = {scale:.3g})")


if __name__ == "__main__":
    main()
