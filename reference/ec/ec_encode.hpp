// encode_ec: hierarchical block extraction (ec_extract.hpp) followed by the EC-CSR layout
// (ec_format.hpp).
#pragma once
#include <functional>
#include <string>

#include "reference/ec/ec_extract.hpp"
#include "reference/ec/ec_format.hpp"

namespace warpsparse {

template <class T>
Ec<T> encode_ec(const SparseRows<T>& input, const ec::EcParams& p = {},
                const std::function<void(const std::string&)>& progress = {}, ec::EcExtraction* stats = nullptr) {
  require(ec::valid_delta_bits(p.delta_bits), "EC delta bits must be 4 or 8, got " + std::to_string(p.delta_bits));
  input.validate();
  require(input.rows <= std::int64_t{UINT32_MAX}, "EC row indices are 32-bit: " + std::to_string(input.rows) + " rows");
  const SparseRows<T> m = input.without_zeros();
  return ec_layout_blocks(m, ec::extract_blocks(m.rows, m.cols, m.row_ptr, m.col, p, progress), p, stats);
}

}  // namespace warpsparse
