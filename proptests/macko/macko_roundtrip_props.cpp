// MACKO encoder/decoder: decode(encode(M)) == M bit for bit for every value type x delta width x
// encoder option; the padding of every row equals the count derived from its zero runs and lies
// between the paper's best (0) and worst (floor(zeros / 2^b)) bounds; fp16 + 4-bit deltas are
// byte-identical to an independent emulation of the paper's public encoder; the file format
// round-trips. Zero rule: +0 and -0 are zeros (dropped; a stored -0 entry decodes to nothing, so
// the round trip compares against M.without_zeros()); NaN and Inf are values and are kept.
#include <cstring>

#include "proptests/generators.hpp"
#include "proptests/prop_support.hpp"
#include "reference/io/macko_file.hpp"

using namespace warpsparse;
using namespace warpsparse::proptest;

namespace {

MackoParams gen_params() {
  MackoParams p;
  p.delta_bits = *rc::gen::element(1, 2, 4, 8).as("delta bits");
  p.emit_trailing_padding = *rc::gen::arbitrary<bool>().as("emit_trailing_padding");
  p.force_wide_row_pointers = *rc::gen::arbitrary<bool>().as("force_wide_row_pointers");
  p.align_rows = *rc::gen::arbitrary<bool>().as("align_rows");
  return p;
}

// Pads each run of z zeros needs: floor(z / 2^b) (a pad covers 2^b - 1 skipped columns and its own).
std::int64_t pads_for_run(std::int64_t z, int db) { return z >> db; }

template <class T>
void roundtrip_property() {
  const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
  const MackoParams p = gen_params();
  RC_TAG(to_string(rec.family));
  const SparseRows<T> m = build<T>(rec);
  const Macko<T> a = encode_macko(m, p);
  a.validate();
  const SparseRows<T> want = m.without_zeros();
  RC_ASSERT(same_bits(decode_macko(a), want));
  RC_ASSERT(a.row_ptr.wide == p.force_wide_row_pointers);
  RC_ASSERT(a.nnz == want.nnz());
  // Arrays are zero beyond the emitted elements (the kernels may load them).
  for (std::int64_t e = a.emitted(); e < a.padded_length(); ++e) {
    RC_ASSERT(is_zero(a.values[e]));
    RC_ASSERT(a.delta(e) == 0u);
  }
  // Padding: per row, exactly the count implied by its zero runs, within the paper's bounds.
  for (std::int64_t r = 0; r < want.rows; ++r) {
    std::int64_t prev = -1, pads = 0;
    for (std::int64_t k = want.row_ptr[r]; k < want.row_ptr[r + 1]; ++k) {
      pads += pads_for_run(want.col[k] - prev - 1, p.delta_bits);
      prev = want.col[k];
    }
    if (p.emit_trailing_padding) pads += pads_for_run(want.cols - prev - 1, p.delta_bits);
    const std::int64_t stored = a.row_ptr[r + 1] - a.row_ptr[r];
    const std::int64_t row_nnz = want.row_ptr[r + 1] - want.row_ptr[r];
    const std::int64_t zeros = want.cols - row_nnz;
    if (!p.align_rows) {
      RC_ASSERT(stored - row_nnz == pads);
      RC_ASSERT(stored - row_nnz <= pads_for_run(zeros, p.delta_bits));  // paper's worst case
    } else {
      // align_rows: the unaligned length rounded up to the unit where the row has that many zero
      // columns besides those its padding takes; else the unaligned length.
      const std::int64_t unit = macko::align_unit(p.delta_bits), plain = row_nnz + pads;
      const std::int64_t rounded = (plain + unit - 1) / unit * unit;
      RC_ASSERT(stored == (rounded - plain <= zeros - pads ? rounded : plain));
    }
    RC_ASSERT(stored - row_nnz >= 0);  // paper's best case
    RC_ASSERT(macko_row_length(m, r, p) == stored);  // the prediction the size check and the policy use
  }
  RC_ASSERT(macko_size(m, p).emitted == a.emitted());
  // The file format keeps every byte.
  const auto bytes = io::serialize_macko(a);
  const io::AnyMacko back = io::parse_macko(bytes, "<memory>");
  const auto& b = std::get<Macko<T>>(back);
  RC_ASSERT(b.rows == a.rows && b.cols == a.cols && b.nnz == a.nnz && b.delta_bits == a.delta_bits);
  RC_ASSERT(b.deltas == a.deltas);
  RC_ASSERT((a.values.empty() || std::memcmp(b.values.data(), a.values.data(), a.values.size() * sizeof(T)) == 0));
  RC_ASSERT(b.row_ptr.wide == a.row_ptr.wide && b.row_ptr.narrow == a.row_ptr.narrow &&
            b.row_ptr.wide_ptr == a.row_ptr.wide_ptr);
}

// Independent emulation of the paper's public encoder (fp16, 4-bit deltas) from its documented
// behaviour: scan every column of the dense row; emit the column when it is nonzero or when 15
// zeros were skipped since the last emitted element (its delta is the zeros skipped); pack two
// deltas per byte, low nibble first; pad values and deltas with zeros to a multiple of 8.
struct PaperArrays {
  std::vector<std::uint16_t> values;
  std::vector<std::uint8_t> deltas;
  std::vector<std::uint64_t> row_ptr{0};
};
PaperArrays paper_encode(const SparseRows<half>& m) {
  PaperArrays out;
  std::vector<std::uint8_t> d;
  const std::vector<half> dense = m.to_dense();
  for (std::int64_t r = 0; r < m.rows; ++r) {
    std::int64_t skipped = 0;
    for (std::int64_t c = 0; c < m.cols; ++c) {
      const half v = dense[r * m.cols + c];
      const bool nonzero = !(static_cast<float>(v) == 0.0f);
      if (nonzero || skipped == 15) {
        out.values.push_back(nonzero ? bits_of(v) : std::uint16_t{0});
        d.push_back(static_cast<std::uint8_t>(skipped));
        skipped = 0;
      } else {
        ++skipped;
      }
    }
    out.row_ptr.push_back(out.values.size());
  }
  while (out.values.size() % 8) {
    out.values.push_back(0);
    d.push_back(0);
  }
  for (std::size_t i = 0; i < d.size(); i += 2) out.deltas.push_back(static_cast<std::uint8_t>(d[i] | (d[i + 1] << 4)));
  return out;
}

bool same_as_paper(const Macko<half>& a, const PaperArrays& p) {
  if (a.values.size() != p.values.size() || a.deltas != p.deltas) return false;
  for (std::size_t i = 0; i < p.values.size(); ++i)
    if (bits_of(a.values[i]) != p.values[i]) return false;
  for (std::int64_t r = 0; r <= a.rows; ++r)
    if (static_cast<std::uint64_t>(a.row_ptr[r]) != p.row_ptr[static_cast<std::size_t>(r)]) return false;
  return true;
}

}  // namespace

TEST_CASE("decode(encode(M)) == M bit for bit, padding within the paper's bounds") {
  ws_prop("fp16", 1500, [] { roundtrip_property<half>(); });
  ws_prop("bf16", 800, [] { roundtrip_property<bfloat16>(); });
  ws_prop("fp32", 800, [] { roundtrip_property<float>(); });
  ws_prop("int8", 800, [] { roundtrip_property<std::int8_t>(); });
}

TEST_CASE("fp16 + 4-bit deltas are byte-identical to the paper's public encoder") {
  ws_prop("with trailing padding, and without it when trailing runs are short", 1500, [] {
    const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
    const SparseRows<half> m = build<half>(rec);
    const PaperArrays want = paper_encode(m);
    MackoParams p;
    p.emit_trailing_padding = true;
    RC_ASSERT(same_as_paper(encode_macko(m, p), want));
    // Without trailing padding the arrays agree whenever no row ends in a run of 16+ zeros.
    const SparseRows<half> nz = m.without_zeros();
    bool short_tails = true;
    for (std::int64_t r = 0; r < nz.rows; ++r) {
      const std::int64_t last = nz.row_ptr[r + 1] > nz.row_ptr[r] ? nz.col[nz.row_ptr[r + 1] - 1] : -1;
      short_tails = short_tails && nz.cols - last - 1 < 16;
    }
    RC_TAG(short_tails ? "short trailing runs" : "long trailing runs");
    p.emit_trailing_padding = false;
    RC_ASSERT(same_as_paper(encode_macko(m, p), want) == short_tails);
  });
}

TEST_CASE("the paper's examples") {
  SECTION("blog: values at 1-based columns [2,36,46] encode to [1,0,0,2,3], deltas [1,15,15,1,9]") {
    SparseRows<half> m;
    m.cols = 50;
    m.push(1, half(1.0f));
    m.push(35, half(2.0f));
    m.push(45, half(3.0f));
    m.end_row();
    const Macko<half> a = encode_macko(m);
    const float want_v[] = {1, 0, 0, 2, 3, 0, 0, 0};
    REQUIRE(a.values.size() == 8);
    for (int i = 0; i < 8; ++i) CHECK(to_float(a.values[i]) == want_v[i]);
    const unsigned want_d[] = {1, 15, 15, 1, 9};
    for (int i = 0; i < 5; ++i) CHECK(a.delta(i) == want_d[i]);
    CHECK(a.deltas == std::vector<std::uint8_t>{0xf1, 0x1f, 0x09, 0x00});
    CHECK(a.row_ptr[1] == 5);
    CHECK(a.padding() == 2);
  }
  SECTION("figure 3 (b_delta = 2): columns [2,5,12,13] -> values [1,2,0,3,4], paper deltas [2,3,4,3,1] - 1") {
    SparseRows<half> m;
    m.cols = 16;
    const int cols[] = {1, 4, 11, 12};
    for (int i = 0; i < 4; ++i) m.push(cols[i], half(float(i + 1)));
    m.end_row();
    MackoParams p;
    p.delta_bits = 2;
    const Macko<half> a = encode_macko(m, p);
    const float want_v[] = {1, 2, 0, 3, 4};
    const unsigned want_d[] = {1, 2, 3, 2, 0};
    for (int i = 0; i < 5; ++i) {
      CHECK(to_float(a.values[i]) == want_v[i]);
      CHECK(a.delta(i) == want_d[i]);
    }
    CHECK(a.values.size() == 16);  // align_unit(2) = 16
    CHECK(a.deltas.size() == 4);
  }
  SECTION("bad delta widths are rejected") {
    SparseRows<float> m;
    m.cols = 4;
    m.end_row();
    MackoParams p;
    p.delta_bits = 3;
    CHECK_THROWS_WITH(encode_macko(m, p), Catch::Contains("delta bits must be 1, 2, 4 or 8"));
  }
}
