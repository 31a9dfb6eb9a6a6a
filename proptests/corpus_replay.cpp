// Replays every saved case of proptests/corpus/index.json: round trip, MACKO model under each
// listed schedule (x lane elements x row splits 1/2/8) and both CSR variants against the oracle, MACKO file round trip.
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "proptests/spmv_cases.hpp"
#include "reference/io/macko_file.hpp"
#include "reference/io/matrix_market.hpp"

using namespace warpsparse;
using namespace warpsparse::proptest;

namespace {

template <class T>
void replay(const nlohmann::json& c, const std::string& path) {
  const SparseRows<T> m = io::read_matrix_market_file<T>(path);
  const SparseRows<T> nz = m.without_zeros();
  const float alpha = c.at("alpha").get<float>(), beta = c.at("beta").get<float>();
  const auto seed = c.at("seed").get<std::uint64_t>();
  for (const int db : c.at("delta_bits").get<std::vector<int>>()) {
    MackoParams p;
    p.delta_bits = db;
    const Macko<T> a = encode_macko(m, p);
    const SparseRows<T> back = decode_macko(a);
    CHECK(back.row_ptr == nz.row_ptr);
    CHECK(back.col == nz.col);
    CHECK((nz.val.empty() || std::memcmp(back.val.data(), nz.val.data(), nz.val.size() * sizeof(T)) == 0));
    const auto reread = std::get<Macko<T>>(io::parse_macko(io::serialize_macko(a), path + " (re-read)"));
    CHECK(reread.deltas == a.deltas);
    for (const int acc : c.at("lane_accumulators").get<std::vector<int>>())
      for (const int e : db == 4 ? std::vector<int>{8, 4, 2} : std::vector<int>{8})
        for (const auto& [splits, lanes] : {std::pair{1, 32}, std::pair{2, 32}, std::pair{8, 32}, std::pair{1, 16}}) {
          macko::Schedule s;
          s.lane_accumulators = acc;
          s.lane_elems = e;
          s.row_splits = splits;
          s.row_lanes = lanes;
          s.warps_per_block = 8;
          INFO("delta bits " << db << ", lane accumulators " << acc << ", lane elements " << e << ", row splits "
                             << splits << ", row lanes " << lanes);
          CHECK(macko_case<T, float>(m, s, alpha, beta, seed, p) == "");
          CHECK(macko_case<T, half>(m, s, alpha, beta, seed, p) == "");
        }
  }
  CHECK(csr_case<T, float>(m, false, alpha, beta, seed) == "");
  if (m.cols <= 65536) CHECK(csr_case<T, float>(m, true, alpha, beta, seed) == "");
  else CHECK_THROWS_WITH((encode_csr<T, std::uint16_t>(m)), Catch::Contains("CSR16 needs cols <= 65536"));
}

}  // namespace

TEST_CASE("corpus: every saved case replays cleanly") {
  std::ifstream f(std::string(WS_CORPUS_DIR) + "/index.json");
  REQUIRE(f);
  const auto index = nlohmann::json::parse(f);
  REQUIRE(index.at("cases").size() >= 1);
  for (const auto& c : index.at("cases")) {
    const std::string file = c.at("file").get<std::string>();
    const std::string vt = c.at("value_type").get<std::string>();
    current_property() = "corpus " + file + " " + vt;
    SECTION(file + " as " + vt) {
      INFO(c.at("why").get<std::string>());
      dispatch_value_type(parse_value_type(vt), [&](auto tag) { replay<decltype(tag)>(c, std::string(WS_CORPUS_DIR) + "/" + file); });
    }
  }
}
