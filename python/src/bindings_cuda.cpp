// _warpsparse.cuda: the kernels on any DLPack CUDA tensor (torch, CuPy), on the caller's stream.
// Tensors are taken through __dlpack__(stream=...) so the producer orders its pending work before
// ours; every tensor is checked (device, dtype, shape, strides, offset) before a launch.
#include <Python.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "dlpack_abi.hpp"

namespace warpsparse::py::glue {

namespace {

using namespace dlpack;

std::string type_name(const pb::handle& obj) { return pb::str(pb::type::of(obj).attr("__name__")).cast<std::string>(); }

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string t = "(";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

// A tensor seen through DLPack for the length of one call. `capsule` keeps the producer's memory
// alive; it is not consumed, so its own destructor releases it.
struct DlView {
  pb::object capsule;
  void* data = nullptr;
  Elem elem = Elem::f32;
  int device = 0;
  std::vector<std::int64_t> shape, strides;  // strides in elements

  bool c_contiguous() const {
    std::int64_t expect = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
      if (shape[i] != 1 && strides[i] != expect) return false;
      expect *= shape[i];
    }
    return true;
  }
};

Elem elem_of_dl(const DLDataType& t, const char* what) {
  if (t.lanes == 1) {
    if (t.code == kDLFloat && t.bits == 16) return Elem::f16;
    if (t.code == kDLBfloat && t.bits == 16) return Elem::bf16;
    if (t.code == kDLFloat && t.bits == 32) return Elem::f32;
  }
  throw std::invalid_argument(std::string(what) + " has DLPack dtype code " + std::to_string(t.code) + ", " +
                              std::to_string(t.bits) + " bits, " + std::to_string(t.lanes) +
                              " lanes; the kernels take float16, bfloat16 or float32");
}

[[noreturn]] void refuse_device(int type, const char* what) {
  throw std::invalid_argument(std::string(what) + " is on DLPack device type " + std::to_string(type) +
                              (type == kDLCPU ? " (CPU)" : "") +
                              "; warpsparse.cuda takes CUDA tensors (host arrays go to the warp model)");
}

// The fast form warpsparse.cuda passes for a torch tensor on the stream of the launch: a tuple (data
// pointer, shape, strides in elements, DLPack type code, bits, device index), read from the tensor's
// own attributes. It skips two __dlpack__ protocol calls per tensor (tens of microseconds in torch),
// and goes through the same checks as a DLPack tensor.
DlView tuple_view(const pb::tuple& t, const char* what) {
  if (t.size() != 6)
    throw std::invalid_argument(std::string(what) + ": a tensor tuple is (data, shape, strides, code, bits, device)");
  DlView v;
  v.data = reinterpret_cast<void*>(t[0].cast<std::uintptr_t>());
  v.shape = t[1].cast<std::vector<std::int64_t>>();
  v.strides = t[2].cast<std::vector<std::int64_t>>();
  if (v.strides.size() != v.shape.size())
    throw std::invalid_argument(std::string(what) + ": shape " + shape_text(v.shape) + " and strides " +
                                shape_text(v.strides) + " differ in length");
  DLDataType dt{};
  dt.code = t[3].cast<std::uint8_t>();
  dt.bits = t[4].cast<std::uint8_t>();
  dt.lanes = 1;
  v.elem = elem_of_dl(dt, what);
  v.device = t[5].cast<int>();
  if (v.device < 0) refuse_device(kDLCPU, what);
  return v;
}

DlView dl_import(const pb::handle& obj, std::uintptr_t stream, const char* what, bool writable) {
  if (pb::isinstance<pb::tuple>(obj)) return tuple_view(pb::reinterpret_borrow<pb::tuple>(obj), what);
  if (!pb::hasattr(obj, "__dlpack__"))
    throw pb::type_error(std::string(what) + " must be a CUDA tensor with __dlpack__ (torch, CuPy), got " + type_name(obj));
  // DLPack's stream integers are CUDA's handles, except that 0 is not allowed: 1 is the legacy
  // default stream (cudaStreamLegacy), which is what handle 0 means to a launch.
  const std::uintptr_t producer_stream = stream == 0 ? 1 : stream;
  // The device first (DLPack's protocol): a stream means something only to a CUDA producer.
  if (pb::hasattr(obj, "__dlpack_device__")) {
    const auto dev = obj.attr("__dlpack_device__")().cast<std::pair<int, int>>();
    if (dev.first != kDLCUDA && dev.first != kDLCUDAManaged) refuse_device(dev.first, what);
  }
  DlView v;
  v.capsule = obj.attr("__dlpack__")(pb::arg("stream") = producer_stream);
  PyObject* cap = v.capsule.ptr();
  const DLTensor* t = nullptr;
  if (PyCapsule_IsValid(cap, kCapsuleName)) {
    t = &static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, kCapsuleName))->dl_tensor;
  } else if (PyCapsule_IsValid(cap, kVersionedCapsuleName)) {
    const auto* mt = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, kVersionedCapsuleName));
    if (writable && (mt->flags & kDLPackFlagBitmaskReadOnly) != 0)
      throw std::invalid_argument(std::string(what) + " is read-only (DLPack flag); it is written here");
    t = &mt->dl_tensor;
  } else {
    throw std::invalid_argument(std::string(what) + ".__dlpack__() returned no DLPack capsule");
  }
  if (t->device.device_type != kDLCUDA && t->device.device_type != kDLCUDAManaged) refuse_device(t->device.device_type, what);
  v.device = t->device.device_id;
  v.elem = elem_of_dl(t->dtype, what);
  v.shape.assign(t->shape, t->shape + t->ndim);
  if (t->strides != nullptr) {
    v.strides.assign(t->strides, t->strides + t->ndim);
  } else {
    v.strides.resize(v.shape.size());
    std::int64_t s = 1;
    for (std::size_t i = v.shape.size(); i-- > 0;) {
      v.strides[i] = s;
      s *= v.shape[i];
    }
  }
  v.data = static_cast<char*>(t->data) + t->byte_offset;
  return v;
}

// Device memory for an output the caller did not pass, exported through DLPack (torch.from_dlpack,
// cupy.from_dlpack). It remembers the stream that writes it, so a consumer on another stream is
// ordered after that write.
struct DeviceArray {
  DeviceAllocation alloc;
  Elem elem = Elem::f32;
  std::vector<std::int64_t> shape;
  std::uintptr_t stream = 0;
};

std::string dl_dtype_name(Elem e) { return e == Elem::bf16 ? "bfloat16" : elem_name(e); }

struct ExportCtx {
  DLManagedTensor mt{};
  std::vector<std::int64_t> shape;
  DeviceAllocation keep;
};

void export_deleter(DLManagedTensor* self) { delete static_cast<ExportCtx*>(self->manager_ctx); }

// The DLPack specification's capsule destructor: an unconsumed capsule releases its tensor.
void capsule_destructor(PyObject* cap) {
  if (PyCapsule_IsValid(cap, kUsedCapsuleName)) return;
  PyObject *type = nullptr, *value = nullptr, *trace = nullptr;
  PyErr_Fetch(&type, &value, &trace);
  auto* mt = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, kCapsuleName));
  if (mt == nullptr) PyErr_WriteUnraisable(cap);
  else if (mt->deleter != nullptr) mt->deleter(mt);
  PyErr_Restore(type, value, trace);
}

pb::capsule dl_export(const DeviceArray& a, const pb::object& consumer_stream) {
  // None: the consumer did not say, DLPack's legacy default stream; -1: it orders the work itself.
  const std::intptr_t s = consumer_stream.is_none() ? 1 : consumer_stream.cast<std::intptr_t>();
  if (s != -1) stream_order(a.stream, static_cast<std::uintptr_t>(s));
  auto* ctx = new ExportCtx{{}, a.shape, a.alloc};
  DLTensor& t = ctx->mt.dl_tensor;
  t.data = a.alloc.data();
  t.device = {kDLCUDA, a.alloc.device()};
  t.ndim = static_cast<std::int32_t>(ctx->shape.size());
  t.dtype = {a.elem == Elem::bf16 ? kDLBfloat : kDLFloat, static_cast<std::uint8_t>(8 * elem_bytes(a.elem)), 1};
  t.shape = ctx->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  ctx->mt.manager_ctx = ctx;
  ctx->mt.deleter = export_deleter;
  PyObject* cap = PyCapsule_New(&ctx->mt, kCapsuleName, capsule_destructor);
  if (cap == nullptr) {
    delete ctx;
    throw pb::error_already_set();
  }
  return pb::reinterpret_steal<pb::capsule>(cap);
}

pb::object new_device_array(Elem elem, std::vector<std::int64_t> shape, std::uintptr_t stream) {
  std::uint64_t n = elem_bytes(elem);
  for (const std::int64_t d : shape) n *= static_cast<std::uint64_t>(d);
  return pb::cast(DeviceArray{device_alloc(n), elem, std::move(shape), stream});
}

void require_device(const DlView& v, int device, const char* what) {
  if (v.device != device)
    throw std::invalid_argument(std::string(what) + " is on CUDA device " + std::to_string(v.device) +
                                ", the matrix on device " + std::to_string(device));
}

void require_contiguous(const DlView& v, const char* what) {
  if (!v.c_contiguous())
    throw std::invalid_argument(std::string(what) + " must be C-contiguous, got strides " + shape_text(v.strides) +
                                " for shape " + shape_text(v.shape) + " (call .contiguous())");
}

Elem elem_of_value_type(const std::string& t) { return t == "bf16" ? Elem::bf16 : Elem::f16; }

// A row-major matrix with unit column stride, and its row pitch in elements.
std::int64_t row_pitch(const DlView& v, const char* what) {
  if (v.shape.size() != 2) throw std::invalid_argument(std::string(what) + " must be 2-D, got shape " + shape_text(v.shape));
  if (v.shape[1] > 1 && v.strides[1] != 1)
    throw std::invalid_argument(std::string(what) + " must have unit column stride, got strides " + shape_text(v.strides));
  if (v.shape[0] > 1 && v.strides[0] < v.shape[1])
    throw std::invalid_argument(std::string(what) + " rows overlap: strides " + shape_text(v.strides) + " for shape " +
                                shape_text(v.shape));
  return v.shape[0] > 1 ? v.strides[0] : v.shape[1];
}

// Where a result goes: `out` as given (a DLPack tensor, or a DeviceArray of ours), or a new
// DeviceArray of `shape`. Returns the pointer, type and row pitch the launch writes with.
struct OutTarget {
  pb::object result;
  void* data = nullptr;
  Elem elem = Elem::f32;
  std::int64_t pitch = 0;
};

OutTarget out_target(const pb::object& out, const std::vector<std::int64_t>& shape, Elem fresh_elem, int device,
                     std::uintptr_t stream, bool pitched) {
  OutTarget t{out.is_none() ? new_device_array(fresh_elem, shape, stream) : out};
  t.pitch = shape.size() == 2 ? shape[1] : 1;
  if (pb::isinstance<DeviceArray>(t.result)) {
    auto& d = t.result.cast<DeviceArray&>();
    if (d.shape != shape) throw std::invalid_argument("out must have shape " + shape_text(shape) + ", got " + shape_text(d.shape));
    t.data = d.alloc.data();
    t.elem = d.elem;
    d.stream = stream;
    return t;
  }
  const DlView v = dl_import(t.result, stream, "out", true);
  require_device(v, device, "out");
  if (v.shape != shape) throw std::invalid_argument("out must have shape " + shape_text(shape) + ", got " + shape_text(v.shape));
  if (pitched) t.pitch = row_pitch(v, "out");
  else require_contiguous(v, "out");
  t.data = v.data;
  t.elem = v.elem;
  return t;
}

// The batched products' arguments (MACKO, bitmap tiles): x of shape (cols,) or (cols, batch),
// C-contiguous on the matrix's device, and y of the same shape with `rows` rows.
struct BatchedArgs {
  DlView x;
  std::int64_t batch = 1;
  OutTarget y;
};
template <class Matrix>
BatchedArgs batched_args(const Matrix& a, const pb::handle& x, const pb::object& out, std::uintptr_t stream, float beta) {
  BatchedArgs r{dl_import(x, stream, "x", false)};
  require_device(r.x, a.device(), "x");
  if ((r.x.shape.size() != 1 && r.x.shape.size() != 2) || r.x.shape[0] != a.cols())
    throw std::invalid_argument("x must have shape (cols,) or (cols, batch) with cols = " + std::to_string(a.cols()) +
                                ", got " + shape_text(r.x.shape));
  require_contiguous(r.x, "x");
  r.batch = r.x.shape.size() == 2 ? r.x.shape[1] : 1;
  std::vector<std::int64_t> y_shape = r.x.shape;
  y_shape[0] = a.rows();
  if (out.is_none() && beta != 0.0f) throw std::invalid_argument("beta != 0 reads y: pass out");
  r.y = out_target(out, y_shape, elem_of_value_type(a.value_type()), a.device(), stream, false);
  return r;
}

pb::object macko_spmv(const DeviceMacko& a, const pb::handle& x, const pb::object& out, std::uintptr_t stream,
                      const std::string& schedule, float alpha, float beta) {
  const BatchedArgs r = batched_args(a, x, out, stream, beta);
  a.spmv(r.x.data, r.y.data, r.x.elem, r.y.elem, static_cast<int>(r.batch), alpha, beta, schedule, stream);
  return r.y.result;
}

pb::object sparse24_gemm(const DeviceSparse24& a, const pb::handle& b, const pb::object& out, std::uintptr_t stream,
                         const std::string& tile) {
  const DlView bv = dl_import(b, stream, "B", false);
  require_device(bv, a.device(), "B");
  const std::int64_t ldb = row_pitch(bv, "B");
  if (bv.shape[0] != a.cols())
    throw std::invalid_argument("B must have shape (cols, n) with cols = " + std::to_string(a.cols()) + ", got " +
                                shape_text(bv.shape));
  const std::vector<std::int64_t> c_shape{a.rows(), bv.shape[1]};
  const OutTarget c = out_target(out, c_shape, elem_of_value_type(a.value_type()), a.device(), stream, true);
  a.gemm(bv.data, bv.elem, bv.shape[1], ldb, c.data, c.elem, c.pitch, tile, stream);
  return c.result;
}

pb::object bitmap_spmm(const DeviceBitmap& a, const pb::handle& x, const pb::object& out, std::uintptr_t stream,
                       float alpha, float beta) {
  const BatchedArgs r = batched_args(a, x, out, stream, beta);
  a.spmm(r.x.data, r.y.data, r.x.elem, r.y.elem, static_cast<int>(r.batch), alpha, beta, stream);
  return r.y.result;
}

}  // namespace

void bind_cuda(pb::module_& m) {
  using pb::arg;
  m.def("built", &cuda_built, "whether the kernels were compiled in");
  m.def("device_count", &cuda_device_count);
  m.def("current_device", &cuda_current_device);

  pb::class_<DeviceArray>(m, "DeviceArray", "Device memory warpsparse allocated for an output; read it with DLPack")
      .def_property_readonly("shape", [](const DeviceArray& a) { return pb::tuple(pb::cast(a.shape)); })
      .def_property_readonly("dtype", [](const DeviceArray& a) { return dl_dtype_name(a.elem); })
      .def_property_readonly("device", [](const DeviceArray& a) { return a.alloc.device(); })
      .def("__dlpack__", [](const DeviceArray& a, const pb::object& stream, const pb::object&, const pb::object&,
                            const pb::object&) { return dl_export(a, stream); },
           pb::kw_only(), arg("stream") = pb::none(), arg("max_version") = pb::none(), arg("dl_device") = pb::none(),
           arg("copy") = pb::none())
      .def("__dlpack_device__", [](const DeviceArray& a) { return pb::make_tuple(static_cast<int>(kDLCUDA), a.alloc.device()); });
  m.def("empty", [](const std::vector<std::int64_t>& shape, const std::string& dtype) {
    const Elem e = dtype == "bfloat16" || dtype == "bf16" ? Elem::bf16 : elem_of(pb::dtype(dtype));
    if (e != Elem::f16 && e != Elem::bf16 && e != Elem::f32)
      throw std::invalid_argument("device arrays hold float16, bfloat16 or float32, not " + dtype);
    return new_device_array(e, shape, 0);
  }, arg("shape"), arg("dtype") = "float16");

  // What a tensor looks like through DLPack after the checks every call makes (tests, debugging).
  m.def("dlpack_view", [](const pb::handle& obj, std::uintptr_t stream) {
    const DlView v = dl_import(obj, stream, "tensor", false);
    pb::dict d;
    d["device"] = v.device;
    d["dtype"] = dl_dtype_name(v.elem);
    d["shape"] = pb::tuple(pb::cast(v.shape));
    d["strides"] = pb::tuple(pb::cast(v.strides));
    d["data"] = reinterpret_cast<std::uintptr_t>(v.data);
    d["c_contiguous"] = v.c_contiguous();
    return d;
  }, arg("tensor"), arg("stream") = 0);

  pb::class_<DeviceMacko>(m, "DeviceMacko", "A MACKO matrix in device memory (owns its buffers)")
      .def_property_readonly("shape", [](const DeviceMacko& a) { return pb::make_tuple(a.rows(), a.cols()); })
      .def_property_readonly("value_type", &DeviceMacko::value_type)
      .def_property_readonly("device", &DeviceMacko::device)
      .def_property_readonly("bytes", &DeviceMacko::bytes)
      .def("schedule", &DeviceMacko::schedule, arg("batch") = 1, "the schedule the policy picks for this many vectors")
      .def("gathers_x_through_l1", &DeviceMacko::gathers_x_through_l1, arg("tokens"),
           "whether MACKO's schedule for this many vectors gathers x through L1 (not shared memory)");
  m.def("upload_macko", &upload_macko, arg("matrix"));
  m.def("macko_spmv", &macko_spmv, arg("a"), arg("x"), arg("out"), arg("stream"), arg("schedule"), arg("alpha"), arg("beta"));
  m.def("time_launches", [](const DeviceMacko& a, const pb::handle& x, const pb::handle& out, int iters, std::uintptr_t stream) {
    const DlView xv = dl_import(x, stream, "x", false);
    const DlView yv = dl_import(out, stream, "out", true);
    require_contiguous(xv, "x");
    require_contiguous(yv, "out");
    const int batch = xv.shape.size() == 2 ? static_cast<int>(xv.shape[1]) : 1;
    pb::gil_scoped_release unlocked;
    return a.time_launches(xv.data, yv.data, yv.elem, batch, iters, stream);
  }, arg("a"), arg("x"), arg("out"), arg("iters"), arg("stream"));

  pb::class_<DeviceSparse24>(m, "DeviceSparse24", "A 2:4 matrix in device memory (owns its buffers)")
      .def_property_readonly("shape", [](const DeviceSparse24& a) { return pb::make_tuple(a.rows(), a.cols()); })
      .def_property_readonly("value_type", &DeviceSparse24::value_type)
      .def_property_readonly("device", &DeviceSparse24::device);
  m.def("upload_sparse24", &upload_sparse24, arg("matrix"));
  m.def("sparse24_gemm", &sparse24_gemm, arg("a"), arg("b"), arg("out"), arg("stream"), arg("tile"));

  pb::class_<DeviceBitmap>(m, "DeviceBitmap", "A bitmap-tile matrix in device memory (owns its buffers)")
      .def_property_readonly("shape", [](const DeviceBitmap& a) { return pb::make_tuple(a.rows(), a.cols()); })
      .def_property_readonly("value_type", &DeviceBitmap::value_type)
      .def_property_readonly("device", &DeviceBitmap::device)
      .def_property_readonly("bytes", &DeviceBitmap::bytes)
      .def("bound_chain", &DeviceBitmap::bound_chain, arg("batch"),
           "the fp32 summation chain (u = 2^-24) whose forward bound covers the kernel's sums at this batch");
  m.def("upload_bitmap", &upload_bitmap, arg("matrix"));
  m.def("bitmap_spmm", &bitmap_spmm, arg("a"), arg("x"), arg("out"), arg("stream"), arg("alpha"), arg("beta"));
}

}  // namespace warpsparse::py::glue
