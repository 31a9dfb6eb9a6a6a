"""warpsparse.cuda: the MACKO SpMV, bitmap-tile SpMM and 2:4 GEMM kernels on any DLPack CUDA tensor
(torch, CuPy).

A matrix is uploaded once (upload_macko / upload_bitmap / upload_sparse24: device objects that own
their buffers);
each call takes the caller's tensors through __dlpack__(stream=...) and launches on `stream`:
an int (a cudaStream_t; 0 is the legacy default stream), or an object with .cuda_stream (torch) or
.ptr (CuPy). Outputs are written into `out` when given, else into a new DeviceArray (read it with
torch.from_dlpack / cupy.from_dlpack).
"""
import sys as _sys

from ._warpsparse import cuda as _cuda

DeviceArray = _cuda.DeviceArray
DeviceBitmap = _cuda.DeviceBitmap
DeviceMacko = _cuda.DeviceMacko
DeviceSparse24 = _cuda.DeviceSparse24
built = _cuda.built
device_count = _cuda.device_count
current_device = _cuda.current_device
empty = _cuda.empty
upload_bitmap = _cuda.upload_bitmap
upload_macko = _cuda.upload_macko
upload_sparse24 = _cuda.upload_sparse24
dlpack_view = _cuda.dlpack_view


def available():
    """Whether the kernels were built and a CUDA device is present."""
    return built() and device_count() > 0


def stream_handle(stream):
    """A stream argument as the cudaStream_t integer the launch takes."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    raise TypeError(f"stream must be None, an int (cudaStream_t) or have .cuda_stream / .ptr, "
                    f"got {type(stream).__name__}")


_dl_types = None


def _dl_type(dtype):
    """DLPack's (type code, bits) of the torch dtypes the kernels take (kDLFloat = 2, kDLBfloat = 4);
    any other dtype gives (0, 0), which the C++ side refuses by name."""
    global _dl_types
    if _dl_types is None:
        torch = _sys.modules["torch"]
        _dl_types = {torch.float16: (2, 16), torch.bfloat16: (4, 16), torch.float32: (2, 32)}
    return _dl_types.get(dtype, (0, 0))


def current_torch_stream(device):
    """torch's current stream on a device index, as a cudaStream_t integer. torch's raw-stream
    accessor is a C function; the public torch.cuda.current_stream builds a Stream object each call
    (a few microseconds), and is the fallback where the accessor is missing."""
    torch = _sys.modules["torch"]
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    return raw(device) if raw is not None else torch.cuda.current_stream(device).cuda_stream


def torch_view(t):
    """A torch tensor as the tuple the C++ side checks like a DLPack tensor (bindings_cuda.cpp
    tuple_view), read from its attributes: __dlpack__ costs tens of microseconds a call in torch.
    Only for a tensor whose pending work is on the launch's stream (no producer sync is asked)."""
    code, bits = _dl_type(t.dtype)
    return (t.data_ptr(), t.shape, t.stride(), code, bits, t.get_device())


def _arg(t, handle):
    """t as the launch takes it: torch CUDA tensors on the launch's stream by their attributes,
    anything else through DLPack (which orders the producer's stream before the launch's)."""
    torch = _sys.modules.get("torch")
    if torch is not None and isinstance(t, torch.Tensor):
        dev = t.get_device()
        if dev >= 0 and handle == current_torch_stream(dev):
            return torch_view(t)
    return t


def macko_spmv(A, x, out=None, stream=None, schedule=None, alpha=1.0, beta=0.0):
    """out = alpha * A @ x + beta * out for x of shape (cols,) or (cols, B) with B a compiled batch
    (warpsparse.compiled_batches()). The schedule is the policy's for this device unless named
    (a name as warpsparse.plan / A.schedule(B) print it). Returns out."""
    h = stream_handle(stream)
    res = _cuda.macko_spmv(A, _arg(x, h), None if out is None else _arg(out, h), h, schedule or "", float(alpha),
                           float(beta))
    return out if out is not None else res


def bitmap_spmm(A, x, out=None, stream=None, alpha=1.0, beta=0.0):
    """out = alpha * A @ x + beta * out for x of shape (cols,) or (cols, B), 1 <= B <= 16, on tensor
    cores (fp32 sums, within A.bound_chain(B)'s bound, not in a fixed order). x must be finite: a
    tile's zeros are multiplied too. Returns out."""
    h = stream_handle(stream)
    res = _cuda.bitmap_spmm(A, _arg(x, h), None if out is None else _arg(out, h), h, float(alpha), float(beta))
    return out if out is not None else res


def sparse24_gemm(A, B, out=None, stream=None, tile=None):
    """out (rows x n) = A @ B for B of shape (cols, n), row-major with unit column stride and a row
    pitch that is a multiple of 8 (the kernel's cp.async rule). Returns out."""
    h = stream_handle(stream)
    res = _cuda.sparse24_gemm(A, _arg(B, h), None if out is None else _arg(out, h), h, tile or "")
    return out if out is not None else res


def time_launches(A, x, out, iters=1000, stream=None):
    """Microseconds per MACKO launch, `iters` launches back to back from C++ (CUDA events): the
    baseline that the Python call's overhead is measured against."""
    return _cuda.time_launches(A, x, out, int(iters), stream_handle(stream))
