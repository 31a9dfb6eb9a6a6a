// EC-CSR layout and encoder: the slot map is a bijection; packed deltas hold every field value;
// the fill rule pads a gap g with ceil(g / D) - 1 slots; decode(encode(M)) == M without its zeros,
// bit for bit, for fp16 / bf16 / fp32 x 4- and 8-bit deltas over the shared matrix recipes and
// the structured families; the encoding is a function of the matrix alone (any thread count); the
// storage figures add up; and matrices with a known answer (identical row groups, d = 1) encode
// as docs/ec-spmv.md says they must.
#include <cstring>
#include <set>

#include "proptests/generators.hpp"
#include "proptests/prop_support.hpp"
#include "reference/ec/ec_encode.hpp"
#include "reference/io/macko_file.hpp"  // fnv1a64

using namespace warpsparse;
using namespace warpsparse::proptest;

namespace {

template <class V>
std::uint64_t hash_array(const std::vector<V>& v, std::uint64_t h) {
  return io::fnv1a64(std::span(reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(V)), h);
}
template <class T>
std::uint64_t ec_hash(const Ec<T>& a) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const auto& s : a.sets) {
    h = hash_array(s.rows, h);
    h = hash_array(s.step_ptr, h);
    h = hash_array(s.bases, h);
    h = hash_array(s.deltas, h);
    h = hash_array(s.values, h);
  }
  return h;
}

// The properties every encoding must have beyond the round trip: blocks sorted as the format
// says, nnz and padding add up to the stored values.
template <class T>
void check_invariants(const Ec<T>& a) {
  const EcStorage st = a.storage();
  RC_ASSERT(st.nnz + st.padding() == st.stored_values);
  std::int64_t held = 0;
  for (const auto n : st.nnz_by_set) held += n;
  RC_ASSERT(held == a.nnz);
  for (const auto& s : a.sets)
    for (std::int64_t b = 1; b < s.blocks(); ++b) RC_ASSERT(s.block_slots(b - 1) >= s.block_slots(b));
}

template <class T>
void roundtrip_property() {
  const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
  ec::EcParams p;
  p.delta_bits = *rc::gen::element(4, 8).as("delta bits");
  p.threads = *rc::gen::inRange(1, 4).as("threads");
  RC_TAG(to_string(rec.family));
  const SparseRows<T> m = build<T>(rec);
  const Ec<T> a = encode_ec(m, p);
  a.validate();
  RC_ASSERT(same_bits(decode_ec(a), m.without_zeros()));
  check_invariants(a);
}

// Rows in groups of g sharing one column set (the row_blocked family's structure, built here so
// the test does not depend on the generator under test elsewhere).
template <class T>
SparseRows<T> groups_of_identical_rows(int groups, int g, std::int64_t cols, std::int64_t shared, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  SparseRows<T> m;
  m.cols = cols;
  for (int q = 0; q < groups; ++q) {
    // Disjoint column ranges per group: no overlap between groups.
    std::vector<std::int32_t> cs;
    for (std::int64_t c = 0; c < shared; ++c) cs.push_back(static_cast<std::int32_t>(q * shared + c));
    for (int r = 0; r < g; ++r) {
      for (const auto c : cs) m.push(c, detail::random_nonzero<T>(rng));
      m.end_row();
    }
  }
  return m;
}

}  // namespace

TEST_CASE("the slot map is a bijection with its inverse", "[ec][layout]") {
  for (const int lanes : {32, 2})
    for (const int v : {1, 2, 4, 8}) {
      const std::int64_t L = 3 * v;  // three steps
      std::set<std::int64_t> seen;
      for (int l = 0; l < lanes; ++l)
        for (std::int64_t j = 0; j < L; ++j) {
          const std::int64_t p = ec::slot_position(j, l, v, lanes);
          REQUIRE(p >= 0);
          REQUIRE(p < L * lanes);
          REQUIRE(seen.insert(p).second);
          const auto back = ec::lane_slot(p, v, lanes);
          REQUIRE(back.lane == l);
          REQUIRE(back.slot == j);
          // A step is one contiguous run: lane l's v slots of step s are adjacent.
          REQUIRE(p / (std::int64_t{lanes} * v) == j / v);
        }
    }
}

TEST_CASE("packed deltas hold every field value at every position", "[ec][layout]") {
  for (const int b : {4, 8}) {
    const int D = ec::max_delta(b);
    for (std::int64_t p = 0; p < 6; ++p)
      for (int v = 0; v <= D; ++v) {
        std::vector<std::uint8_t> bytes(static_cast<std::size_t>(ec::delta_bytes(6, b)), 0xA5);
        // Clear the field, write v, read it back; neighbours keep their bits.
        const auto before = bytes;
        auto& byte = bytes[static_cast<std::size_t>(ec::delta_byte(p, b))];
        byte = static_cast<std::uint8_t>((byte & ~(D << ec::delta_shift(p, b))) | (v << ec::delta_shift(p, b)));
        REQUIRE(((bytes[static_cast<std::size_t>(ec::delta_byte(p, b))] >> ec::delta_shift(p, b)) & D) == v);
        for (std::size_t i = 0; i < bytes.size(); ++i)
          if (static_cast<std::int64_t>(i) != ec::delta_byte(p, b)) REQUIRE(bytes[i] == before[i]);
      }
  }
}

TEST_CASE("a gap of g columns costs ceil(g / D) - 1 padding slots", "[ec][layout]") {
  for (const int b : {4, 8}) {
    const int D = ec::max_delta(b);
    for (const int g : {1, D - 1, D, D + 1, 2 * D, 2 * D + 1, 5 * D + 3}) {
      // One lane (lanes = 1), two columns g apart: a short fill of one lane.
      const std::vector<std::int32_t> c{7, 7 + g};
      const ec::Fill f = ec::fill_short(c, b, 1);
      const std::int64_t pads = (g + D - 1) / D - 1;
      REQUIRE(f.slots() == 2 + pads);
      std::int64_t real = 0;
      for (std::int64_t j = 0; j < f.slots(); ++j) {
        real += f.real[static_cast<std::size_t>(j)];
        if (j > 0) {
          REQUIRE(f.col[static_cast<std::size_t>(j)] - f.col[static_cast<std::size_t>(j - 1)] >= 1);
          REQUIRE(f.col[static_cast<std::size_t>(j)] - f.col[static_cast<std::size_t>(j - 1)] <= D);
        }
      }
      REQUIRE(real == 2);
    }
  }
}

TEST_CASE("a hand-computed matrix: slots, padding and bytes", "[ec][storage]") {
  // One row of 300 fp16 nonzeros at columns 0, 2, 4, ...: the long block takes 256 columns (one
  // step of 32 lanes x 8), the short block the other 44 at 2 slots per lane (64 slots, 20 of them
  // trailing padding). Nothing pairs: one row.
  SparseRows<half> m;
  m.cols = 600;
  for (int c = 0; c < 600; c += 2) m.push(c, from_float<half>(1.0f + float(c)));
  m.end_row();
  ec::EcParams p;  // 8-bit deltas
  const Ec<half> a = encode_ec(m, p);
  const auto& lng = a.sets[3];
  const auto& sht = a.sets[4];
  REQUIRE(lng.blocks() == 1);
  REQUIRE(lng.slots() == 256);
  REQUIRE(sht.blocks() == 1);
  REQUIRE(sht.slots() == 64);
  const EcStorage st = a.storage();
  REQUIRE(st.nnz == 300);
  REQUIRE(st.gap_padding == 0);
  REQUIRE(st.align_padding == 20);
  REQUIRE(st.value_bytes == (256 + 64) * 2);
  REQUIRE(st.delta_bytes == 256 + 64);
  REQUIRE(st.base_bytes == 2 * 32 * 2);  // 16-bit bases: 600 columns
  REQUIRE(st.row_bytes == 2 * 4);
  // Every set has a step_ptr (blocks + 1 entries) and a descriptor.
  REQUIRE(st.offset_bytes == (2 + 2 + 1 + 1 + 1) * 4);
  REQUIRE(st.desc_bytes == 5 * Ec<half>::kSetDescBytes);
  REQUIRE(same_bits(decode_ec(a), m));
}

TEST_CASE("2^k identical rows come out as one G = 2^k block", "[ec][structure]") {
  for (const int k : {1, 2, 3}) {
    const int g = 1 << k;
    for (const std::int64_t shared : {128, 256, 384}) {
      const auto m = groups_of_identical_rows<half>(3, g, 3 * shared + 5, shared, 42 + k);
      const Ec<half> a = encode_ec(m, ec::EcParams{});
      for (const auto& s : a.sets) {
        INFO("G = " << g << ", shared " << shared << ", set " << s.name());
        REQUIRE(s.blocks() == (s.group == g && !s.is_short ? 3 : 0));
      }
      REQUIRE(same_bits(decode_ec(a), m));
    }
  }
  // Sixteen identical rows: two G = 8 blocks (G = 8 is the largest the kernels take).
  const auto m = groups_of_identical_rows<half>(1, 16, 256, 256, 7);
  const Ec<half> a = encode_ec(m, ec::EcParams{});
  REQUIRE(a.sets[0].group == 8);
  REQUIRE(a.sets[0].blocks() == 2);
  for (std::size_t i = 1; i < a.sets.size(); ++i) REQUIRE(a.sets[i].blocks() == 0);
}

TEST_CASE("a dense matrix encodes as G = 8 blocks of whole steps, the tails as smaller blocks", "[ec][structure]") {
  // 16 x 300, d = 1: consecutive rows pair (equal overlaps, ties to the smaller index), so rows
  // 8m..8m+7 form G = 8 blocks over 256 columns (two steps of 128); the last 44 columns of each
  // row fall to G = 1: no long block (44 < 256), one short block of 2 slots per lane.
  std::mt19937_64 rng(3);
  SparseRows<half> m;
  m.cols = 300;
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 300; ++c) m.push(c, detail::random_nonzero<half>(rng));
    m.end_row();
  }
  const Ec<half> a = encode_ec(m, ec::EcParams{});
  REQUIRE(a.sets[0].blocks() == 2);
  REQUIRE(a.sets[0].slots() == 2 * 256);
  REQUIRE(a.sets[1].blocks() == 0);
  REQUIRE(a.sets[2].blocks() == 0);
  REQUIRE(a.sets[3].blocks() == 0);
  REQUIRE(a.sets[4].blocks() == 16);
  REQUIRE(same_bits(decode_ec(a), m));
}

TEST_CASE("EC encoding round-trips bit for bit", "[ec][roundtrip]") {
  ws_prop("fp16", 150, [] { roundtrip_property<half>(); });
  ws_prop("bf16", 80, [] { roundtrip_property<bfloat16>(); });
  ws_prop("fp32", 80, [] { roundtrip_property<float>(); });
}

TEST_CASE("EC encoding round-trips on every pattern family", "[ec][roundtrip]") {
  ws_prop("families", 60, [] {
    const auto pat = *rc::gen::elementOf(analysis::all_patterns()).as("family");
    const double d = *rc::gen::element(0.05, 0.3, 0.5, 0.9).as("density");
    const auto rows = *rc::gen::inRange<std::int64_t>(1, 70).as("rows");
    const auto cols = *rc::gen::inRange<std::int64_t>(1, 1500).as("cols");
    const int bits = *rc::gen::element(4, 8).as("delta bits");
    RC_TAG(std::string(analysis::to_string(pat)));
    const auto m = analysis::generate<half>({pat, d, 0.0}, rows, cols, *rc::gen::arbitrary<std::uint64_t>());
    ec::EcParams p;
    p.delta_bits = bits;
    const Ec<half> a = encode_ec(m, p);
    RC_ASSERT(same_bits(decode_ec(a), m.without_zeros()));
    check_invariants(a);
  });
}

TEST_CASE("the encoding does not depend on the thread count", "[ec][determinism]") {
  for (const auto pat : {analysis::Pattern::bernoulli, analysis::Pattern::magnitude_matrix, analysis::Pattern::clustered})
    for (const double d : {0.5, 0.2}) {
      const auto m = analysis::generate<half>({pat, d, 0.0}, 300, 1024, 11);
      std::uint64_t h1 = 0;
      for (const int t : {1, 2, 7}) {
        ec::EcParams p;
        p.threads = t;
        const std::uint64_t h = ec_hash(encode_ec(m, p));
        if (t == 1) h1 = h;
        INFO(analysis::to_string(pat) << " d = " << d << ", " << t << " threads");
        REQUIRE(h == h1);
      }
    }
}
