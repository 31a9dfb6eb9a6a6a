// Shared pieces of the pybind11 glue: numpy arrays to and from the facade's plain arrays. The glue
// includes only pybind11 and the facade (py_api.hpp), so it builds on any Python (build_ext.sh).
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "py_api.hpp"

namespace warpsparse::py::glue {

namespace pb = pybind11;

// The element type of a numpy dtype; ml_dtypes' bfloat16 counts as bf16, uint16 as bf16 bits.
Elem elem_of(const pb::dtype& dt);
pb::dtype dtype_of(Elem e);  // bf16 as uint16: numpy has no bfloat16
Elem elem_of_name(const pb::handle& dtype_like);  // np.float32, "float16", ...

// A numpy array (or anything np.asarray takes) as a C-contiguous HostArray; a non-contiguous array
// is copied to C order first (`keep` holds the copy for the call).
struct InArray {
  pb::array keep;
  HostArray a;
};
InArray host_in(const pb::handle& obj, const char* what);

// An OwnedArray as numpy without a copy. With `base` (the Python object that owns the bytes) the
// array is a read-only view of it; without, a capsule holding the owner is its base.
pb::array to_numpy(const OwnedArray& o, const pb::handle& base = pb::handle());

void bind_cuda(pb::module_& m);

}  // namespace warpsparse::py::glue
