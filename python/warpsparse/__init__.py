"""warpsparse: MACKO, CSR, 2:4 and bitmap-tile sparse matrices, their warp models and CUDA kernels.

Host API (numpy, any machine): encode_macko / encode_csr / encode_sparse24 / encode_bitmap, .to_dense()
to decode,
the files (read_macko, write_macko, write_macko_safetensors, read_sparse24, read_bitmap,
write_bitmap_safetensors, read/write_matrix_market,
open_tensor_file), verify (the warp model against the double oracle), spmv_model (the kernel's bits on
the host), plan, batch_kernel (MACKO, the bitmap-tile kernel or the 2:4 GEMM for a batch), effd, crossovers and analyze. GPU API: warpsparse.cuda; PyTorch: warpsparse.torch.
Every function is the C++ library's (python/src/py_api.hpp); this package only marshals.
"""
from ._warpsparse import (
    Bitmap,
    Csr,
    Error,
    Macko,
    Rows,
    Sparse24,
    TensorFile,
    analyze,
    batch_kernel,
    bitmap_max_batch,
    compiled_batches,
    crossovers,
    effd,
    encode_bitmap,
    encode_csr,
    encode_macko,
    encode_sparse24,
    macko_oracle_bound,
    open_tensor_file,
    plan,
    prune,
    read_bitmap,
    read_macko,
    read_matrix_market,
    read_sparse24,
    rows_from_dense,
    sparse24_oracle_bound,
    spmv_model,
    verify,
    version,
    write_bitmap_safetensors,
    write_macko,
    write_macko_safetensors,
    write_matrix_market,
    write_sparse24_safetensors,
)

__version__ = version()


def decode(matrix):
    """The dense matrix of a Macko, Csr, Sparse24, Bitmap or Rows (zeros where nothing is stored)."""
    return matrix.to_dense()


from . import cuda  # noqa: E402  (the GPU API imports without a device; its calls say why they cannot run)
