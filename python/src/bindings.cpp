// The _warpsparse extension module: host API (formats, files, the warp model, the analyses). Thin
// glue over the facade (py_api.hpp); every decision is the library's.
#include <cstring>
#include <memory>

#include "bindings.hpp"

namespace warpsparse::py::glue {

Elem elem_of(const pb::dtype& dt) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  if (kind == 'f' && size == 2) return Elem::f16;
  if (kind == 'f' && size == 4) return Elem::f32;
  if (kind == 'f' && size == 8) return Elem::f64;
  if (kind == 'i' && size == 1) return Elem::i8;
  if (kind == 'i' && size == 4) return Elem::i32;
  if (kind == 'i' && size == 8) return Elem::i64;
  if (kind == 'u' && size == 1) return Elem::u8;
  if (kind == 'u' && size == 2) return Elem::u16;
  if (kind == 'u' && size == 4) return Elem::u32;
  if (kind == 'u' && size == 8) return Elem::u64;
  if (size == 2 && dt.attr("name").cast<std::string>() == "bfloat16") return Elem::bf16;
  throw std::invalid_argument("dtype " + dt.attr("name").cast<std::string>() + " is not supported here");
}

pb::dtype dtype_of(Elem e) {
  static const char* const names[] = {"float16", "uint16", "float32", "int8", "uint8", "uint16",
                                      "int32",   "int64",  "uint32",  "uint64", "float64"};
  return pb::dtype(names[static_cast<int>(e)]);
}

Elem elem_of_name(const pb::handle& dtype_like) {
  if (pb::isinstance<pb::str>(dtype_like) && dtype_like.cast<std::string>() == "bf16") return Elem::bf16;
  return elem_of(pb::dtype::from_args(pb::reinterpret_borrow<pb::object>(dtype_like)));
}

InArray host_in(const pb::handle& obj, const char* what) {
  InArray in;
  if (!pb::isinstance<pb::array>(obj) && pb::hasattr(obj, "__dlpack_device__"))
    throw std::invalid_argument(std::string(what) + " must be a host (numpy) array; device tensors go to warpsparse.cuda");
  // Non-contiguous input (a transposed weight, a slice) is copied to C order here, the only copy;
  // so is input of the other byte order (a big-endian array), turned to this machine's.
  in.keep = pb::array::ensure(obj, pb::array::c_style);
  if (!in.keep || in.keep.dtype().kind() == 'O') {
    PyErr_Clear();
    throw std::invalid_argument(std::string(what) + " must be a numeric (numpy) array, got " +
                                pb::str(pb::type::of(obj)).cast<std::string>());
  }
  if (!in.keep.dtype().attr("isnative").cast<bool>())
    in.keep = pb::array::ensure(in.keep.attr("astype")(in.keep.dtype().attr("newbyteorder")("=")),
                                pb::array::c_style);
  in.a.data = in.keep.data();
  try {
    in.a.elem = elem_of(in.keep.dtype());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(what) + ": " + e.what());
  }
  for (pb::ssize_t i = 0; i < in.keep.ndim(); ++i) in.a.shape.push_back(in.keep.shape(i));
  return in;
}

pb::array to_numpy(const OwnedArray& o, const pb::handle& base) {
  std::vector<pb::ssize_t> shape(o.shape.begin(), o.shape.end()), strides(o.strides.begin(), o.strides.end());
  if (strides.empty()) {
    strides.resize(shape.size());
    pb::ssize_t s = static_cast<pb::ssize_t>(elem_bytes(o.elem));
    for (std::size_t i = shape.size(); i-- > 0;) {
      strides[i] = s;
      s *= shape[i];
    }
  }
  if (base) {
    pb::array a(dtype_of(o.elem), shape, strides, o.data, base);
    // The format's own arrays: writing to them would break the invariants the reader checked.
    a.attr("setflags")(pb::arg("write") = false);
    return a;
  }
  auto* keep = new std::shared_ptr<const void>(o.owner);
  pb::capsule owner(keep, [](void* p) { delete static_cast<std::shared_ptr<const void>*>(p); });
  return pb::array(dtype_of(o.elem), shape, strides, o.data, owner);
}

namespace {

template <class C, class F>
auto view_of(F f) {
  return [f](const pb::object& self) { return to_numpy((self.cast<const C&>().*f)(), self); };
}

pb::dict verify_dict(const VerifyReport& r) {
  pb::dict d;
  d["ok"] = r.ok;
  d["max_error"] = r.max_error;
  d["max_bound_ratio"] = r.max_bound_ratio;
  d["overflows"] = r.overflows;
  d["failures"] = r.failures;
  d["first_failure"] = r.first_failure;
  d["fault"] = r.fault;
  d["schedules"] = r.schedules;
  d["model_seconds"] = r.model_seconds;
  if (!r.loads.empty()) {
    pb::dict loads;
    for (const auto& [name, l] : r.loads) {
      pb::dict e;
      e["loads"] = l.loads;
      e["sectors"] = l.sectors;
      e["lines"] = l.lines;
      loads[pb::str(name)] = e;
    }
    d["loads"] = loads;
  }
  return d;
}

// Dense arrays and Rows both encode; Rows come from files.
template <class F>
auto encode_any(const pb::handle& src, F f) {
  if (pb::isinstance<Rows>(src)) return f(src.cast<const Rows&>());
  const InArray in = host_in(src, "dense");
  return f(rows_from_dense(in.a));
}

pb::tuple oracle_tuple(const OracleBound& ob) { return pb::make_tuple(to_numpy(ob.exact), to_numpy(ob.bound)); }

// Everything the library refuses is a runtime_error carrying its message: warpsparse.Error.
// pybind11's own errors, ValueError (invalid_argument) and the rest keep their usual mapping.
void register_errors(pb::module_& m) {
  static pb::exception<std::runtime_error> error(m, "Error", PyExc_RuntimeError);
  pb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const pb::builtin_exception&) {
      throw;
    } catch (const FileNotFound& e) {
      PyErr_SetString(PyExc_FileNotFoundError, e.what());
    } catch (const std::runtime_error& e) {
      error(e.what());
    }
  });
}

}  // namespace

}  // namespace warpsparse::py::glue

PYBIND11_MODULE(_warpsparse, m) {
  using namespace warpsparse::py;
  using namespace warpsparse::py::glue;
  namespace pb = pybind11;
  using pb::arg;
  m.doc() = "warpsparse: MACKO, CSR and 2:4 sparse formats, their warp models and CUDA kernels";
  register_errors(m);
  m.def("version", &version);

  pb::class_<Rows>(m, "Rows", "Sparse rows (CSR with 64-bit row offsets): what files and tensors read into")
      .def_property_readonly("shape", [](const Rows& r) { return pb::make_tuple(r.rows(), r.cols()); })
      .def_property_readonly("nnz", &Rows::nnz)
      .def_property_readonly("value_type", &Rows::value_type)
      .def_property_readonly("row_ptr", view_of<Rows>(&Rows::row_ptr))
      .def_property_readonly("col", view_of<Rows>(&Rows::col))
      .def_property_readonly("val", view_of<Rows>(&Rows::val))
      .def("to_dense", [](const Rows& r) { return to_numpy(r.to_dense()); })
      .def("__repr__", [](const Rows& r) {
        return "<warpsparse.Rows " + std::to_string(r.rows()) + "x" + std::to_string(r.cols()) + " " + r.value_type() +
               " nnz=" + std::to_string(r.nnz()) + ">";
      });

  pb::class_<Macko>(m, "Macko", "A MACKO-encoded matrix (reference/macko/macko_format.hpp)")
      .def_property_readonly("shape", [](const Macko& a) { return pb::make_tuple(a.rows(), a.cols()); })
      .def_property_readonly("nnz", &Macko::nnz)
      .def_property_readonly("emitted", &Macko::emitted)
      .def_property_readonly("delta_bits", &Macko::delta_bits)
      .def_property_readonly("value_type", &Macko::value_type)
      .def_property_readonly("wide_row_pointers", &Macko::wide_row_pointers)
      .def_property_readonly("storage_bytes", &Macko::storage_bytes)
      .def_property_readonly("effective_density", &Macko::effective_density)
      .def_property_readonly("values", view_of<Macko>(&Macko::values))
      .def_property_readonly("deltas", view_of<Macko>(&Macko::deltas))
      .def_property_readonly("row_ptr", view_of<Macko>(&Macko::row_ptr))
      .def("to_dense", [](const Macko& a) { return to_numpy(a.to_dense()); })
      .def("to_rows", &Macko::to_rows)
      .def("__repr__", [](const Macko& a) {
        return "<warpsparse.Macko " + std::to_string(a.rows()) + "x" + std::to_string(a.cols()) + " " + a.value_type() +
               " delta_bits=" + std::to_string(a.delta_bits()) + " nnz=" + std::to_string(a.nnz()) + ">";
      });

  pb::class_<Csr>(m, "Csr", "CSR with 32- or 16-bit column indices (reference/csr/csr_format.hpp)")
      .def_property_readonly("shape", [](const Csr& a) { return pb::make_tuple(a.rows(), a.cols()); })
      .def_property_readonly("nnz", &Csr::nnz)
      .def_property_readonly("index_bits", &Csr::index_bits)
      .def_property_readonly("value_type", &Csr::value_type)
      .def_property_readonly("storage_bytes", &Csr::storage_bytes)
      .def_property_readonly("row_ptr", view_of<Csr>(&Csr::row_ptr))
      .def_property_readonly("col", view_of<Csr>(&Csr::col))
      .def_property_readonly("val", view_of<Csr>(&Csr::val))
      .def("to_dense", [](const Csr& a) { return to_numpy(a.to_dense()); });

  pb::class_<Bitmap>(m, "Bitmap", "A matrix in bitmap tiles: the batched tensor-core SpMM's format (reference/bitmap/)")
      .def_property_readonly("shape", [](const Bitmap& b) { return pb::make_tuple(b.rows(), b.cols()); })
      .def_property_readonly("nnz", &Bitmap::nnz)
      .def_property_readonly("value_type", &Bitmap::value_type)
      .def_property_readonly("storage_bytes", &Bitmap::storage_bytes)
      .def_property_readonly("effective_density", &Bitmap::effective_density)
      .def("to_dense", [](const Bitmap& b) { return to_numpy(b.to_dense()); });
  pb::class_<Sparse24>(m, "Sparse24", "A 2:4 matrix, compressed along the columns (reference/sparse24/sparse24_format.hpp)")
      .def_property_readonly("shape", [](const Sparse24& s) { return pb::make_tuple(s.rows(), s.cols()); })
      .def_property_readonly("padded_shape", [](const Sparse24& s) { return pb::make_tuple(s.rows_padded(), s.cols_padded()); })
      .def_property_readonly("value_type", &Sparse24::value_type)
      .def_property_readonly("values", view_of<Sparse24>(&Sparse24::values))
      .def_property_readonly("metadata", view_of<Sparse24>(&Sparse24::metadata))
      .def("to_dense", [](const Sparse24& s) { return to_numpy(s.to_dense()); });

  m.def("rows_from_dense", [](const pb::handle& d) { return rows_from_dense(host_in(d, "dense").a); }, arg("dense"));
  m.def("encode_macko", [](const pb::handle& src, const pb::object& delta_bits, bool align_rows, bool emit_trailing_padding,
                           bool force_wide_row_pointers) {
    // delta_bits: 1, 2, 4, 8 or "auto" (the width the policy picks for one vector on an H100).
    int db = 0;
    const auto bad = [&] {
      return std::invalid_argument("delta_bits must be 1, 2, 4, 8 or 'auto', got " +
                                   std::string(pb::repr(delta_bits)));
    };
    if (pb::isinstance<pb::str>(delta_bits)) {
      if (delta_bits.cast<std::string>() != "auto") throw bad();
    } else {
      // An integer, numpy's included; None, a float or a bool (True would be 1-bit deltas) is named.
      if (PyBool_Check(delta_bits.ptr()) || !PyIndex_Check(delta_bits.ptr())) throw bad();
      const auto index = pb::reinterpret_steal<pb::object>(PyNumber_Index(delta_bits.ptr()));
      if (!index) throw pb::error_already_set();
      const long long v = PyLong_AsLongLong(index.ptr());
      if (v == -1 && PyErr_Occurred()) PyErr_Clear();  // beyond 64 bits: refused below as -1 is
      if (v <= 0 || v > 8) throw bad();
      db = static_cast<int>(v);  // 3, 5, 6, 7: the encoder names the rule
    }
    const MackoOptions o{db, align_rows, emit_trailing_padding, force_wide_row_pointers};
    return encode_any(src, [&](const Rows& r) { return encode_macko(r, o); });
  }, arg("dense"), arg("delta_bits") = 4, arg("align_rows") = false, arg("emit_trailing_padding") = false,
        arg("force_wide_row_pointers") = false);
  m.def("encode_csr", [](const pb::handle& src, int index_bits) {
    return encode_any(src, [&](const Rows& r) { return encode_csr(r, index_bits); });
  }, arg("dense"), arg("index_bits") = 32);
  m.def("encode_sparse24", [](const pb::handle& d) { return encode_sparse24(host_in(d, "dense").a); }, arg("dense"));
  m.def("encode_bitmap", [](const pb::handle& d) { return encode_bitmap(host_in(d, "dense").a); }, arg("dense"));
  m.def("prune", [](const pb::handle& d, double density, const std::string& per, const std::string& nm) {
    return to_numpy(prune(host_in(d, "dense").a, density, per, nm));
  }, arg("dense"), arg("density") = 0.5, arg("per") = "row", arg("nm") = "");

  m.def("write_macko", &write_macko, arg("path"), arg("matrix"));
  m.def("write_macko_safetensors", &write_macko_safetensors, arg("path"), arg("matrix"),
        arg("metadata") = std::map<std::string, std::string>{});
  m.def("write_sparse24_safetensors", &write_sparse24_safetensors, arg("path"), arg("matrix"),
        arg("metadata") = std::map<std::string, std::string>{});
  m.def("read_macko", &read_macko, arg("path"));
  m.def("read_sparse24", &read_sparse24, arg("path"));
  m.def("write_bitmap_safetensors", &write_bitmap_safetensors, arg("path"), arg("matrix"),
        arg("metadata") = std::map<std::string, std::string>{});
  m.def("read_bitmap", &read_bitmap, arg("path"));
  m.def("read_matrix_market", &read_matrix_market, arg("path"), arg("value_type") = "fp16");
  m.def("write_matrix_market", [](const std::string& path, const pb::handle& src) {
    if (pb::isinstance<Rows>(src)) return write_matrix_market(path, src.cast<const Rows&>());
    write_matrix_market(path, rows_from_dense(host_in(src, "dense").a));
  }, arg("path"), arg("matrix"));

  pb::class_<TensorFile>(m, "TensorFile", "A checkpoint's tensor file (safetensors, index, .npy, .npz), memory-mapped")
      .def_property_readonly("path", &TensorFile::path)
      .def_property_readonly("metadata", &TensorFile::metadata)
      .def_property_readonly("tensors", [](const TensorFile& f) {
        pb::list out;
        for (const TensorEntry& t : f.tensors()) {
          pb::dict d;
          d["name"] = t.name;
          d["dtype"] = t.dtype;
          d["shape"] = pb::tuple(pb::cast(t.shape));
          d["file"] = t.file;
          out.append(d);
        }
        return out;
      })
      .def("array", [](const pb::object& self, const std::string& name) {
        return to_numpy(self.cast<const TensorFile&>().array(name), self);
      }, arg("name") = "")
      .def("rows", &TensorFile::rows, arg("name") = "", arg("transpose") = false, arg("value_type") = "");
  m.def("open_tensor_file", &open_tensor_file, arg("path"));

  m.def("verify", [](const Macko& a, std::uint64_t seed, const std::vector<int>& accumulators, int batch, int row_lanes) {
    VerifyReport r;
    {
      pb::gil_scoped_release unlocked;  // the model runs for seconds on large matrices
      r = verify(a, seed, accumulators, batch, row_lanes);
    }
    return verify_dict(r);
  }, arg("matrix"), arg("seed") = 1, arg("accumulators") = std::vector<int>{1, 2, 4, 8}, arg("batch") = 1,
        arg("row_lanes") = 32);
  m.def("spmv_model", [](const Macko& a, const pb::handle& x, const std::string& schedule, float alpha, float beta,
                         const pb::handle& y, const pb::handle& out_dtype) {
    const InArray xi = host_in(x, "x");
    const Elem ye = elem_of_name(out_dtype);
    if (y.is_none()) return to_numpy(spmv_model(a, xi.a, schedule, alpha, beta, ye, nullptr));
    const InArray yi = host_in(y, "y");
    return to_numpy(spmv_model(a, xi.a, schedule, alpha, beta, ye, &yi.a));
  }, arg("matrix"), arg("x"), arg("schedule") = "", arg("alpha") = 1.0f, arg("beta") = 0.0f, arg("y") = pb::none(),
        arg("out_dtype") = "float32");
  m.def("macko_oracle_bound", [](const Macko& a, const pb::handle& x, const std::string& schedule, std::int64_t chain,
                                 const pb::handle& out_dtype) {
    return oracle_tuple(macko_oracle_bound(a, host_in(x, "x").a, schedule, chain, elem_of_name(out_dtype)));
  }, arg("matrix"), arg("x"), arg("schedule") = "", arg("chain") = 0, arg("out_dtype") = "float32");
  m.def("sparse24_oracle_bound", [](const Sparse24& s, const pb::handle& b, const pb::handle& out_dtype) {
    return oracle_tuple(sparse24_oracle_bound(s, host_in(b, "B").a, elem_of_name(out_dtype)));
  }, arg("matrix"), arg("b"), arg("out_dtype") = "float32");
  m.def("plan", [](const Macko& a, const std::string& gpu, int batch) {
    const PlanInfo p = plan(a, gpu, batch);
    pb::dict d;
    d["schedule"] = p.schedule;
    d["why"] = p.why;
    return d;
  }, arg("matrix"), arg("gpu") = "h100", arg("batch") = 1);
  m.def("compiled_batches", &compiled_batches);
  m.def("batch_kernel", [](double density, int batch, bool sparse24, bool macko_x_l1) {
    const BatchKernelChoice c = batch_kernel(density, batch, sparse24, macko_x_l1);
    return pb::make_tuple(c.kernel, c.macko_batch, c.why);
  }, arg("density"), arg("batch"), arg("sparse24") = false, arg("macko_x_l1") = false);
  m.def("bitmap_max_batch", &bitmap_max_batch);

  m.def("effd", &effd, arg("density"), arg("value_bits") = 16, arg("delta_bits") = 4, arg("rows") = 0, arg("cols") = 0);
  m.def("crossovers", [](int value_bits, int delta_bits, std::int64_t rows, std::int64_t cols) {
    pb::list out;
    for (const CrossoverRow& c : crossovers(value_bits, delta_bits, rows, cols)) {
      pb::dict d;
      d["name"] = c.name;
      d["scenario"] = c.scenario;
      d["found"] = c.found;
      d["density"] = c.found ? pb::object(pb::float_(c.density)) : pb::object(pb::none());
      d["claim"] = c.claim;
      d["source"] = c.source;
      d["verdict"] = c.verdict;
      out.append(d);
    }
    return out;
  }, arg("value_bits") = 16, arg("delta_bits") = 4, arg("rows") = 0, arg("cols") = 0);
  m.def("analyze", [](const std::string& path, bool transpose, int threads) {
    std::string json;
    {
      pb::gil_scoped_release unlocked;
      json = analyze_json(path, transpose, threads);
    }
    return pb::module_::import("json").attr("loads")(json);
  }, arg("path"), arg("transpose") = false, arg("threads") = 0);

  pb::module_ cuda = m.def_submodule("cuda", "CUDA kernels on DLPack tensors");
  bind_cuda(cuda);
}
