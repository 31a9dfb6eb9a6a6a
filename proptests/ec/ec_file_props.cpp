// EC files (reference/io/ec_file.hpp): write -> read gives the same bytes and the same matrix, from
// a file and from a stream of unknown size (a pipe); every truncation and every single-byte change
// is refused with an Error naming the file, a byte offset and the field; a header promising more
// than the file or the memory budget holds fails before allocating; random corruption with the
// checksum recomputed (so the deeper checks are reached) never crashes. The matrices are laid out
// from hand-made extractions (ec_layout_blocks), so these tests do not depend on the extraction:
// rows in groups of 2, 4 or 8 share a run of whole steps as one block, the rest of each row is its
// G = 1 residual.
#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>

#include "proptests/generators.hpp"
#include "proptests/io/huge_claim.hpp"
#include "proptests/prop_support.hpp"
#include "reference/ec/ec_format.hpp"
#include "reference/io/ec_file.hpp"
#include "reference/io/input.hpp"
#include "reference/io/macko_file.hpp"
#include "reference/macko/macko_format.hpp"

using namespace warpsparse;
using namespace warpsparse::proptest;
using Catch::Contains;

namespace {

template <class T>
bool same_rows_bits(const SparseRows<T>& a, const SparseRows<T>& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col == b.col &&
         a.val.size() == b.val.size() &&
         (a.val.empty() || std::memcmp(a.val.data(), b.val.data(), a.val.size() * sizeof(T)) == 0);
}

// A matrix and a hand-made extraction of it: m's rows go in groups (sizes from `groups`, 1 for a
// row left alone); a group of G >= 2 rows shares the columns [c0, c0 + 128 · k) (whole steps at
// v = 4, all nonzero in every row of the group) as one G-block; everything else is residual.
template <class T>
struct Layout {
  SparseRows<T> m;
  ec::EcExtraction ex;
};

template <class T>
Layout<T> make_layout(const SparseRows<T>& base, const std::vector<int>& groups, std::uint64_t seed) {
  Layout<T> out;
  const SparseRows<T> src = base.without_zeros();
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  auto nonzero = [&] {
    T v;
    do v = from_float<T>(n(rng)); while (is_zero(v));
    return v;
  };
  // Per row: the block's column range (empty for G = 1 rows).
  std::vector<std::pair<std::int64_t, std::int64_t>> span(static_cast<std::size_t>(src.rows), {0, 0});
  std::int64_t r = 0;
  for (const int g : groups) {
    if (r + g > src.rows) break;
    if (g >= 2 && src.cols >= 128) {
      const std::int64_t k = std::min<std::int64_t>(1 + static_cast<std::int64_t>(rng() % 2), src.cols / 128);
      const std::int64_t c0 = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(src.cols - 128 * k + 1));
      ec::EcUnit u;
      u.group = g;
      for (int i = 0; i < g; ++i) {
        u.rows.push_back(static_cast<std::uint32_t>(r + i));
        span[static_cast<std::size_t>(r + i)] = {c0, c0 + 128 * k};
      }
      for (std::int64_t c = c0; c < c0 + 128 * k; ++c) u.cols.push_back(static_cast<std::int32_t>(c));
      out.ex.blocks.push_back(std::move(u));
    }
    r += g;
  }
  out.m.cols = src.cols;
  out.ex.rows = src.rows;
  out.ex.cols = src.cols;
  out.ex.residual.resize(static_cast<std::size_t>(src.rows));
  for (std::int64_t i = 0; i < src.rows; ++i) {
    const std::int64_t b0 = span[static_cast<std::size_t>(i)].first, b1 = span[static_cast<std::size_t>(i)].second;
    std::int64_t k = src.row_ptr[i];
    const std::int64_t e = src.row_ptr[i + 1];
    auto keep = [&](std::int32_t c, T v) {
      out.m.push(c, v);
      if (c < b0 || c >= b1) out.ex.residual[static_cast<std::size_t>(i)].push_back(c);
    };
    for (; k < e && src.col[k] < b0; ++k) keep(src.col[k], src.val[k]);
    for (std::int64_t c = b0; c < b1; ++c) {  // the block's columns: the source's value, or a new nonzero
      if (k < e && src.col[k] == c) {
        keep(src.col[k], src.val[k]);
        ++k;
      } else {
        keep(static_cast<std::int32_t>(c), nonzero());
      }
    }
    for (; k < e; ++k) keep(src.col[k], src.val[k]);
    out.m.end_row();
  }
  return out;
}

rc::Gen<std::vector<int>> gen_groups() {
  return rc::gen::container<std::vector<int>>(rc::gen::element(1, 1, 2, 4, 8));
}

// An encoded matrix drawn from the shared recipes, with blocks: its value type is T.
template <class T>
std::pair<SparseRows<T>, Ec<T>> draw_ec() {
  const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
  const auto groups = *gen_groups().as("row groups");
  ec::EcParams p;
  p.delta_bits = *rc::gen::element(4, 8).as("delta bits");
  p.max_group = *rc::gen::weightedElement<int>({{4, 8}, {1, 16}}).as("max group");
  const auto lay = make_layout(build<T>(rec), groups, rec.seed);
  return {lay.m, ec_layout_blocks(lay.m, lay.ex, p)};
}

template <class T>
void roundtrip() {
  const auto [m, a] = draw_ec<T>();
  const auto bytes = io::serialize_ec(a);
  RC_ASSERT(bytes.size() == io::ec_file_bytes(io::AnyEc(a)));
  const io::AnyEc back = io::parse_ec(bytes, "f.ec");
  RC_ASSERT(io::serialize_ec(back) == bytes);
  std::istringstream pipe(std::string(bytes.begin(), bytes.end()));
  RC_ASSERT(io::serialize_ec(io::read_ec(pipe, "pipe", std::nullopt)) == bytes);
  const Ec<T>& b = std::get<Ec<T>>(back);
  RC_ASSERT(b.base_bits() == (m.cols <= 65536 ? 16 : 32));
  RC_ASSERT(same_rows_bits(decode_ec(b), m.without_zeros()));
}

// Every prefix of a file is refused, naming the file and a byte offset.
void every_truncation(const std::vector<std::uint8_t>& bytes) {
  for (std::size_t keep = 0; keep < bytes.size(); ++keep) {
    const std::span<const std::uint8_t> cut(bytes.data(), keep);
    for (const bool piped : {false, true}) {
      try {
        if (piped) {
          std::istringstream in(std::string(cut.begin(), cut.end()));
          io::read_ec(in, "cut.ec", std::nullopt);
        } else {
          io::parse_ec(cut, "cut.ec");
        }
        RC_FAIL("accepted a file truncated to " + std::to_string(keep) + " of " + std::to_string(bytes.size()) + " bytes");
      } catch (const Error& e) {
        const std::string w = e.what();
        RC_ASSERT(w.rfind("cut.ec: byte ", 0) == 0);
        RC_ASSERT(w.find(keep < 8 ? "magic" : "truncated") != std::string::npos);
      }
    }
  }
}

// The header and descriptor bytes of a file.
std::size_t header_span(const std::vector<std::uint8_t>& b) {
  std::uint32_t n = 0;
  std::memcpy(&n, b.data() + 40, 4);
  return io::kEcHeaderBytes + n * io::kEcSetDescBytes;
}

std::vector<std::uint8_t> rechecksum(std::vector<std::uint8_t> b) {
  const std::uint64_t h = io::ec_file_checksum(b);
  std::memcpy(b.data() + io::kEcChecksumOffset, &h, 8);
  return b;
}

template <class T>
void header_corruptions() {
  const auto [m, a] = draw_ec<T>();
  const auto good = io::serialize_ec(a);
  const std::size_t hs = header_span(good);
  const auto flip = *rc::gen::inRange<int>(1, 256).as("xor mask");
  for (std::size_t at = 0; at < hs; ++at) {
    auto b = good;
    b[at] = static_cast<std::uint8_t>(b[at] ^ flip);
    // As changed: refused (a field check, or the checksum).
    try {
      io::parse_ec(b, "h.ec");
      RC_FAIL("accepted a change of header byte " + std::to_string(at));
    } catch (const Error& e) {
      RC_ASSERT(std::string(e.what()).rfind("h.ec: byte ", 0) == 0);
    }
    // With the checksum recomputed: a field check refuses it or the file is another valid matrix
    // (more rows, say), which then writes back to the same bytes.
    if (at >= io::kEcChecksumOffset && at < io::kEcChecksumOffset + 8) continue;
    const auto fixed = rechecksum(b);
    try {
      RC_ASSERT(io::serialize_ec(io::parse_ec(fixed, "h.ec")) == fixed);
    } catch (const Error& e) {
      RC_ASSERT(std::string(e.what()).rfind("h.ec: byte ", 0) == 0);
    }
  }
}

// A small encoded matrix with one block of each G >= 2 and both G = 1 sets used.
template <class T>
Ec<T> small_ec(int delta_bits, std::int64_t cols = 300, std::vector<int> groups = {2, 4, 8, 1, 1}) {
  SparseRows<T> base;
  base.cols = cols;
  for (int r = 0; r < 16; ++r) {  // rows 14 and 15 are dense: they make G = 1 long blocks
    for (std::int64_t c = r % 7; c < cols; c += r >= 14 ? 1 : 7 + r) base.push(static_cast<std::int32_t>(c), from_float<T>(float(c - r) + 0.5f));
    base.end_row();
  }
  const auto lay = make_layout(base, groups, 1);
  ec::EcParams p;
  p.delta_bits = delta_bits;
  return ec_layout_blocks(lay.m, lay.ex, p);
}

template <class U>
std::vector<std::uint8_t> with(std::vector<std::uint8_t> b, std::size_t at, U v) {
  std::memcpy(b.data() + at, &v, sizeof v);
  return b;
}

// Offset of array a (0 rows, 1 step_ptr, 2 bases, 3 deltas, 4 values) of set s.
std::size_t array_at(const std::vector<std::uint8_t>& b, int set, int array) {
  std::size_t at = header_span(b);
  for (int s = 0; s <= set; ++s)
    for (int a = 0; a < 5; ++a) {
      if (s == set && a == array) return at;
      std::uint64_t len = 0;
      std::memcpy(&len, b.data() + io::kEcHeaderBytes + s * io::kEcSetDescBytes + 24 + a * 8, 8);
      at += len;
    }
  return at;
}

}  // namespace

TEST_CASE("EC file: write -> read gives the same bytes and the same matrix") {
  ws_prop("fp16", 150, [] { roundtrip<half>(); });
  ws_prop("bf16", 100, [] { roundtrip<bfloat16>(); });
  ws_prop("fp32", 150, [] { roundtrip<float>(); });
}

TEST_CASE("EC file: a file written to disk reads back, and its input format is sniffed as ec") {
  const Ec<half> a = small_ec<half>(8);
  const auto path = (std::filesystem::temp_directory_path() / ("ws_ec_file_props_" + std::to_string(::getpid()) + ".ec")).string();
  io::write_ec_file(path, a);
  CHECK(std::filesystem::file_size(path) == io::ec_file_bytes(a));
  CHECK(io::serialize_ec(io::read_ec_file(path)) == io::serialize_ec(a));
  io::Input in = io::open_input(path);
  CHECK(io::sniff_format(in) == io::InputFormat::ec);
  CHECK(io::serialize_ec(io::read_ec(*in.stream, in.name, in.size)) == io::serialize_ec(a));
  std::filesystem::remove(path);
  // Every set is used, and the G = 8 block holds 8 rows.
  for (const auto& s : a.sets)
    if (s.group <= 8) CHECK(s.blocks() > 0);
}

TEST_CASE("EC file: every truncation is refused with the offset and field") {
  ws_prop("every prefix", 30, [] {
    const auto [m, a] = draw_ec<float>();
    const auto bytes = io::serialize_ec(a);
    if (bytes.size() > 20000) return;  // each prefix is parsed: keep the run short
    every_truncation(bytes);
  });
  every_truncation(io::serialize_ec(small_ec<half>(4)));
}

TEST_CASE("EC file: every single-byte change of the header or descriptors is refused") {
  ws_prop("fp16", 40, [] { header_corruptions<half>(); });
  ws_prop("fp32", 40, [] { header_corruptions<float>(); });
}

TEST_CASE("EC file: every single-byte change of the payload fails the checksum") {
  const auto good = io::serialize_ec(small_ec<bfloat16>(8));
  const std::size_t hs = header_span(good);
  for (std::size_t at = hs; at < good.size(); ++at) {
    auto b = good;
    b[at] ^= static_cast<std::uint8_t>(1 + at % 255);
    CHECK_THROWS_WITH(io::parse_ec(b, "p.ec"), Contains("p.ec: byte 48: checksum: mismatch"));
  }
}

TEST_CASE("EC file reader: corruptions are Errors naming file, byte offset and field") {
  const Ec<half> a = small_ec<half>(8);
  const auto good = io::serialize_ec(a);
  REQUIRE_NOTHROW(io::parse_ec(good, "f.ec"));
  REQUIRE(good.size() > 1000);
  auto parse = [](const std::vector<std::uint8_t>& b) { return io::parse_ec(b, "f.ec"); };
  CHECK_THROWS_WITH(parse({}), Contains("f.ec: byte 0: magic: not an EC file"));
  CHECK_THROWS_WITH(parse(io::serialize_macko(encode_macko(decode_ec(a)))), Contains("f.ec: byte 0: magic: not an EC file"));
  CHECK_THROWS_WITH(parse(std::vector<std::uint8_t>(good.begin(), good.begin() + 55)), Contains("byte 55: header: truncated"));
  CHECK_THROWS_WITH(parse(std::vector<std::uint8_t>(good.begin(), good.begin() + 100)), Contains("byte 100: set[0]: truncated"));
  CHECK_THROWS_WITH(parse(std::vector<std::uint8_t>(good.begin(), good.begin() + 56 + 64 * 3 + 5)),
                    Contains("byte 253: set[3]: truncated"));
  CHECK_THROWS_WITH(parse(std::vector<std::uint8_t>(good.begin(), good.end() - 1)), Contains("set[4].values: truncated"));
  const std::size_t vals0 = array_at(good, 0, 4);
  CHECK_THROWS_WITH(parse(std::vector<std::uint8_t>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(vals0 + 3))),
                    Contains(fmt::format("byte {}: set[0].values: truncated", vals0 + 3)));
  auto longer = good;
  longer.push_back(0);
  CHECK_THROWS_WITH(parse(longer), Contains("trailing bytes"));
  {
    std::istringstream in(std::string(longer.begin(), longer.end()));
    CHECK_THROWS_WITH(io::read_ec(in, "pipe.ec", std::nullopt), Contains(fmt::format("pipe.ec: byte {}: payload: trailing", good.size())));
  }
  CHECK_THROWS_WITH(parse(with<std::uint8_t>(good, 3, 'X')), Contains("byte 0: magic"));
  CHECK_THROWS_WITH(parse(with<std::uint32_t>(good, 8, 2)), Contains("byte 8: version: unsupported version 2"));
  CHECK_THROWS_WITH(parse(with<std::uint8_t>(good, 12, 3)), Contains("byte 12: value_type: int8 values are not part of EC-CSR"));
  CHECK_THROWS_WITH(parse(with<std::uint8_t>(good, 12, 9)), Contains("byte 12: value_type: unknown code 9"));
  CHECK_THROWS_WITH(parse(with<std::uint8_t>(good, 13, 2)), Contains("byte 13: delta_bits: 2 is not 4 or 8"));
  CHECK_THROWS_WITH(parse(with<std::uint8_t>(good, 14, 8)), Contains("byte 14: base_bits: 8 is not 16 or 32"));
  CHECK_THROWS_WITH(parse(with<std::uint8_t>(good, 14, 32)), Contains("byte 14: base_bits: 32, expected 16 for 300 columns"));
  CHECK_THROWS_WITH(parse(with<std::uint8_t>(good, 15, 1)), Contains("byte 15: reserved"));
  CHECK_THROWS_WITH(parse(with<std::uint64_t>(good, 16, 1ull << 32)), Contains("byte 16: rows: 4294967296 exceeds"));
  CHECK_THROWS_WITH(parse(with<std::uint64_t>(good, 24, 1ull << 40)), Contains("byte 24: cols"));
  CHECK_THROWS_WITH(parse(with<std::uint64_t>(good, 32, 1ull << 40)), Contains("byte 32: nnz: 1099511627776 exceeds the"));
  CHECK_THROWS_WITH(parse(with<std::uint32_t>(good, 40, 4)), Contains("byte 40: set_count: 4, expected 5"));
  CHECK_THROWS_WITH(parse(with<std::uint32_t>(good, 44, 1)), Contains("byte 44: reserved"));
  CHECK_THROWS_WITH(parse(with<std::uint64_t>(good, 48, 0)), Contains("byte 48: checksum: mismatch"));
  // Descriptor fields of set 1 (G = 4), at 56 + 64.
  const std::size_t d1 = 56 + 64;
  CHECK_THROWS_WITH(parse(with<std::uint8_t>(good, d1 + 0, 2)), Contains("byte 120: set[1].group: G = 2, expected 4"));
  CHECK_THROWS_WITH(parse(with<std::uint8_t>(good, d1 + 1, 8)), Contains("byte 121: set[1].vec: v = 8, expected 4"));
  CHECK_THROWS_WITH(parse(with<std::uint8_t>(good, d1 + 2, 1)), Contains("byte 122: set[1].flags"));
  CHECK_THROWS_WITH(parse(with<std::uint8_t>(good, d1 + 3, 4)), Contains("byte 123: set[1].delta_bits: 4, the header says 8"));
  CHECK_THROWS_WITH(parse(with<std::uint32_t>(good, d1 + 4, 7)), Contains("byte 124: set[1].reserved"));
  CHECK_THROWS_WITH(parse(with<std::uint64_t>(good, d1 + 8, 1ull << 33)), Contains("byte 128: set[1].blocks"));
  CHECK_THROWS_WITH(parse(with<std::uint64_t>(good, d1 + 16, 0)), Contains("byte 136: set[1].steps: 0 steps for 1 blocks"));
  CHECK_THROWS_WITH(parse(with<std::uint64_t>(good, d1 + 16, 7)), Contains("byte 168: set[1].deltas_bytes: ") && Contains(", expected 896 (1 blocks, 7 steps)"));
  CHECK_THROWS_WITH(parse(with<std::uint64_t>(good, d1 + 24, 12)), Contains("byte 144: set[1].rows_bytes: 12, expected 16"));
  CHECK_THROWS_WITH(parse(with<std::uint64_t>(good, d1 + 32, 4)), Contains("byte 152: set[1].step_ptr_bytes"));
  CHECK_THROWS_WITH(parse(with<std::uint64_t>(good, d1 + 40, 4)), Contains("byte 160: set[1].bases_bytes"));
  CHECK_THROWS_WITH(parse(with<std::uint64_t>(good, d1 + 48, 4)), Contains("byte 168: set[1].deltas_bytes"));
  CHECK_THROWS_WITH(parse(with<std::uint64_t>(good, d1 + 56, 4)), Contains("byte 176: set[1].values_bytes"));
  CHECK_THROWS_WITH(parse(with<std::uint8_t>(good, 56 + 4 * 64 + 2, 0)), Contains("byte 314: set[4].flags"));
  CHECK_THROWS_WITH(io::read_ec_file("/nonexistent/f.ec"), Contains("/nonexistent/f.ec: cannot open"));

  // Consistent headers over inconsistent arrays (re-checksummed so the deeper checks are reached):
  // Ec::find_fault()'s (set, array, index) become byte offsets.
  const std::size_t rows2 = array_at(good, 2, 0);  // the G = 2 block's row indices
  CHECK_THROWS_WITH(parse(rechecksum(with<std::uint32_t>(good, rows2 + 4, 99))),
                    Contains(fmt::format("byte {}: set[2].rows: set 2 (G=2): row index 99 >= rows 16", rows2 + 4)));
  std::uint32_t row0 = 0;
  std::memcpy(&row0, good.data() + rows2, 4);
  CHECK_THROWS_WITH(parse(rechecksum(with<std::uint32_t>(good, rows2 + 4, row0))),
                    Contains(fmt::format("byte {}: set[2].rows: set 2 (G=2): block 0 lists row", rows2 + 4)));
  const std::size_t ptr0 = array_at(good, 0, 1);
  CHECK_THROWS_WITH(parse(rechecksum(with<std::uint32_t>(good, ptr0, 1))), Contains(fmt::format("byte {}: set[0].step_ptr", ptr0)));
  const std::size_t bases3 = array_at(good, 3, 2);  // G = 1 long: 16-bit bases
  CHECK_THROWS_WITH(parse(rechecksum(with<std::uint16_t>(good, bases3 + 2 * 5, 300))),
                    Contains(fmt::format("byte {}: set[3].deltas: set 3 (G=1 long): block 0 lane 5 reaches column 300 >= cols 300",
                                         array_at(good, 3, 3) + 8 * 5)));
  const std::size_t deltas2 = array_at(good, 2, 3);
  CHECK_THROWS_WITH(parse(rechecksum(with<std::uint8_t>(good, deltas2, 3))),
                    Contains(fmt::format("byte {}: set[2].deltas: set 2 (G=2): block 0 lane 0 starts with delta 3", deltas2)));
  CHECK_THROWS_WITH(parse(rechecksum(with<std::uint64_t>(good, 32, 2))), Contains("byte 32: nnz: header nnz 2 differs"));
  // The same column twice in one row: set 0's block (rows 6..13, columns [c0, c0 + 128 k)) and a
  // row of the G = 2 block pointed at row 6.
  {
    auto b = with<std::uint32_t>(good, rows2, 6);
    CHECK_THROWS_WITH(parse(rechecksum(b)), Contains("holds row 6, column") && Contains("holds already"));
  }
}

TEST_CASE("EC file reader: wide matrices use 32-bit bases, short-only and empty matrices round-trip") {
  SparseRows<float> w;
  w.cols = 65537;
  w.push(0, 1.0f);
  w.push(65536, 2.0f);
  w.end_row();
  w.end_row();
  ec::EcExtraction ex;
  ex.rows = 2;
  ex.cols = w.cols;
  ex.residual = {{0, 65536}, {}};
  const Ec<float> a = ec_layout_blocks(w, ex, {});
  REQUIRE(a.base_bits() == 32);
  const auto bytes = io::serialize_ec(a);
  CHECK(bytes[14] == 32);
  CHECK(io::serialize_ec(io::parse_ec(bytes, "w.ec")) == bytes);
  CHECK(same_rows_bits(decode_ec(std::get<Ec<float>>(io::parse_ec(bytes, "w.ec"))), w));
  CHECK_THROWS_WITH(io::parse_ec(rechecksum(with<std::uint8_t>(bytes, 14, 16)), "w.ec"),
                    Contains("w.ec: byte 14: base_bits: 16, expected 32 for 65537 columns"));
  // Empty: no rows at all, and rows with nothing in them.
  for (const std::int64_t rows : {0, 5}) {
    SparseRows<half> z;
    z.cols = 10;
    for (std::int64_t r = 0; r < rows; ++r) z.end_row();
    ec::EcExtraction e0;
    e0.rows = rows;
    e0.cols = 10;
    e0.residual.resize(static_cast<std::size_t>(rows));
    const auto zb = io::serialize_ec(ec_layout_blocks(z, e0, {}));
    CHECK(zb.size() == io::kEcHeaderBytes + 5 * io::kEcSetDescBytes + 5 * 4);  // one step_ptr entry per set
    CHECK(io::serialize_ec(io::parse_ec(zb, "z.ec")) == zb);
  }
}

TEST_CASE("EC file reader: a header claiming huge arrays fails fast, before allocating them") {
  ws_prop("huge claims", 200, [] {
    const auto good = io::serialize_ec(small_ec<float>(8, 200, {1}));
    // Set 3 (G = 1 long, v = 4 for fp32) claims `blocks` blocks over `steps` steps, lengths to match.
    const auto blocks = *rc::gen::inRange<std::uint64_t>(std::uint64_t{1} << 20, std::uint64_t{1} << 32).as("blocks");
    const auto extra = *rc::gen::inRange<std::uint64_t>(0, std::uint64_t{1} << 31).as("extra steps");
    const std::uint64_t steps = std::min<std::uint64_t>(blocks + extra, (std::uint64_t{1} << 32) - 1);
    const std::uint64_t slots = steps * 32 * 4;
    const std::uint64_t fields[] = {blocks, steps, blocks * 4, (blocks + 1) * 4, blocks * 32 * 2, slots, slots * 4};
    auto b = good;
    std::memcpy(b.data() + 56 + 3 * 64 + 8, fields, sizeof fields);
    proptest::check_huge_claim_refused(b, "huge.ec", [](auto&... a) { io::read_ec(a...); });
  });
}

TEST_CASE("EC file reader never crashes on random corruption") {
  ws_prop("random byte edits and truncations, checksum recomputed", 1500, [] {
    const auto [m, a] = draw_ec<half>();
    auto b = io::serialize_ec(a);
    const auto edits = *rc::gen::container<std::vector<std::pair<std::size_t, std::uint8_t>>>(
                            rc::gen::pair(rc::gen::inRange<std::size_t>(0, b.size()), rc::gen::arbitrary<std::uint8_t>()))
                            .as("byte edits");
    const std::size_t keep = *rc::gen::inRange<std::size_t>(0, b.size() + 1).as("bytes kept");
    const bool fix = *rc::gen::arbitrary<bool>().as("checksum recomputed");
    for (const auto& [at, v] : edits) b[at] = v;
    b.resize(keep);
    if (fix && b.size() >= io::kEcHeaderBytes) b = rechecksum(b);
    try {
      const auto back = io::parse_ec(b, "fuzz.ec", MemoryBudget{std::uint64_t{64} << 20, "test"});
      RC_ASSERT(io::serialize_ec(back) == b);
      std::visit([](const auto& x) {
        if (x.rows <= 100000) decode_ec(x);  // decode holds a vector per row
      }, back);
    } catch (const Error& e) {
      RC_ASSERT(std::string(e.what()).rfind("fuzz.ec: byte ", 0) == 0);
    }
  });
}
