// The structured families (row_blocked, row_blocked_permuted, column_clustered, shifted_copies,
// zero_overlap) have the structure they promise and the density they promise.
//   * structure is checked exactly: shared masks within a group, rotations, disjoint covers;
//   * densities are checked on the independent unit of each family (a group for the blocked
//     families, a row for the others, the single base mask for shifted_copies) against a 99.9%
//     interval, as generator_densities does. Seeds are fixed.
#include <catch2/catch.hpp>
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <map>
#include <set>

#include "analysis/patterns.hpp"

using namespace warpsparse;
using namespace warpsparse::analysis;

namespace {

using Row = std::vector<std::int32_t>;

const std::initializer_list<Pattern> kStructured = {Pattern::row_blocked, Pattern::row_blocked_permuted,
                                                    Pattern::column_clustered, Pattern::shifted_copies,
                                                    Pattern::zero_overlap};

// Half-width of the 99.9% t interval of the mean of xs.
struct MeanCi {
  double mean, half, var;
};
MeanCi mean_ci(const std::vector<double>& xs) {
  const double n = double(xs.size());
  double s = 0, s2 = 0;
  for (const double x : xs) {
    s += x;
    s2 += x * x;
  }
  const double mean = s / n, var = (s2 - s * mean) / (n - 1);
  const boost::math::students_t t(n - 1);
  return {mean, boost::math::quantile(boost::math::complement(t, 0.0005)) * std::sqrt(var / n), var};
}

const double kZ = boost::math::quantile(boost::math::complement(boost::math::normal(), 0.0005));  // 3.29

// The rows [0, rows) grouped by identical column sets: set -> its rows.
std::map<Row, std::vector<std::int64_t>> rows_by_set(const PatternSpec& spec, std::int64_t rows, std::int64_t cols,
                                                      std::uint64_t seed) {
  std::map<Row, std::vector<std::int64_t>> m;
  for (std::int64_t r = 0; r < rows; ++r) m[pattern_row(spec, cols, seed, r)].push_back(r);
  return m;
}

Row rotate(const Row& a, std::int64_t s, std::int64_t cols) {
  Row out;
  for (const auto c : a) out.push_back(static_cast<std::int32_t>((c + s) % cols));
  std::sort(out.begin(), out.end());
  return out;
}

std::int64_t zero_overlap_k(double d) { return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(1.0 / d + 1e-9))); }

}  // namespace

TEST_CASE("structured families are registered and parse by name", "[patterns]") {
  const auto all = all_patterns();
  for (const Pattern p : kStructured) {
    CHECK(std::count(all.begin(), all.end(), p) == 1);
    CHECK(parse_pattern(to_string(p)) == p);
  }
  CHECK(parse_pattern("row_blocked_permuted") == Pattern::row_blocked_permuted);
  CHECK_THROWS(pattern_row({Pattern::row_blocked, 0.3, 2.5}, 10, 1, 0));       // fractional group size
  CHECK_THROWS(pattern_row({Pattern::column_clustered, 0.3, 1.5}, 10, 1, 0));  // hot share above 1
}

TEST_CASE("each family's parameter range is checked in one place, naming the caller's option", "[patterns]") {
  // The edges of each range generate; just past them, the error names the option and the family.
  for (const PatternSpec ok :
       {PatternSpec{Pattern::magnitude_row, 0.3, 2.0}, PatternSpec{Pattern::row_blocked, 0.3, 1.0},
        PatternSpec{Pattern::row_blocked, 0.3, double(1 << 20)},
        PatternSpec{Pattern::column_clustered, 0.3, 1.0}, PatternSpec{Pattern::clustered, 0.3, 0.0}})
    CHECK_NOTHROW(pattern_row(ok, 64, 1, 3));
  CHECK_THROWS_WITH(require_param({Pattern::magnitude_heavy, 0.3, 2.5}, "--param"),
                    Catch::Contains("--param: the magnitude_heavy pattern's parameter, the log-sd"));
  CHECK_THROWS_WITH(require_param({Pattern::row_blocked_permuted, 0.3, double(1 << 21)}, "--param"),
                    Catch::Contains("--param: the row_blocked_permuted pattern's parameter, the group size"));
  CHECK_THROWS_WITH(pattern_row({Pattern::column_clustered, 0.3, 1.5}, 10, 1, 0),
                    Catch::Contains("param: the column_clustered pattern's parameter, the hot share"));
  CHECK_THROWS_WITH(pattern_row({Pattern::bernoulli, 0.3, 7.0}, 10, 1, 0),
                    Catch::Contains("param: the bernoulli pattern has no parameter, got 7"));
  CHECK_THROWS_WITH(pattern_row({Pattern::row_varying, 0.3, -1.0}, 10, 1, 0),
                    Catch::Contains("finite and >= 0"));
  CHECK_THROWS_WITH(pattern_row({Pattern::bernoulli, 0.3, std::nan("")}, 10, 1, 0),
                    Catch::Contains("got nan"));
}

TEST_CASE("every family gives sorted, in-range rows, pure in (spec, cols, seed, row)", "[patterns]") {
  for (const Pattern p : all_patterns()) {
    for (const double d : {0.0, 0.1, 0.5, 1.0}) {
      for (const std::int64_t C : {0, 1, 2, 37, 300}) {
        const PatternSpec spec{p, d, 0.0};
        INFO(to_string(p) << " d = " << d << " cols = " << C);
        // Rows generated in a chunk, then one by one in reverse order, then through generate_rows.
        std::vector<Row> fwd;
        for (std::int64_t r = 0; r < 70; ++r) fwd.push_back(pattern_row(spec, C, 17, r));
        for (std::int64_t r = 69; r >= 0; --r) REQUIRE(pattern_row(spec, C, 17, r) == fwd[r]);
        const auto m = generate_rows<float>(spec, 20, 70, C, 17);
        m.validate();
        for (std::int64_t r = 20; r < 70; ++r) {
          const auto& row = fwd[r];
          REQUIRE(Row(m.col.begin() + m.row_ptr[r - 20], m.col.begin() + m.row_ptr[r - 19]) == row);
          for (std::size_t i = 0; i < row.size(); ++i) {
            REQUIRE(row[i] >= 0);
            REQUIRE(row[i] < C);
            if (i > 0) REQUIRE(row[i] > row[i - 1]);
          }
        }
        // Density 0 and 1 are exact for every family with a density (N:M ignores it).
        if (p != Pattern::nm_2_4 && p != Pattern::nm_4_8 && (d == 0.0 || d == 1.0))
          for (const auto& row : fwd) REQUIRE(static_cast<double>(row.size()) == d * double(C));
      }
    }
  }
}

TEST_CASE("structured families have their promised mean density", "[patterns][statistical]") {
  const std::int64_t C = 2000;
  for (const double d : {0.1, 0.3, 0.5}) {
    INFO("d = " << d);
    {  // row_blocked: i.i.d. Bernoulli(d) group masks; one density per group.
      const std::int64_t g = 8, groups = 300;
      std::vector<double> xs;
      for (std::int64_t k = 0; k < groups; ++k)
        xs.push_back(double(pattern_row({Pattern::row_blocked, d, 0.0}, C, 21, g * k).size()) / double(C));
      const auto ci = mean_ci(xs);
      INFO("row_blocked: mean group density " << ci.mean << " ± " << ci.half);
      CHECK(std::abs(ci.mean - d) <= ci.half);
    }
    {  // row_blocked_permuted: the same, over the distinct group masks of whole windows.
      const auto sets = rows_by_set({Pattern::row_blocked_permuted, d, 0.0}, 64 * 40, C, 22);
      std::vector<double> xs;
      for (const auto& [set, rows] : sets) xs.push_back(double(set.size()) / double(C));
      REQUIRE(xs.size() == 8 * 40);
      const auto ci = mean_ci(xs);
      INFO("row_blocked_permuted: mean group density " << ci.mean << " ± " << ci.half);
      CHECK(std::abs(ci.mean - d) <= ci.half);
    }
    {  // column_clustered: rows are i.i.d. given the column table, with mean exactly d.
      std::vector<double> xs;
      for (std::int64_t r = 0; r < 600; ++r)
        xs.push_back(double(pattern_row({Pattern::column_clustered, d, 0.0}, C, 23, r).size()) / double(C));
      const auto ci = mean_ci(xs);
      INFO("column_clustered: mean row density " << ci.mean << " ± " << ci.half);
      CHECK(std::abs(ci.mean - d) <= ci.half);
      CHECK(ci.var > 0);
    }
    {  // shifted_copies: a single Bernoulli(d) base mask, so its count is Binomial(C, d).
      const double n = double(pattern_row({Pattern::shifted_copies, d, 0.0}, C, 24, 0).size());
      INFO("shifted_copies: " << n << " of " << C);
      CHECK(std::abs(n - d * C) <= kZ * std::sqrt(C * d * (1 - d)));
    }
    {  // zero_overlap: density 1/k, k = floor(1/d); one row per group (a different member each
       // time), so the sample is independent.
      const std::int64_t k = zero_overlap_k(d);
      std::vector<double> xs;
      for (std::int64_t j = 0; j < 400; ++j)
        xs.push_back(double(pattern_row({Pattern::zero_overlap, d, 0.0}, C, 25, j * k + j % k).size()) / double(C));
      const auto ci = mean_ci(xs);
      INFO("zero_overlap: k = " << k << ", mean row density " << ci.mean << " ± " << ci.half);
      CHECK(std::abs(ci.mean - 1.0 / double(k)) <= ci.half);
    }
  }
}

TEST_CASE("row_blocked: a group's rows share one mask, groups differ", "[patterns]") {
  const std::int64_t C = 500;
  for (const double d : {0.1, 0.3, 0.5}) {
    for (const double param : {0.0, 1.0, 3.0, 8.0}) {
      const std::int64_t g = param > 0 ? static_cast<std::int64_t>(param) : 8;
      const std::int64_t rows = 10 * g + g / 2;  // a last group cut short
      INFO("d = " << d << " g = " << g);
      std::vector<Row> rs;
      for (std::int64_t r = 0; r < rows; ++r) rs.push_back(pattern_row({Pattern::row_blocked, d, param}, C, 31, r));
      for (std::int64_t r = 0; r < rows; ++r) {
        if (r % g != 0) REQUIRE(rs[r] == rs[r - 1]);          // same group: same columns
        else if (r > 0) REQUIRE(rs[r] != rs[r - 1]);          // next group: another draw
      }
      // The group structure is all there is: the matrix has exactly ceil(rows / g) distinct rows.
      CHECK(std::set<Row>(rs.begin(), rs.end()).size() == static_cast<std::size_t>((rows + g - 1) / g));
    }
  }
  // Values are drawn per row, not per group.
  const auto m = generate<float>({Pattern::row_blocked, 0.5, 0.0}, 2, C, 31);
  const std::int64_t n = m.row_ptr[1];
  REQUIRE(n > 0);
  REQUIRE(m.row_ptr[2] == 2 * n);
  CHECK(!std::equal(m.val.begin(), m.val.begin() + n, m.val.begin() + n));
}

TEST_CASE("row_blocked_permuted: the same masks, groups scattered within 8g-row windows", "[patterns]") {
  const std::int64_t C = 500;
  for (const double d : {0.1, 0.3, 0.5}) {
    for (const double param : {0.0, 2.0, 3.0}) {
      const std::int64_t g = param > 0 ? static_cast<std::int64_t>(param) : 8, w = 8 * g, rows = 5 * w;
      INFO("d = " << d << " g = " << g);
      const auto perm = rows_by_set({Pattern::row_blocked_permuted, d, param}, rows, C, 32);
      const auto plain = rows_by_set({Pattern::row_blocked, d, param}, rows, C, 32);
      // The same group masks as row_blocked, each on g rows of one window.
      REQUIRE(perm.size() == static_cast<std::size_t>(rows / g));
      int consecutive = 0;
      for (const auto& [set, members] : perm) {
        REQUIRE(plain.count(set) == 1);
        REQUIRE(members.size() == static_cast<std::size_t>(g));
        REQUIRE(members.front() / w == members.back() / w);
        // The g-th group of the window holds the same mask as row_blocked's, in the same window.
        REQUIRE(plain.at(set).front() / w == members.front() / w);
        if (members.back() - members.front() == g - 1) ++consecutive;
      }
      // A uniform permutation of 8g rows leaves a group's g members adjacent with probability
      // about (8g − g + 1)·g!·(7g)!/(8g)!: a few groups at most, never all of them.
      INFO(consecutive << " of " << perm.size() << " groups are runs of consecutive rows");
      CHECK(consecutive * 4 < static_cast<int>(perm.size()));
    }
  }
}

TEST_CASE("shifted_copies: every row is a rotation of one base mask", "[patterns]") {
  const std::int64_t C = 400;
  for (const double d : {0.1, 0.3, 0.5}) {
    INFO("d = " << d);
    const Row r0 = pattern_row({Pattern::shifted_copies, d, 0.0}, C, 41, 0);
    REQUIRE(!r0.empty());
    std::set<std::int64_t> shifts;
    for (std::int64_t r = 1; r < 60; ++r) {
      const Row row = pattern_row({Pattern::shifted_copies, d, 0.0}, C, 41, r);
      REQUIRE(row.size() == r0.size());
      // Candidate shifts carry r0's first column onto some column of the row.
      std::int64_t found = -1;
      for (const auto c : row) {
        const std::int64_t s = ((c - r0[0]) % C + C) % C;
        if (rotate(r0, s, C) == row) {
          found = s;
          break;
        }
      }
      REQUIRE(found >= 0);
      shifts.insert(found);
    }
    // Shifts are uniform on [1, C) per row: 59 rows on 399 values repeat rarely.
    CHECK(shifts.size() > 45);
  }
  // Other seeds, other base masks.
  CHECK(pattern_row({Pattern::shifted_copies, 0.3, 0.0}, C, 42, 0).size() != 0);
  CHECK(rows_by_set({Pattern::shifted_copies, 0.3, 0.0}, 1, C, 42).begin()->first !=
        rows_by_set({Pattern::shifted_copies, 0.3, 0.0}, 1, C, 41).begin()->first);
}

TEST_CASE("zero_overlap: a group's rows are disjoint and cover every column", "[patterns]") {
  const std::int64_t C = 999;
  for (const double d : {0.1, 0.25, 0.3, 0.5, 0.7}) {
    const std::int64_t k = zero_overlap_k(d);
    INFO("d = " << d << " k = " << k);
    REQUIRE(k == (d == 0.1 ? 10 : d == 0.25 ? 4 : d == 0.3 ? 3 : d == 0.5 ? 2 : 1));
    for (std::int64_t grp = 0; grp < 6; ++grp) {
      std::vector<int> owners(C, 0);
      for (std::int64_t i = 0; i < k; ++i) {
        const Row row = pattern_row({Pattern::zero_overlap, d, 0.0}, C, 51, grp * k + i);
        if (k > 1) REQUIRE(row.size() < static_cast<std::size_t>(C));
        for (const auto c : row) ++owners[c];
      }
      for (std::int64_t c = 0; c < C; ++c) REQUIRE(owners[c] == 1);  // exactly one row each
    }
    if (k > 1) {  // consecutive groups draw their owners independently
      CHECK(pattern_row({Pattern::zero_overlap, d, 0.0}, C, 51, 0) != pattern_row({Pattern::zero_overlap, d, 0.0}, C, 51, k));
    }
  }
}

TEST_CASE("column_clustered: hot columns hold p_hot, cold ones the rest", "[patterns][statistical]") {
  // Over R rows, a column's occupancy is Binomial(R, p) with p = p_hot or p_cold: the two classes
  // are far apart (≥ 10 sd), so the hot columns can be read off the occupancy and each class's
  // mean compared with its probability.
  const std::int64_t R = 2000, C = 3000;
  for (const auto& [d, h] : {std::pair{0.1, 0.0}, std::pair{0.3, 0.0}, std::pair{0.5, 0.0}, std::pair{0.1, 0.2},
                             std::pair{0.1, 0.5}}) {
    const double h_exp = h > 0 ? h : 0.1;
    INFO("d = " << d << " h = " << h_exp);
    std::vector<int> occ(C, 0);
    for (std::int64_t r = 0; r < R; ++r)
      for (const auto c : pattern_row({Pattern::column_clustered, d, h}, C, 61, r)) ++occ[c];
    const double p_hot_nominal = std::min(1.0, 3 * d);
    // Split at the midpoint of the nominal p_hot and the smallest p_cold can be.
    const double split = 0.5 * R * (p_hot_nominal + std::max(0.0, (d - h_exp * p_hot_nominal) / (1 - h_exp)));
    double hot_sum = 0, cold_sum = 0;
    std::int64_t n_hot = 0;
    for (const int o : occ) {
      if (o > split) { hot_sum += o; ++n_hot; }
      else cold_sum += o;
    }
    const double hh = double(n_hot) / double(C);
    INFO("hot columns " << n_hot << " (" << hh << ")");
    CHECK(std::abs(double(n_hot) - h_exp * C) <= kZ * std::sqrt(C * h_exp * (1 - h_exp)));
    double p_hot = p_hot_nominal;
    if (hh * p_hot > d) p_hot = d / hh;  // the hot share too large for min(1, 3d) to keep the mean
    const double p_cold = std::max(0.0, (d - hh * p_hot) / (1 - hh));
    const double hot_mean = hot_sum / (double(n_hot) * R), cold_mean = cold_sum / (double(C - n_hot) * R);
    INFO("hot occupancy " << hot_mean << " vs " << p_hot << ", cold " << cold_mean << " vs " << p_cold);
    CHECK(std::abs(hot_mean - p_hot) <= kZ * std::sqrt(p_hot * (1 - p_hot) / (double(n_hot) * R)) + 1e-12);
    CHECK(std::abs(cold_mean - p_cold) <= kZ * std::sqrt(p_cold * (1 - p_cold) / (double(C - n_hot) * R)) + 1e-12);
    CHECK(hot_mean > 2 * cold_mean);  // the point of the family
  }
}
