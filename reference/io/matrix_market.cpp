#include "reference/io/matrix_market.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <istream>
#include <ostream>
#include <string_view>
#include <vector>

#include "reference/common/parse_number.hpp"
#include "reference/io/input.hpp"
#include "reference/io/output_file.hpp"

namespace warpsparse::io {

namespace {

// Splits a line into whitespace-separated tokens (at most `max` + 1 are kept, so a caller can
// tell "too many").
std::vector<std::string_view> tokens(std::string_view line, std::size_t max) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size() && out.size() <= max) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i == line.size()) break;
    const std::size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    out.push_back(line.substr(b, i - b));
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return r;
}

bool blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// A token as messages quote it: whole when short, its start and length otherwise.
std::string show(std::string_view tok) {
  if (tok.size() <= 40) return std::string(tok);
  return fmt::format("{}... ({} bytes)", tok.substr(0, 32), tok.size());
}

// Reads lines and keeps the line number for messages. A line is at most kMaxLine bytes, so a file
// without line breaks cannot make the reader hold more than that.
class LineReader {
 public:
  static constexpr std::size_t kMaxLine = std::size_t{1} << 20;
  LineReader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}
  // Next non-blank line (comments too when skip_comments); false at end of input.
  bool next(bool skip_comments) {
    while (read_line()) {
      ++number_;
      if (blank(line_)) continue;
      if (skip_comments && line_[0] == '%') continue;
      return true;
    }
    if (in_.bad()) fail("read error");
    return false;
  }
  const std::string& line() const { return line_; }
  std::int64_t number() const { return number_; }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("{}:{}: {}", name_, number_, what));
  }
  const std::string& name() const { return name_; }

 private:
  bool read_line() {
    line_.clear();
    int c = 0;
    bool any = false;
    while ((c = in_.get()) != std::char_traits<char>::eof()) {
      any = true;
      if (c == '\n') break;
      if (line_.size() == kMaxLine) {
        ++number_;
        fail(fmt::format("line longer than {} bytes", kMaxLine));
      }
      line_ += static_cast<char>(c);
    }
    // A carriage return anywhere but at the end: a file with CR-only (classic Mac) line endings.
    const auto cr = line_.find('\r');
    if (cr != std::string::npos && cr + 1 < line_.size()) {
      ++number_;
      fail("CR line endings (classic Mac) are not supported: convert the file to LF or CRLF line endings");
    }
    return any;
  }

  std::istream& in_;
  std::string name_;
  std::string line_;
  std::int64_t number_ = 0;
};

std::int64_t parse_int(const LineReader& lr, std::string_view tok, const char* field) {
  std::string_view digits = tok;
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range)
    lr.fail(fmt::format("{} '{}' does not fit in 64 bits", field, show(tok)));
  if (ec != std::errc() || p != digits.data() + digits.size() || digits.empty())
    lr.fail(fmt::format("{} '{}' is not an integer", field, show(tok)));
  return v;
}

template <class T>
T parse_value(const LineReader& lr, std::string_view tok, bool integer_field) {
  const auto number = to_number(tok);
  if (!number) lr.fail(fmt::format("value '{}' is not a number", show(tok)));
  const double d = *number;
  if constexpr (std::is_same_v<T, std::int8_t>) {
    if (std::isinf(d) || (d == std::nearbyint(d) && (d < -128 || d > 127)))
      lr.fail(fmt::format("value '{}' is out of the int8 range [-128, 127]", show(tok)));
    if (d != std::nearbyint(d)) lr.fail(fmt::format("value '{}' is not an integer in [-128, 127] (int8)", show(tok)));
    return static_cast<std::int8_t>(d);
  } else {
    if (integer_field) (void)parse_int(lr, tok, "integer value");
    // Rounded once, from the decimal to fp32 (through a double it could round twice), then to T.
    const std::string_view num = tok.substr(!tok.empty() && tok[0] == '+' ? 1 : 0);
    float f = 0;
    const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), f);
    if (ec != std::errc() || p != num.data() + num.size()) f = static_cast<float>(d);
    const T v = from_float<T>(f);
    // A number T cannot hold is refused, as int8 refuses one: stored as inf it would be another
    // number. An infinity written as one ("inf", "-Infinity") is a value; magnitudes too small for
    // T round to +-0 as IEEE rounding does.
    const std::string_view mag = num.substr(!num.empty() && num[0] == '-' ? 1 : 0);
    const bool written_inf = !mag.empty() && (mag[0] == 'i' || mag[0] == 'I');
    if (std::isinf(to_float(v)) && !written_inf)
      lr.fail(fmt::format("value '{}' is beyond the range of {} (it would become inf){}", show(tok),
                          to_string(ValueTypeOf<T>::value),
                          sizeof(T) < sizeof(float) ? "; read it as fp32" : ""));
    return v;
  }
}

// One stored entry as read, with its line for the duplicate message.
template <class T>
struct Entry {
  std::int64_t r;
  std::int32_t c;
  T v;
  std::int64_t line;
};

struct Header {
  bool coordinate = true;
  bool pattern = false;
  bool integer = false;
};

Header parse_banner(LineReader& lr) {
  if (!lr.next(false)) lr.fail("empty file (expected a %%MatrixMarket header)");
  const auto t = tokens(lr.line(), 5);
  if (t.empty() || lower(t[0]) != "%%matrixmarket")
    lr.fail("bad header: the first line must start with %%MatrixMarket");
  if (t.size() != 5) lr.fail("bad header: expected '%%MatrixMarket matrix <format> <field> <symmetry>'");
  if (lower(t[1]) != "matrix") lr.fail(fmt::format("bad header: object '{}' is not supported (only 'matrix')", show(t[1])));
  Header h;
  const std::string format = lower(t[2]), field = lower(t[3]), sym = lower(t[4]);
  if (format == "array") h.coordinate = false;
  else if (format != "coordinate") lr.fail(fmt::format("bad header: format '{}' (expected coordinate or array)", show(t[2])));
  if (field == "pattern") h.pattern = true;
  else if (field == "integer") h.integer = true;
  else if (field != "real")
    lr.fail(fmt::format("bad header: field '{}' is not supported (real, integer or pattern)", show(t[3])));
  if (sym != "general")
    lr.fail(fmt::format("bad header: symmetry '{}' is not supported (only general)", show(t[4])));
  if (h.pattern && !h.coordinate) lr.fail("bad header: 'array pattern' is not a valid combination");
  return h;
}

}  // namespace

template <class T>
SparseRows<T> read_matrix_market(std::istream& in, const std::string& name, const MatrixMarketLimits& limits,
                                 const MemoryBudget& budget) {
  LineReader lr(in, name);
  const Header h = parse_banner(lr);
  if (!lr.next(true)) lr.fail("truncated: no size line after the header");
  const auto st = tokens(lr.line(), 3);
  const std::size_t want = h.coordinate ? 3 : 2;
  if (st.size() != want)
    lr.fail(h.coordinate ? "bad size line: expected 'rows cols entries'" : "bad size line: expected 'rows cols'");
  const std::int64_t rows = parse_int(lr, st[0], "rows");
  const std::int64_t cols = parse_int(lr, st[1], "cols");
  if (rows < 1 || cols < 1) lr.fail(fmt::format("shape {}x{}: rows and cols must be at least 1", rows, cols));
  if (rows > limits.max_rows)
    lr.fail(fmt::format("shape {}x{}: rows exceed the limit {}", rows, cols, limits.max_rows));
  if (cols > limits.max_cols)
    lr.fail(fmt::format("shape {}x{}: cols exceed the limit {} (32-bit column indices)", rows, cols, limits.max_cols));
  // rows, cols < 2^31 here, so rows * cols cannot overflow int64.
  const std::int64_t dense = rows * cols;

  SparseRows<T> m;
  m.cols = cols;
  const T one = from_float<T>(1.0f);
  if (h.coordinate) {
    const std::int64_t entries = parse_int(lr, st[2], "entries");
    if (entries < 0 || entries > dense)
      lr.fail(fmt::format("entries = {} is not in [0, rows*cols = {}]", entries, dense));
    // The entries as read, then the rows they make: decided from the header before reading.
    budget.require(sat_add(sat_mul(static_cast<std::uint64_t>(entries), sizeof(Entry<T>) + sizeof(T) + 4),
                           sat_mul(static_cast<std::uint64_t>(rows) + 1, 8)),
                   fmt::format("{}:{}: a {} x {} matrix of {} entries", name, lr.number(), rows, cols, entries));
    std::vector<Entry<T>> e;
    e.reserve(static_cast<std::size_t>(std::min<std::int64_t>(entries, 1 << 20)));
    const std::size_t per = h.pattern ? 2 : 3;
    for (std::int64_t k = 0; k < entries; ++k) {
      if (!lr.next(true))
        lr.fail(fmt::format("truncated: expected {} entries, the file ends after {}", entries, k));
      const auto t = tokens(lr.line(), per);
      if (t.size() != per)
        lr.fail(fmt::format("bad entry line: expected {} fields ('{}'), got {}", per,
                            h.pattern ? "row col" : "row col value", t.size()));
      const std::int64_t i = parse_int(lr, t[0], "row index");
      const std::int64_t j = parse_int(lr, t[1], "column index");
      if (i < 1 || i > rows) lr.fail(fmt::format("row index {} out of range [1, {}]", i, rows));
      if (j < 1 || j > cols) lr.fail(fmt::format("column index {} out of range [1, {}]", j, cols));
      const T v = h.pattern ? one : parse_value<T>(lr, t[2], h.integer);
      e.push_back({i - 1, static_cast<std::int32_t>(j - 1), v, lr.number()});
    }
    if (lr.next(true)) lr.fail(fmt::format("unexpected data after the {} declared entries", entries));
    std::stable_sort(e.begin(), e.end(), [](const Entry<T>& a, const Entry<T>& b) {
      return a.r != b.r ? a.r < b.r : a.c < b.c;
    });
    for (std::size_t k = 1; k < e.size(); ++k)
      if (e[k].r == e[k - 1].r && e[k].c == e[k - 1].c)
        throw Error(fmt::format("{}:{}: duplicate entry ({}, {}), first given on line {}", name,
                                std::max(e[k].line, e[k - 1].line), e[k].r + 1, e[k].c + 1,
                                std::min(e[k].line, e[k - 1].line)));
    std::size_t k = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      for (; k < e.size() && e[k].r == r; ++k) m.push(e[k].c, e[k].v);
      m.end_row();
    }
  } else {
    if (dense > limits.max_dense_elements)
      lr.fail(fmt::format("array shape {}x{} has {} elements, above the limit {}", rows, cols, dense,
                          limits.max_dense_elements));
    // Column-major values, kept only where nonzero, so memory follows what the file holds, not the
    // shape its header claims.
    std::vector<Entry<T>> e;
    for (std::int64_t k = 0; k < dense; ++k) {
      if (!lr.next(true))
        lr.fail(fmt::format("truncated: expected {} values, the file ends after {}", dense, k));
      const auto t = tokens(lr.line(), 1);
      if (t.size() != 1) lr.fail(fmt::format("bad value line: expected 1 field, got {}", t.size()));
      const T v = parse_value<T>(lr, t[0], h.integer);
      if (is_zero(v)) continue;
      if (e.size() == e.capacity())
        budget.require(sat_add(sat_mul(2 * e.size() + 1, sizeof(Entry<T>) + sizeof(T) + 4), sat_mul(static_cast<std::uint64_t>(rows) + 1, 8)),
                       fmt::format("{}:{}: the nonzeros of a {} x {} array", name, lr.number(), rows, cols));
      e.push_back({k % rows, static_cast<std::int32_t>(k / rows), v, lr.number()});
    }
    if (lr.next(true)) lr.fail(fmt::format("unexpected data after the {} declared values", dense));
    std::stable_sort(e.begin(), e.end(), [](const Entry<T>& a, const Entry<T>& b) {
      return a.r != b.r ? a.r < b.r : a.c < b.c;
    });
    std::size_t k = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      for (; k < e.size() && e[k].r == r; ++k) m.push(e[k].c, e[k].v);
      m.end_row();
    }
  }
  m.validate();
  return m;
}

template <class T>
SparseRows<T> read_matrix_market_file(const std::string& path, const MatrixMarketLimits& limits,
                                      const MemoryBudget& budget) {
  Input in = open_input(path);
  return read_matrix_market<T>(*in.stream, in.name, limits, budget);
}

namespace {
// Shortest text that reads back to the same fp32 (fmt's default is round-trip exact).
std::string format_value(float f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
  return fmt::format("{}", f);
}
}  // namespace

template <class T>
void write_matrix_market(std::ostream& out, const SparseRows<T>& m) {
  m.validate();
  constexpr bool kInt = std::is_same_v<T, std::int8_t>;
  out << "%%MatrixMarket matrix coordinate " << (kInt ? "integer" : "real") << " general\n";
  out << "% written by warpsparse; value type " << to_string(ValueTypeOf<T>::value) << "\n";
  out << m.rows << ' ' << m.cols << ' ' << m.nnz() << '\n';
  std::string buf;
  for (std::int64_t r = 0; r < m.rows; ++r)
    for (std::int64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) {
      buf.clear();
      if constexpr (kInt) fmt::format_to(std::back_inserter(buf), "{} {} {}\n", r + 1, m.col[k] + 1, int(m.val[k]));
      else fmt::format_to(std::back_inserter(buf), "{} {} {}\n", r + 1, m.col[k] + 1, format_value(to_float(m.val[k])));
      out << buf;
    }
}

template <class T>
void write_matrix_market_file(const std::string& path, const SparseRows<T>& m) {
  OutputFile f(path);
  write_matrix_market(f.stream(), m);
  f.commit();
}

#define WS_INSTANTIATE(T)                                                                                   \
  template SparseRows<T> read_matrix_market<T>(std::istream&, const std::string&, const MatrixMarketLimits&,      \
                                               const MemoryBudget&);                                             \
  template SparseRows<T> read_matrix_market_file<T>(const std::string&, const MatrixMarketLimits&,               \
                                                    const MemoryBudget&);                                        \
  template void write_matrix_market<T>(std::ostream&, const SparseRows<T>&);                                 \
  template void write_matrix_market_file<T>(const std::string&, const SparseRows<T>&);
WS_INSTANTIATE(half)
WS_INSTANTIATE(bfloat16)
WS_INSTANTIATE(float)
WS_INSTANTIATE(std::int8_t)
#undef WS_INSTANTIATE

}  // namespace warpsparse::io
