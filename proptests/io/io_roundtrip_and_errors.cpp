// MatrixMarket and MACKO files: write -> read gives the same bits (property), and every bad input
// (truncation, bad header, bad line, duplicates, out-of-range indices, 0-sized and absurd shapes,
// bad magic/version/lengths, checksum mismatch) is a warpsparse::Error naming the file, the line
// or byte offset, and what is wrong — never a crash.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>

#include "proptests/generators.hpp"
#include "proptests/io/huge_claim.hpp"
#include "proptests/prop_support.hpp"
#include "reference/io/macko_file.hpp"
#include "reference/io/matrix_market.hpp"

using namespace warpsparse;
using namespace warpsparse::proptest;
using Catch::Contains;

namespace {

template <class T = float>
SparseRows<T> mm(const std::string& text) {
  std::istringstream in(text);
  return io::read_matrix_market<T>(in, "m.mtx");
}
const std::string kHead = "%%MatrixMarket matrix coordinate real general\n";

template <class T>
void mm_roundtrip() {
  const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
  const SparseRows<T> m = build<T>(rec);
  std::ostringstream out;
  io::write_matrix_market(out, m);
  std::istringstream in(out.str());
  const SparseRows<T> back = io::read_matrix_market<T>(in, "roundtrip");
  RC_ASSERT(back.row_ptr == m.row_ptr);
  RC_ASSERT(back.col == m.col);
  for (std::size_t k = 0; k < m.val.size(); ++k) {
    const float a = to_float(m.val[k]), b = to_float(back.val[k]);
    // NaN payloads are not kept by the text format; every other value keeps its bits (-0 too).
    RC_ASSERT(((std::isnan(a) && std::isnan(b)) || std::memcmp(&m.val[k], &back.val[k], sizeof(T)) == 0));
  }
}

}  // namespace

TEST_CASE("MatrixMarket write -> read keeps every entry and bit") {
  ws_prop("fp16", 300, [] { mm_roundtrip<half>(); });
  ws_prop("bf16", 200, [] { mm_roundtrip<bfloat16>(); });
  ws_prop("fp32", 300, [] { mm_roundtrip<float>(); });
  ws_prop("int8", 200, [] { mm_roundtrip<std::int8_t>(); });
}

TEST_CASE("MatrixMarket reader: accepted inputs") {
  const auto a = mm(kHead + "% comment\n\n2 3 3\n1 1 1.5\n2 3 -2\n1 3 inf\n");
  CHECK(a.rows == 2);
  CHECK(a.cols == 3);
  CHECK(a.row_ptr == std::vector<std::int64_t>{0, 2, 3});
  CHECK(a.col == std::vector<std::int32_t>{0, 2, 2});
  CHECK(std::isinf(a.val[1]));
  const auto p = mm("%%MatrixMarket MATRIX Coordinate Pattern General\n2 2 2\n2 1\n1 2\n");
  CHECK(p.val == std::vector<float>{1.0f, 1.0f});
  // array: column-major, zeros not stored
  const auto d = mm("%%MatrixMarket matrix array real general\n2 2\n1\n0\n3\n4\n");
  CHECK(d.row_ptr == std::vector<std::int64_t>{0, 2, 3});
  CHECK(d.val == std::vector<float>{1, 3, 4});
  const auto i = mm<std::int8_t>("%%MatrixMarket matrix coordinate integer general\n1 2 1\n1 2 -128\n");
  CHECK(i.val[0] == -128);
  // explicit zeros in coordinate form are kept as stored entries (encoders drop them)
  CHECK(mm(kHead + "1 2 1\n1 2 -0\n").nnz() == 1);
  // Magnitudes too small for the value type round to +-0 (sign kept); an infinity written as one
  // is a value; a number too large for the type is refused (below).
  const auto big = mm(kHead + "1 4 4\n1 1 -Infinity\n1 2 inf\n1 3 -1e-400\n1 4 +3e38\n");
  CHECK(big.val[0] == -std::numeric_limits<float>::infinity());
  CHECK(big.val[1] == std::numeric_limits<float>::infinity());
  CHECK((big.val[2] == 0.0f && std::signbit(big.val[2])));
  CHECK(big.val[3] == 3e38f);
  CHECK(to_float(mm<half>(kHead + "1 1 1\n1 1 65504\n").val[0]) == 65504.0f);
  // CRLF line endings and a space before the banner are read like LF.
  CHECK(mm("%%MatrixMarket matrix coordinate real general\r\n1 1 1\r\n1 1 2\r\n").val == std::vector<float>{2});
}

TEST_CASE("MatrixMarket reader: every bad input is an Error naming file, line and problem") {
  // Numbers the value type cannot hold, rather than an inf that was never written.
  CHECK_THROWS_WITH(mm(kHead + "1 2 2\n1 1 1\n1 2 -1e39\n"),
                    Contains("m.mtx:4: value '-1e39' is beyond the range of fp32"));
  CHECK_THROWS_WITH(mm(kHead + "1 1 1\n1 1 1e400\n"), Contains("value '1e400' is beyond the range of fp32"));
  CHECK_THROWS_WITH(mm<half>(kHead + "1 1 1\n1 1 65520\n"),
                    Contains("m.mtx:3: value '65520' is beyond the range of fp16"));
  CHECK_THROWS_WITH(mm<bfloat16>(kHead + "1 1 1\n1 1 3.4e38\n"), Contains("beyond the range of bf16"));
  CHECK_THROWS_WITH(mm(""), Contains("m.mtx:0: empty file"));
  CHECK_THROWS_WITH(mm("hello\n1 1 0\n"), Contains("m.mtx:1: bad header"));
  CHECK_THROWS_WITH(mm("%%MatrixMarket matrix coordinate complex general\n"), Contains("m.mtx:1") && Contains("complex"));
  CHECK_THROWS_WITH(mm("%%MatrixMarket matrix coordinate real symmetric\n"), Contains("symmetry 'symmetric'"));
  CHECK_THROWS_WITH(mm("%%MatrixMarket matrix array pattern general\n"), Contains("array pattern"));
  CHECK_THROWS_WITH(mm("%%MatrixMarket vector coordinate real general\n"), Contains("object 'vector'"));
  CHECK_THROWS_WITH(mm(kHead), Contains("m.mtx:1: truncated: no size line"));
  CHECK_THROWS_WITH(mm(kHead + "2 2\n"), Contains("m.mtx:2: bad size line"));
  CHECK_THROWS_WITH(mm(kHead + "0 0 0\n"), Contains("m.mtx:2: shape 0x0"));
  CHECK_THROWS_WITH(mm(kHead + "5 0 0\n"), Contains("shape 5x0"));
  CHECK_THROWS_WITH(mm(kHead + "-1 4 0\n"), Contains("shape -1x4"));
  CHECK_THROWS_WITH(mm(kHead + "1 4294967296 1\n"), Contains("m.mtx:2") && Contains("cols exceed"));
  CHECK_THROWS_WITH(mm(kHead + "99999999999 2 1\n"), Contains("rows exceed"));
  CHECK_THROWS_WITH(mm(kHead + "1 99999999999999999999999 1\n"), Contains("does not fit in 64 bits"));
  CHECK_THROWS_WITH(mm("%%MatrixMarket matrix array real general\n100000 100000\n"), Contains("above the limit"));
  CHECK_THROWS_WITH(mm(kHead + "2 2 5\n"), Contains("entries = 5 is not in [0, rows*cols = 4]"));
  CHECK_THROWS_WITH(mm(kHead + "2 2 3\n1 1 1\n2 2 2\n"), Contains("m.mtx:4: truncated: expected 3 entries, the file ends after 2"));
  CHECK_THROWS_WITH(mm(kHead + "2 2 1\n1 x 1\n"), Contains("m.mtx:3: column index 'x' is not an integer"));
  CHECK_THROWS_WITH(mm(kHead + "2 2 1\n1 1\n"), Contains("m.mtx:3: bad entry line"));
  CHECK_THROWS_WITH(mm(kHead + "2 2 1\n1 1 1 7\n"), Contains("m.mtx:3: bad entry line"));
  CHECK_THROWS_WITH(mm(kHead + "2 2 1\n1 1 1.5e\n"), Contains("m.mtx:3: value '1.5e' is not a number"));
  CHECK_THROWS_WITH(mm(kHead + "2 2 1\n3 1 1\n"), Contains("m.mtx:3: row index 3 out of range [1, 2]"));
  CHECK_THROWS_WITH(mm(kHead + "2 2 1\n1 0 1\n"), Contains("m.mtx:3: column index 0 out of range"));
  CHECK_THROWS_WITH(mm(kHead + "2 2 2\n1 1 1\n\n% c\n1 1 2\n"), Contains("m.mtx:6: duplicate entry (1, 1), first given on line 3"));
  CHECK_THROWS_WITH(mm(kHead + "2 2 1\n1 1 1\n2 2 2\n"), Contains("m.mtx:4: unexpected data"));
  CHECK_THROWS_WITH(mm("%%MatrixMarket matrix array real general\n2 1\n1\n"), Contains("m.mtx:3: truncated: expected 2 values"));
  CHECK_THROWS_WITH(mm<std::int8_t>(kHead + "1 1 1\n1 1 200\n"), Contains("m.mtx:3: value '200' is out of the int8 range [-128, 127]"));
  CHECK_THROWS_WITH(mm<std::int8_t>(kHead + "1 1 1\n1 1 1e400\n"), Contains("value '1e400' is out of the int8 range"));
  CHECK_THROWS_WITH(mm<std::int8_t>(kHead + "1 1 1\n1 1 0.5\n"), Contains("not an integer"));
  CHECK_THROWS_WITH(io::read_matrix_market_file<float>("/nonexistent/x.mtx"), Contains("/nonexistent/x.mtx: cannot open"));
  CHECK_THROWS_WITH(mm(kHead + "1 1 1\n1 1 1e400x\n"), Contains("value '1e400x' is not a number"));
  CHECK_THROWS_WITH(mm(kHead + "1 1 1\n++1 1 1\n"), Contains("row index '++1' is not an integer"));
  CHECK_THROWS_WITH(mm(kHead + "1 1 1\n1 1 1\r1 1 1\r"), Contains("CR line endings"));
  // A huge token is named by its start and length, not copied whole into the message.
  try {
    mm(kHead + "1 1 1\n1 1 " + std::string(100000, '9') + "x\n");
    FAIL("accepted a malformed value");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).size() < 200);
    CHECK_THAT(e.what(), Contains("(100001 bytes)"));
  }
  // A line longer than the reader's bound is refused without reading it all.
  CHECK_THROWS_WITH(mm(kHead + "1 1 1\n1 1 " + std::string(2 << 20, '1') + "\n"), Contains("m.mtx:3: line longer than"));
}

TEST_CASE("MatrixMarket reader: a header's promises are checked against the memory budget before allocating") {
  const MemoryBudget small{1 << 20, "test"};
  auto mmb = [&](const std::string& text) {
    std::istringstream in(text);
    return io::read_matrix_market<float>(in, "m.mtx", {}, small);
  };
  CHECK_THROWS_WITH(mmb(kHead + "1000 1000 900000\n1 1 1\n"), Contains("m.mtx:2:") && Contains("above the memory budget of 1.0 MiB (test)"));
  // An array header allocates nothing up front: a short file ends in "truncated", not in gigabytes.
  CHECK_THROWS_WITH(mmb("%%MatrixMarket matrix array real general\n32768 32768\n1\n"), Contains("m.mtx:3: truncated"));
  // Its nonzeros are counted against the budget as they come.
  std::string dense = "%%MatrixMarket matrix array real general\n300000 1\n";
  for (int i = 0; i < 300000; ++i) dense += "1\n";
  CHECK_THROWS_WITH(mmb(dense), Contains("above the memory budget"));
  CHECK_NOTHROW(io::read_matrix_market<float>(*std::make_unique<std::istringstream>(dense), "m.mtx"));
}

TEST_CASE("MACKO file reader: corruptions are Errors naming file, byte offset and field") {
  SparseRows<half> m;
  m.cols = 50;
  m.push(1, half(1.0f));
  m.push(35, half(2.0f));
  m.end_row();
  m.push(49, half(3.0f));
  m.end_row();
  const auto good = io::serialize_macko(encode_macko(m));
  REQUIRE_NOTHROW(io::parse_macko(good, "f.macko"));
  auto with = [&](std::size_t at, std::uint64_t v, std::size_t n) {
    auto b = good;
    std::memcpy(b.data() + at, &v, n);
    return b;
  };
  auto parse = [](const std::vector<std::uint8_t>& b) { return io::parse_macko(b, "f.macko"); };
  CHECK_THROWS_WITH(parse({}), Contains("f.macko: byte 0: magic: not a MACKO file"));
  CHECK_THROWS_WITH(parse(std::vector<std::uint8_t>(good.begin(), good.begin() + 79)), Contains("byte 79: header: truncated"));
  CHECK_THROWS_WITH(parse(std::vector<std::uint8_t>(good.begin(), good.end() - 1)), Contains("row_ptr: truncated"));
  CHECK_THROWS_WITH(parse(std::vector<std::uint8_t>(good.begin(), good.begin() + 90)), Contains("byte 90: values: truncated"));
  auto longer = good;
  longer.push_back(0);
  CHECK_THROWS_WITH(parse(longer), Contains("trailing bytes"));
  CHECK_THROWS_WITH(parse(with(0, 'X', 1)), Contains("byte 0: magic"));
  CHECK_THROWS_WITH(parse(with(8, 2, 4)), Contains("byte 8: version: unsupported version 2"));
  CHECK_THROWS_WITH(parse(with(12, 9, 1)), Contains("byte 12: value_type: unknown code 9"));
  CHECK_THROWS_WITH(parse(with(13, 3, 1)), Contains("byte 13: delta_bits"));
  CHECK_THROWS_WITH(parse(with(14, 5, 1)), Contains("byte 14: row_ptr_width"));
  CHECK_THROWS_WITH(parse(with(15, 1, 1)), Contains("byte 15: reserved"));
  CHECK_THROWS_WITH(parse(with(16, ~0ull, 8)), Contains("byte 16: rows"));
  CHECK_THROWS_WITH(parse(with(24, 1ull << 40, 8)), Contains("byte 24: cols"));
  CHECK_THROWS_WITH(parse(with(32, 100, 8)), Contains("byte 32: nnz"));
  CHECK_THROWS_WITH(parse(with(40, ~0ull, 8)), Contains("byte 40: emitted"));
  CHECK_THROWS_WITH(parse(with(48, 16, 8)), Contains("byte 48: values_count: 16, expected 8"));
  CHECK_THROWS_WITH(parse(with(56, 5, 8)), Contains("byte 56: delta_bytes"));
  CHECK_THROWS_WITH(parse(with(64, 2, 8)), Contains("byte 64: row_ptr_count"));
  CHECK_THROWS_WITH(parse(with(72, 0, 8)), Contains("byte 72: checksum: mismatch"));
  auto flipped = good;
  flipped[85] ^= 0x10;  // a payload byte
  CHECK_THROWS_WITH(parse(flipped), Contains("checksum: mismatch"));
  // A consistent header over inconsistent arrays: re-checksummed so the deeper checks are reached.
  auto rechecksum = [](std::vector<std::uint8_t> b) {
    std::uint64_t h = io::fnv1a64(std::span<const std::uint8_t>(b).first(72));
    h = io::fnv1a64(std::span<const std::uint8_t>(b).subspan(80), h);
    std::memcpy(b.data() + 72, &h, 8);
    return b;
  };
  const std::size_t ptr_at = good.size() - 12;  // row_ptr: 3 x 4 bytes at the end
  CHECK_THROWS_WITH(parse(rechecksum(with(ptr_at + 8, 4, 4))), Contains("row_ptr[rows] = 4 differs from emitted"));
  CHECK_THROWS_WITH(parse(rechecksum(with(ptr_at, 1, 4))), Contains("byte 100: row_ptr: row_ptr[0] = 1, expected 0"));
  CHECK_THROWS_WITH(parse(rechecksum(with(32, 2, 8))), Contains("byte 16: header: header nnz 2 differs"));
  CHECK_THROWS_WITH(parse(rechecksum(with(80 + 8 * 2 + 3, 0xff, 1))), Contains("decodes to column"));  // delta byte
  CHECK_THROWS_WITH(io::read_macko_file("/nonexistent/f.macko"), Contains("/nonexistent/f.macko: cannot open"));
  // A row pointer past the end is caught before any row is walked (it once sent the walk gigabytes
  // past the arrays): row 0 claims [0, 2^32 - 16), row 1 ends at emitted.
  CHECK_THROWS_WITH(parse(rechecksum(with(ptr_at + 4, 0xfffffff0u, 4))),
                    Contains("byte 104: row_ptr: row_ptr[1] = 4294967280 lies past row_ptr[rows] = 8"));
  CHECK_THROWS_WITH(parse(rechecksum(with(ptr_at + 4, 9, 4))), Contains("row_ptr[1] = 9 lies past row_ptr[rows] = 8"));
}

TEST_CASE("MACKO file reader: a header claiming huge arrays fails fast, before allocating them") {
  // A valid header for 2^40 rows and 2^40 stored elements, with (almost) no payload behind it.
  ws_prop("huge claims", 200, [] {
    SparseRows<float> m;
    m.cols = 8;
    m.push(0, 1.0f);
    m.end_row();
    auto b = io::serialize_macko(encode_macko(m));
    const auto rows = *rc::gen::inRange<std::uint64_t>(std::uint64_t{1} << 20, std::uint64_t{1} << 40).as("rows");
    const auto emitted = *rc::gen::inRange<std::uint64_t>(std::uint64_t{1} << 20, std::uint64_t{1} << 40).as("emitted");
    const std::uint64_t padded = (emitted + 7) / 8 * 8;
    const std::uint64_t fields[] = {rows, 8, 1, emitted, padded, padded / 2, rows + 1};
    std::memcpy(b.data() + 16, fields, sizeof fields);
    b[14] = 8;  // 64-bit row pointers, as such counts need
    proptest::check_huge_claim_refused(b, "huge.macko", [](auto&... a) { io::read_macko(a...); });
  });
}

TEST_CASE("MACKO file reader reads a stream once: the same matrix from a file and from a pipe-like stream") {
  SparseRows<half> m;
  m.cols = 300;
  for (int r = 0; r < 5; ++r) {
    for (int c = r; c < 300; c += 37 + r) m.push(c, half(float(c - r)));
    m.end_row();
  }
  const auto bytes = io::serialize_macko(encode_macko(m));
  std::istringstream in(std::string(bytes.begin(), bytes.end()));
  const auto a = io::read_macko(in, "pipe", std::nullopt);
  const auto b = io::parse_macko(bytes, "file");
  CHECK(io::serialize_macko(a) == io::serialize_macko(b));
}

TEST_CASE("MACKO file reader never crashes on random corruption") {
  ws_prop("random byte edits and truncations", 2000, [] {
    const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
    const int db = *rc::gen::element(1, 2, 4, 8).as("delta bits");
    MackoParams p;
    p.delta_bits = db;
    auto b = io::serialize_macko(encode_macko(build<float>(rec), p));
    const auto edits = *rc::gen::container<std::vector<std::pair<std::size_t, std::uint8_t>>>(
        rc::gen::pair(rc::gen::inRange<std::size_t>(0, b.size()), rc::gen::arbitrary<std::uint8_t>())).as("byte edits");
    const std::size_t keep = *rc::gen::inRange<std::size_t>(0, b.size() + 1).as("bytes kept");
    for (const auto& [at, v] : edits) b[at] = v;
    b.resize(keep);
    try {
      io::parse_macko(b, "fuzz.macko");
    } catch (const Error& e) {
      RC_ASSERT(std::string(e.what()).rfind("fuzz.macko: byte ", 0) == 0);
    }
  });
}
