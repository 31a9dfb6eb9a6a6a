"""warpsparse.torch: the kernels as PyTorch custom ops, and SparseLinear, a drop-in nn.Linear.

The ops (torch.ops.warpsparse.macko_spmv, .bitmap_spmm, .sparse24_gemm) are defined on a
torch.library.Library with a CUDA kernel and a fake implementation, so torch.compile(fullgraph=True)
traces through them and CUDA graphs capture them: they launch on torch.cuda.current_stream(). An op
takes no Python objects, so a device matrix is passed by its key in a registry (register_matrix).

Import this module only where torch is installed; `import warpsparse` never imports torch.
"""
import weakref

import numpy as np
import torch

from . import Error, batch_kernel, bitmap_max_batch, compiled_batches, encode_bitmap, encode_macko, encode_sparse24
from . import cuda as _cuda

__all__ = ["SparseLinear", "sparsify", "register_matrix", "macko_spmv", "bitmap_spmm", "sparse24_gemm"]

_matrices = {}
_BATCHES = tuple(compiled_batches())
_BITMAP_MAX = bitmap_max_batch()
# kernels/sparse24/sparse24_gemm.hpp: B's row pitch is a multiple of 8 elements (16-byte cp.async chunks).
_B_PITCH = 8
# The fewest tokens the layer runs the 2:4 GEMM with (zero columns added): on the H100 the GEMM took
# 77 / 105 / 106 us at N = 16 and 92 / 130 / 119 at N = 8 (12288 x 12288, 28672 x 8192, 8192 x 28672,
# bf16, 2026-11-27).
_GEMM_MIN_N = 16


def register_matrix(device_matrix):
    """The key a custom op takes for a DeviceMacko, DeviceBitmap or DeviceSparse24. The registry holds the matrix
    (SparseLinear drops its own when it is collected)."""
    key = id(device_matrix)
    _matrices[key] = device_matrix
    return key


def _stream(t):
    return _cuda.current_torch_stream(t.get_device())


def _macko_spmv(x, key, rows):
    out = torch.empty((rows, x.shape[1]), dtype=x.dtype, device=x.device)
    _cuda.macko_spmv(_matrices[key], _cuda.torch_view(x), out=_cuda.torch_view(out), stream=_stream(x))
    return out


def _bitmap_spmm(x, key, rows):
    out = torch.empty((rows, x.shape[1]), dtype=x.dtype, device=x.device)
    _cuda.bitmap_spmm(_matrices[key], _cuda.torch_view(x), out=_cuda.torch_view(out), stream=_stream(x))
    return out


def _sparse24_gemm(b, key, rows):
    out = torch.empty((rows, b.shape[1]), dtype=b.dtype, device=b.device)
    _cuda.sparse24_gemm(_matrices[key], _cuda.torch_view(b), out=_cuda.torch_view(out), stream=_stream(b))
    return out


# The ops are defined on a torch.library.Library with a CUDA kernel and a fake: the plainest
# registration that torch.compile(fullgraph=True) and CUDA graphs take. (torch.library.custom_op
# costs the same in eager mode, within the noise: 16-17 us a call over the kernel on an H100 host,
# torch's dispatch into a Python kernel; SparseLinear therefore calls the bodies when not compiling.)
_lib = torch.library.Library("warpsparse", "DEF")
_lib.define("macko_spmv(Tensor x, int key, int rows) -> Tensor")
_lib.define("bitmap_spmm(Tensor x, int key, int rows) -> Tensor")
_lib.define("sparse24_gemm(Tensor b, int key, int rows) -> Tensor")
_lib.impl("macko_spmv", _macko_spmv, "CUDA")
_lib.impl("bitmap_spmm", _bitmap_spmm, "CUDA")
_lib.impl("sparse24_gemm", _sparse24_gemm, "CUDA")


@torch.library.register_fake("warpsparse::macko_spmv")
def _(x, key, rows):
    return x.new_empty((rows, x.shape[1]))


@torch.library.register_fake("warpsparse::bitmap_spmm")
def _(x, key, rows):
    return x.new_empty((rows, x.shape[1]))


@torch.library.register_fake("warpsparse::sparse24_gemm")
def _(b, key, rows):
    return b.new_empty((rows, b.shape[1]))


def macko_spmv(x, key, rows):
    """y (rows x B) = A x for x (cols x B), B a compiled batch, in the matrix's dtype
    (torch.ops.warpsparse.macko_spmv)."""
    return torch.ops.warpsparse.macko_spmv(x, key, rows)


def bitmap_spmm(x, key, rows):
    """y (rows x B) = A x for x (cols x B), 1 <= B <= 16, on tensor cores, in the matrix's dtype
    (torch.ops.warpsparse.bitmap_spmm)."""
    return torch.ops.warpsparse.bitmap_spmm(x, key, rows)


def sparse24_gemm(b, key, rows):
    """C (rows x n) = A B for B (cols x n) with a row pitch that is a multiple of 8
    (torch.ops.warpsparse.sparse24_gemm)."""
    return torch.ops.warpsparse.sparse24_gemm(b, key, rows)


def _op(op, impl):
    """The op while torch.compile traces (it needs the op and its fake); in eager mode the op's body
    itself, which launches the same kernel on the same stream without the dispatcher."""
    return op if torch.compiler.is_compiling() else impl


def _host_matrix(w):
    """A CUDA or CPU weight as numpy: float16, or bf16 bits as uint16 (numpy has no bfloat16)."""
    w = w.detach().contiguous().cpu()
    if w.dtype == torch.float16:
        return w.numpy()
    if w.dtype == torch.bfloat16:
        return w.view(torch.int16).numpy().view(np.uint16)
    raise ValueError(f"SparseLinear takes float16 or bfloat16 weights, got {w.dtype}")


def _padded_batch(n):
    return next(b for b in _BATCHES if b >= n)


class SparseLinear(torch.nn.Module):
    """y = x W^T + b with W sparse on the GPU. Each token count runs the kernel warpsparse.batch_kernel
    picks for W's density among the formats held: MACKO (CUDA cores, compiled for 1, 2, 4, 8 vectors),
    the bitmap-tile SpMM (tensor cores, 1-16), or the 2:4 GEMM when W is held as 2:4 (from 3 tokens on,
    from 2 where MACKO's 2-vector schedule gathers x through L1, and at any count when it is the only
    format). Without the GEMM, more tokens than the batched
    kernels take run in chunks (16 with bitmap tiles, 8 without). Input (..., in_features) in the
    weight's dtype (float16 or bfloat16)."""

    def __init__(self, in_features, out_features, dtype, macko=None, sparse24=None, bias=None, bitmap=None,
                 density=None):
        super().__init__()
        if macko is None and sparse24 is None and bitmap is None:
            raise ValueError("SparseLinear needs a MACKO, a bitmap-tile or a 2:4 matrix")
        if macko is not None and bitmap is not None and density is None:
            raise ValueError("SparseLinear with MACKO and bitmap tiles needs W's density to choose between them")
        self.in_features, self.out_features, self.dtype = in_features, out_features, dtype
        self._macko, self._sparse24, self._bitmap = macko, sparse24, bitmap
        self._macko_key = register_matrix(macko) if macko is not None else None
        self._sparse24_key = register_matrix(sparse24) if sparse24 is not None else None
        self._bitmap_key = register_matrix(bitmap) if bitmap is not None else None
        for key in (self._macko_key, self._sparse24_key, self._bitmap_key):
            if key is not None:
                weakref.finalize(self, _matrices.pop, key, None)
        # The batched kernels' largest chunk, and the kernel for each token count up to it.
        self._chunk = _BITMAP_MAX if bitmap is not None else _BATCHES[-1]
        self._bitmap_for = {t: bitmap is not None and (macko is None or batch_kernel(density, t)[0] == "bitmap")
                            for t in range(1, self._chunk + 1)}
        # The fewest tokens that run the 2:4 GEMM (every count past the batched kernels' too); a 2:4
        # weight's density is at most 0.5, the value taken when it is not given.
        self._gemm_from = None
        if sparse24 is not None:
            self._gemm_from = 1 if macko is None and bitmap is None else next(
                (t for t in range(1, _BITMAP_MAX + 1)
                 if batch_kernel(0.5 if density is None else density, t, sparse24=True,
                                 macko_x_l1=macko is not None and macko.gathers_x_through_l1(t))[0] == "sparse24"),
                _BITMAP_MAX + 1)
        self.bias = torch.nn.Parameter(bias.detach().clone(), requires_grad=False) if bias is not None else None

    @classmethod
    def from_dense(cls, linear, format="auto", delta_bits=4):
        """From an nn.Linear on a CUDA device. format: "macko", "bitmap", "2:4" (W must be 2:4 along
        its input dimension, e.g. warpsparse.prune(W, nm="2:4")) or "auto": MACKO, and 2:4 too when W
        is 2:4; otherwise the bitmap tiles too where warpsparse.batch_kernel picks them for W's density
        at a batch MACKO also runs (they hold about as many bytes again). delta_bits: MACKO's delta
        width, 4 by default because MACKO's batch kernels take 4-bit deltas only; 8 or "auto" (8
        where one vector walks fewer element slots, at low density) suit a layer that sees one token
        at a time, and a batch then fails with an error naming the width."""
        if format not in ("macko", "bitmap", "2:4", "auto"):
            raise ValueError(f"format must be 'macko', 'bitmap', '2:4' or 'auto', got {format!r}")
        w = linear.weight
        if w.device.type != "cuda":
            raise ValueError(f"SparseLinear.from_dense needs the Linear on a CUDA device, it is on {w.device}")
        host = _host_matrix(w)
        density = float(np.count_nonzero(host)) / max(1, host.size)
        macko = sparse24 = bitmap = None
        with torch.cuda.device(w.device):
            if format in ("macko", "auto"):
                # Aligned rows: each row starts a warp step (docs/macko-kernel.md), at no cost to the product.
                macko = _cuda.upload_macko(encode_macko(host, delta_bits=delta_bits, align_rows=True))
            if format in ("2:4", "auto"):
                try:
                    sparse24 = _cuda.upload_sparse24(encode_sparse24(host))
                except Error:
                    if format == "2:4":
                        raise
            # With 2:4, its GEMM serves 3 tokens and more, where the bitmap tiles are slower (H100, N = 8:
            # 119-179 us against the GEMM's 77-106 at N = 16 on 12288 x 12288, 28672 x 8192 and 8192 x
            # 28672), so no third copy of W.
            if format == "bitmap" or (format == "auto" and sparse24 is None and any(
                    batch_kernel(density, t)[0] == "bitmap" for t in range(1, _BATCHES[-1] + 1))):
                bitmap = _cuda.upload_bitmap(encode_bitmap(host))
        return cls(linear.in_features, linear.out_features, w.dtype, macko, sparse24, linear.bias, bitmap, density)

    def extra_repr(self):
        kinds = [k for k, m in (("macko", self._macko), ("bitmap", self._bitmap), ("2:4", self._sparse24))
                 if m is not None]
        return f"in_features={self.in_features}, out_features={self.out_features}, dtype={self.dtype}, " \
               f"formats={'+'.join(kinds)}, bias={self.bias is not None}"

    def forward(self, x):
        if x.shape[-1] != self.in_features:
            raise ValueError(f"input has {x.shape[-1]} features, the layer takes {self.in_features}")
        lead = x.shape[:-1]
        x2 = x.reshape(-1, self.in_features).to(self.dtype)
        n = x2.shape[0]
        if self._gemm_from is not None and (n >= self._gemm_from or n > self._chunk):
            y = self._gemm(x2)
        else:
            y = self._spmv(x2)
        if self.bias is not None:
            y = y + self.bias
        return y.reshape(*lead, self.out_features)

    def _spmv(self, x2):
        outs = []
        for start in range(0, x2.shape[0], self._chunk):
            chunk = x2[start:start + self._chunk]
            t = chunk.shape[0]
            if self._bitmap_for[t]:
                spmm = _op(torch.ops.warpsparse.bitmap_spmm, _bitmap_spmm)
                outs.append(spmm(chunk.t().contiguous(), self._bitmap_key, self.out_features).t())
                continue
            # MACKO in chunks of its largest batch, each padded to a compiled batch with zero vectors.
            for s in range(0, t, _BATCHES[-1]):
                part = chunk[s:s + _BATCHES[-1]]
                u = part.shape[0]
                if _padded_batch(u) > u:
                    part = torch.nn.functional.pad(part, (0, 0, 0, _padded_batch(u) - u))
                spmv = _op(torch.ops.warpsparse.macko_spmv, _macko_spmv)
                outs.append(spmv(part.t().contiguous(), self._macko_key, self.out_features)[:, :u].t())
        return outs[0] if len(outs) == 1 else torch.cat(outs)

    def _gemm(self, x2):
        n = x2.shape[0]
        pad = max(_GEMM_MIN_N, n + (-n % _B_PITCH)) - n
        b = (torch.nn.functional.pad(x2, (0, 0, 0, pad)) if pad else x2).t().contiguous()
        gemm = _op(torch.ops.warpsparse.sparse24_gemm, _sparse24_gemm)
        return gemm(b, self._sparse24_key, self.out_features)[:, :n].t()


def sparsify(module, format="auto", filter=lambda name, linear: True):
    """Replaces every nn.Linear of `module` (for which filter(name, linear) holds) by SparseLinear,
    in place; returns the module."""
    for name, child in list(module.named_modules()):
        for attr, sub in list(child.named_children()):
            full = f"{name}.{attr}" if name else attr
            if isinstance(sub, torch.nn.Linear) and filter(full, sub):
                setattr(child, attr, SparseLinear.from_dense(sub, format=format))
    return module
