#include "bench/matrix_file.hpp"

#include <fstream>

#include "bench/matrix_gen.hpp"
#include "reference/io/matrix_market.hpp"
#include "reference/io/tensor_file.hpp"

namespace warpsparse::bench {

MatrixFileInfo matrix_file_info(const std::string& spec, bool transpose) {
  const io::TensorSpec s = io::split_tensor_spec(spec);
  MatrixFileInfo info;
  info.label = spec;
  if (io::is_tensor_file(s.file)) {
    auto f = io::open_tensor_file(s.file);
    std::tie(info.rows, info.cols) = io::matrix_shape(f->find(s.tensor), transpose);
    return info;
  }
  require(s.tensor.empty() && !transpose, spec + ": a tensor name or --transpose needs a tensor file");
  const auto m = io::read_matrix_market_file<float>(s.file);
  info.rows = m.rows;
  info.cols = m.cols;
  return info;
}

template <class T>
RowBlocks<T> matrix_file_blocks(const std::string& spec, bool transpose, int threads) {
  const io::TensorSpec s = io::split_tensor_spec(spec);
  SparseRows<T> rows;
  if (io::is_tensor_file(s.file)) {
    auto f = io::open_tensor_file(s.file);
    const io::TensorInfo& t = f->find(s.tensor);
    rows = io::tensor_rows<T>(t, f->data(t), transpose);
    f->release(t);
  } else {
    rows = io::read_matrix_market_file<T>(s.file).without_zeros();
  }
  return to_blocks(std::move(rows), threads);
}

std::vector<std::uint16_t> matrix_file_bf16(const std::string& spec, bool transpose, MatrixFileInfo& info) {
  const RowBlocks<bfloat16> m = matrix_file_blocks<bfloat16>(spec, transpose, 1);
  info = {spec, m.rows, m.cols};
  const std::vector<bfloat16> d = to_dense(m, default_threads());
  std::vector<std::uint16_t> out(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) out[i] = bits_of(d[i]);
  return out;
}

template RowBlocks<half> matrix_file_blocks<half>(const std::string&, bool, int);
template RowBlocks<bfloat16> matrix_file_blocks<bfloat16>(const std::string&, bool, int);

}  // namespace warpsparse::bench
