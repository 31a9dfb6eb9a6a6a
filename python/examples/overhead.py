"""Python's cost per MACKO call over the C++ launch (4096 x 4096, d = 0.5, fp16, batch 1): CUDA
events over a loop of calls from C++ (warpsparse.cuda.time_launches), from Python through DLPack
(warpsparse.cuda.macko_spmv), through the torch op, and the torch op replayed from a CUDA graph; and
the host time per Python call (perf_counter), which is what the GPU hides while it is busier.
Usage: python overhead.py [--rows 4096] [--cols 4096] [--iters 2000]"""
import argparse
import time

import numpy as np
import torch

import warpsparse as ws
import warpsparse.torch as wt


def per_call_us(fn, iters, stream):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    start.record(stream)
    for _ in range(iters):
        fn()
    stop.record(stream)
    host = (time.perf_counter() - t0) / iters * 1e6
    stop.synchronize()
    return start.elapsed_time(stop) * 1000 / iters, host


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=4096)
    p.add_argument("--cols", type=int, default=4096)
    p.add_argument("--density", type=float, default=0.5)
    p.add_argument("--iters", type=int, default=2000)
    a = p.parse_args()
    rng = np.random.default_rng(0)
    w = ws.prune(rng.standard_normal((a.rows, a.cols)).astype(np.float16), density=a.density)
    A = ws.cuda.upload_macko(ws.encode_macko(w, align_rows=True))
    key = wt.register_matrix(A)
    x = torch.randn(a.cols, 1, device="cuda", dtype=torch.float16)
    y = torch.empty(a.rows, 1, device="cuda", dtype=torch.float16)
    stream = torch.cuda.current_stream()
    cpp = ws.cuda.time_launches(A, x, y, a.iters, stream)
    py_gpu, py_host = per_call_us(lambda: ws.cuda.macko_spmv(A, x, out=y, stream=stream), a.iters, stream)
    op_gpu, op_host = per_call_us(lambda: torch.ops.warpsparse.macko_spmv(x, key, a.rows), a.iters, stream)
    graph_calls = 100
    g = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream()
    side.wait_stream(stream)
    with torch.cuda.stream(side):
        torch.ops.warpsparse.macko_spmv(x, key, a.rows)
    stream.wait_stream(side)
    with torch.cuda.graph(g):
        for _ in range(graph_calls):
            torch.ops.warpsparse.macko_spmv(x, key, a.rows)
    graph_gpu, _ = per_call_us(g.replay, max(1, a.iters // graph_calls), stream)
    graph_gpu /= graph_calls
    print(f"{torch.cuda.get_device_name()}  {a.rows} x {a.cols}  d = {a.density}  fp16  batch 1  "
          f"schedule {A.schedule(1)}")
    print(f"C++ launch loop            : {cpp:7.2f} us per launch (GPU, CUDA events)")
    print(f"warpsparse.cuda.macko_spmv : {py_gpu:7.2f} us per call (GPU), {py_host:6.2f} us host;"
          f" overhead {py_gpu - cpp:+.2f} us")
    print(f"torch.ops.warpsparse       : {op_gpu:7.2f} us per call (GPU), {op_host:6.2f} us host;"
          f" overhead {op_gpu - cpp:+.2f} us")
    print(f"torch op under a CUDA graph: {graph_gpu:7.2f} us per call; overhead {graph_gpu - cpp:+.2f} us")


if __name__ == "__main__":
    main()
