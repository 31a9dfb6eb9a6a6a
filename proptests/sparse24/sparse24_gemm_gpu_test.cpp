// GPU test of the 2:4 mma.sp GEMM (label gpu; exits 77 without a usable device).
//
//   1. probe: one mma.sp::ordered_metadata m16n8k32 per case on the hardware, operands packed with the
//      fragment tables of reference/warp/mma_sp.hpp, for every ordered index pair at every row and
//      group, both selectors, bf16 and fp16; integer data, so hardware and model must agree exactly.
//   2. gemm: the kernel against the double oracle within the derived bound
//      (reference/sparse24/sparse24_gemm_model.hpp: ErrorBound) on fresh random data over fixed and
//      random ragged shapes, every mma.sp tile of kTiles, bf16/fp16 in, fp32 / 16-bit out. C is poisoned
//      (NaN) first; the columns between N and ldc must stay poisoned; B's columns between N and ldb hold NaN.
//   3. --perf: TFLOP/s (2MNK / median time, bf16 -> bf16) at 4096³ and 8192³ for every tile.
//   4. on an sm_90 device: the wgmma.sp tiles of kTiles on the same checks (--no-hopper skips them);
//      their results are reported in their own summary line.
//   5. on an sm_90 device: split-K launches on two streams at once and replayed from a CUDA graph,
//      bit for bit equal to the same launches run alone.
// Options: --seed S (replay), --quick (fewer shapes), --perf, --no-hopper, --tile NAME (only the
// tile of that name, or else the tiles whose name contains NAME, in the checks and in --perf),
// --list-tiles (the names, one a line, no device needed: scripts/device_run.sh sanitizes each
// tile in a process of its own), --streams-only (section 5 alone: what compute-sanitizer runs
// over the scratch memory's stream order).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/sparse24/sparse24_gemm.hpp"
#include "proptests/stream_safety.hpp"
#include "reference/sparse24/sparse24_gemm_model.hpp"
#include "reference/warp/mma_sp.hpp"

namespace ws = warpsparse;
namespace s24 = warpsparse::sparse24;
namespace wp = warpsparse::warp;
using ws::gpu::DeviceBuffer;

namespace {

// ---------------------------------------------------------------------------------------------
// 1. Fragment probe
template <class T>
std::uint32_t bits_i(int v) {
  return ws::bits_of(ws::from_float<T>(static_cast<float>(v)));
}

// Alternative readings of the metadata figure, tried only when the hardware disagrees with the
// model, so that a failure says which reading the GPU follows. Each maps (lane, nibble) to
// (row, group) of the 16 × 32 tile for the lanes selected by the selector.
struct MetaHypothesis {
  const char* name;
  wp::MetaField (*field)(int lane, int nibble);
};
const MetaHypothesis kHypotheses[] = {
    {"model: pair thread p holds K 16p..16p+15, low half row g, high half row g+8", wp::mma_sp_meta_field},
    {"halves swapped: low half row g+8, high half row g",
     [](int l, int n) { return wp::MetaField{(l >> 2) + 8 * (1 - (n >> 2)), 4 * (l & 1) + (n & 3)}; }},
    {"pair thread p holds all 32 K of row g+8p",
     [](int l, int n) { return wp::MetaField{(l >> 2) + 8 * (l & 1), n}; }},
    {"pair order swapped: thread p holds K 16(1-p)..",
     [](int l, int n) { return wp::MetaField{(l >> 2) + 8 * (n >> 2), 4 * (1 - (l & 1)) + (n & 3)}; }},
};

// D under a metadata hypothesis, from the A/B/C tiles of the model's (verified) fragment maps.
std::array<std::array<double, 8>, 16> d_under(const MetaHypothesis& h, const int (&a)[16][16], const int (&b)[32][8],
                                              const int (&c)[16][8], const wp::Lanes<std::uint32_t>& e, int sel) {
  int nib[16][8] = {};
  for (int l = 0; l < 32; ++l)
    if (wp::mma_sp_meta_lane(l, sel))
      for (int n = 0; n < 8; ++n) {
        const auto f = h.field(l, n);
        nib[f.row][f.group] = static_cast<int>((e[static_cast<std::size_t>(l)] >> (4 * n)) & 0xfu);
      }
  std::array<std::array<double, 8>, 16> d{};
  for (int r = 0; r < 16; ++r)
    for (int j = 0; j < 8; ++j) {
      double s = c[r][j];
      for (int grp = 0; grp < 8; ++grp) {
        s += static_cast<double>(a[r][2 * grp]) * b[4 * grp + (nib[r][grp] & 3)][j];
        s += static_cast<double>(a[r][2 * grp + 1]) * b[4 * grp + (nib[r][grp] >> 2)][j];
      }
      d[static_cast<std::size_t>(r)][static_cast<std::size_t>(j)] = s;
    }
  return d;
}

template <class T>
int probe_section(std::mt19937& rng) {
  constexpr bool kBf16 = std::is_same_v<T, ws::bfloat16>;
  const char* name = kBf16 ? "bf16" : "fp16";
  const std::uint32_t kValid[6] = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE};
  std::uniform_int_distribution<int> val(-7, 7), pick(0, 5);
  DeviceBuffer<std::uint32_t> da(128), db(128), de(32);
  DeviceBuffer<float> dc(128), dd(128);
  int cases = 0;
  for (int sel = 0; sel < 2; ++sel)
    for (std::uint32_t nibble : kValid)
      for (int row = 0; row < 16; ++row)
        for (int group = 0; group < 8; ++group) {
          int a[16][16], b[32][8], c[16][8];
          std::uint32_t nib[16][8];
          for (auto& r : a) for (auto& v : r) v = val(rng);
          for (auto& r : b) for (auto& v : r) v = val(rng);
          for (auto& r : c) for (auto& v : r) v = 16 * val(rng);
          for (auto& r : nib) for (auto& v : r) v = kValid[pick(rng)];
          nib[row][group] = nibble;
          wp::Lanes<wp::MmaReg4> la{}, lb{};
          wp::Lanes<wp::MmaAcc4> lc{};
          wp::Lanes<std::uint32_t> le{};
          for (int l = 0; l < 32; ++l) {
            const auto L = static_cast<std::size_t>(l);
            for (int i = 0; i < 8; ++i) {
              const auto ac = wp::mma_sp_a_coord(l, i);
              la[L][static_cast<std::size_t>(i / 2)] |= bits_i<T>(a[ac.row][ac.col]) << (16 * (i % 2));
              const auto bc = wp::mma_sp_b_coord(l, i);
              lb[L][static_cast<std::size_t>(i / 2)] |= bits_i<T>(b[bc.row][bc.col]) << (16 * (i % 2));
            }
            for (int i = 0; i < 4; ++i) {
              const auto cc = wp::mma_sp_cd_coord(l, i);
              lc[L][static_cast<std::size_t>(i)] = static_cast<float>(c[cc.row][cc.col]);
            }
            std::uint32_t w = 0;
            for (int n = 0; n < 8; ++n) {
              // Lanes of the other pair get different valid metadata: the hardware must ignore it.
              const auto f = wp::mma_sp_meta_field(l, n);
              w |= (wp::mma_sp_meta_lane(l, sel) ? nib[f.row][f.group] : kValid[pick(rng)]) << (4 * n);
            }
            le[L] = w;
          }
          const auto want = wp::mma_sp_m16n8k32(la, lb, lc, le, sel, kBf16);
          std::vector<std::uint32_t> ha(128), hb(128), he(32);
          std::vector<float> hc(128);
          for (int l = 0; l < 32; ++l)
            for (int i = 0; i < 4; ++i) {
              ha[static_cast<std::size_t>(4 * l + i)] = la[static_cast<std::size_t>(l)][static_cast<std::size_t>(i)];
              hb[static_cast<std::size_t>(4 * l + i)] = lb[static_cast<std::size_t>(l)][static_cast<std::size_t>(i)];
              hc[static_cast<std::size_t>(4 * l + i)] = lc[static_cast<std::size_t>(l)][static_cast<std::size_t>(i)];
            }
          for (int l = 0; l < 32; ++l) he[static_cast<std::size_t>(l)] = le[static_cast<std::size_t>(l)];
          da.upload(ha);
          db.upload(hb);
          dc.upload(hc);
          de.upload(he);
          s24::gpu::probe_mma_sp(da.get(), db.get(), dc.get(), de.get(), sel,
                                 kBf16 ? s24::gpu::Elem::kBf16 : s24::gpu::Elem::kFp16, dd.get());
          const auto got = dd.download();
          ++cases;
          for (int l = 0; l < 32; ++l)
            for (int i = 0; i < 4; ++i) {
              const float g = got[static_cast<std::size_t>(4 * l + i)];
              const float m = want[static_cast<std::size_t>(l)][static_cast<std::size_t>(i)];
              if (g != m) {
                const auto cc = wp::mma_sp_cd_coord(l, i);
                std::printf("FAIL probe %s selector=%d nibble=0x%X at row %d group %d: lane %d d%d (D row %d col %d) "
                            "hardware %.1f, model %.1f -> the fragment/metadata tables of "
                            "reference/warp/mma_sp.hpp disagree with this GPU\n",
                            name, sel, nibble, row, group, l, i, cc.row, cc.col, static_cast<double>(g),
                            static_cast<double>(m));
                for (const MetaHypothesis& h : kHypotheses) {
                  const auto dh = d_under(h, a, b, c, le, sel);
                  bool match = true;
                  for (int l2 = 0; l2 < 32; ++l2)
                    for (int i2 = 0; i2 < 4; ++i2) {
                      const auto c2 = wp::mma_sp_cd_coord(l2, i2);
                      match &= dh[static_cast<std::size_t>(c2.row)][static_cast<std::size_t>(c2.col)] ==
                               static_cast<double>(got[static_cast<std::size_t>(4 * l2 + i2)]);
                    }
                  std::printf("  metadata hypothesis \"%s\": %s\n", h.name, match ? "MATCHES the hardware" : "no");
                }
                return 1;
              }
            }
        }
  std::printf("PASS probe %s: %d mma.sp cases (2 selectors x 6 index pairs x 16 rows x 8 groups) match the model exactly\n",
              name, cases);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// 2. GEMM vs oracle
struct Shape {
  int m, n, k;
  int ldb_extra = 0;  // ldb = round_up(n, 8) + 8 * ldb_extra
  int ldc_extra = 0;  // ldc = n + ldc_extra
};

template <class T>
std::vector<T> random_values(std::size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<T> v(count);
  for (auto& x : v) x = ws::from_float<T>(u(rng));
  return v;
}

template <class T, class TOut>
int gemm_case(const Shape& sh, s24::gpu::Tile tile, std::mt19937& rng) {
  const int m = sh.m, n = sh.n, k = sh.k;
  const int ldb = static_cast<int>(warpsparse::round_up(n, 8)) + 8 * sh.ldb_extra;
  const int ldc = n + sh.ldc_extra;
  const auto dense = s24::prune_2of4<T>(random_values<T>(static_cast<std::size_t>(m) * k, rng), m, k);
  const auto sa = s24::compress<T>(dense, m, k);
  std::vector<T> hb(static_cast<std::size_t>(k) * ldb);
  {
    const auto vals = random_values<T>(hb.size(), rng);
    for (int r = 0; r < k; ++r)
      for (int j = 0; j < ldb; ++j) {
        const std::size_t at = static_cast<std::size_t>(r) * ldb + j;
        hb[at] = j < n ? vals[at] : ws::from_float<T>(NAN);  // never read into a stored column
      }
  }
  const auto da = s24::gpu::upload(sa);
  DeviceBuffer<T> db(hb);
  DeviceBuffer<TOut> dc(static_cast<std::size_t>(m) * ldc);
  WS_CUDA(cudaMemset(dc.get(), 0xff, dc.bytes()));  // NaN in fp32, bf16 and fp16
  s24::gpu::gemm(da, db.get(), n, ldb, dc.get(), ldc, nullptr, tile);
  WS_CUDA(cudaDeviceSynchronize());
  const auto hc = dc.download();

  // Oracle on all rows, or on a sample of rows (tile edges included) when the product is large.
  std::vector<int> rows;
  const double work = static_cast<double>(m) * n * k;
  if (work <= 5e8) {
    for (int i = 0; i < m; ++i) rows.push_back(i);
  } else {
    for (int i : {0, 1, 63, 64, 127, 128, m / 2, m - 2, m - 1})
      if (i >= 0 && i < m) rows.push_back(i);
    std::uniform_int_distribution<int> pick(0, m - 1);
    while (rows.size() < 48) rows.push_back(pick(rng));
  }
  const ws::ValueType out_t = ws::ValueTypeOf<TOut>::value;
  int violations = 0, poison_broken = 0;
  double worst = 0.0;
  std::string first;
  std::vector<double> bd(static_cast<std::size_t>(k) * n);
  for (int r = 0; r < k; ++r)
    for (int j = 0; j < n; ++j)
      bd[static_cast<std::size_t>(r) * n + j] = ws::to_float(hb[static_cast<std::size_t>(r) * ldb + j]);
  std::vector<double> exact(static_cast<std::size_t>(n)), absd(static_cast<std::size_t>(n));
  for (int i : rows) {
    std::fill(exact.begin(), exact.end(), 0.0);
    std::fill(absd.begin(), absd.end(), 0.0);
    for (int kk = 0; kk < k; ++kk) {
      const double av = ws::to_float(dense[static_cast<std::size_t>(i) * k + kk]);
      if (av == 0.0) continue;
      const double* brow = bd.data() + static_cast<std::size_t>(kk) * n;
      for (int j = 0; j < n; ++j) {
        exact[static_cast<std::size_t>(j)] += av * brow[j];
        absd[static_cast<std::size_t>(j)] += std::fabs(av * brow[j]);
      }
    }
    for (int j = 0; j < ldc; ++j) {
      const TOut v = hc[static_cast<std::size_t>(i) * ldc + j];
      if (j >= n) {
        unsigned char bytes[sizeof(TOut)];
        std::memcpy(bytes, &v, sizeof(TOut));
        for (unsigned char byte : bytes) poison_broken += byte != 0xff;
        continue;
      }
      const double got = ws::to_float(v);
      const double bound = s24::ErrorBound::bound(exact[static_cast<std::size_t>(j)], absd[static_cast<std::size_t>(j)],
                                                  sa.cols_padded, out_t);
      const double err = std::fabs(got - exact[static_cast<std::size_t>(j)]);
      worst = std::max(worst, std::isnan(err) ? INFINITY : err / bound);
      if (!(err <= bound)) {
        if (violations == 0)
          first = "C[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(got) +
                  ", oracle " + std::to_string(exact[static_cast<std::size_t>(j)]) + ", bound " + std::to_string(bound);
        ++violations;
      }
    }
  }
  const bool ok = violations == 0 && poison_broken == 0;
  std::printf("%s %s->%s tile=%s M=%d N=%d K=%d ldb=%d ldc=%d rows_checked=%zu max_err/bound=%.3g%s%s\n",
              ok ? "PASS" : "FAIL", std::string(ws::to_string(ws::ValueTypeOf<T>::value)).c_str(),
              std::string(ws::to_string(out_t)).c_str(), s24::gpu::to_string(tile).c_str(), m, n, k, ldb, ldc,
              rows.size(), worst, violations ? (" violations=" + std::to_string(violations) + " first: " + first).c_str() : "",
              poison_broken ? (" wrote " + std::to_string(poison_broken) + " bytes between N and ldc").c_str() : "");
  return ok ? 0 : 1;
}

// The built tiles (sparse24_launch.hpp: kTiles), mma.sp or wgmma.sp (the latter on sm_90 only,
// --hopper); kAuto is checked once more through the dispatch with the wgmma.sp tiles.
std::vector<s24::gpu::Tile> tiles_of(bool wgmma) {
  std::vector<s24::gpu::Tile> out;
  for (const auto& t : s24::gpu::kTiles)
    if (t.wgmma == wgmma) out.push_back(t.tile);
  if (wgmma) out.push_back(s24::gpu::Tile::kAuto);
  return out;
}

// --tile NAME keeps the tile named NAME; a NAME that is no tile's whole name keeps the tiles whose
// name contains it (e.g. "pipe", "256x128", "wgmma", "tma-store"), mma.sp and (with --hopper)
// wgmma.sp alike. The whole name matters where one name holds another: the tall tile's is part of
// the tall TMA-store tile's.
std::string g_tile_filter;
std::vector<std::string> tile_names() {
  std::vector<std::string> out;
  for (const bool wgmma : {false, true})
    for (const auto t : tiles_of(wgmma)) out.push_back(s24::gpu::to_string(t));
  return out;
}
bool tile_selected(s24::gpu::Tile t) {
  const std::string name = s24::gpu::to_string(t);
  const auto names = tile_names();
  if (std::find(names.begin(), names.end(), g_tile_filter) != names.end()) return name == g_tile_filter;
  return name.find(g_tile_filter) != std::string::npos;
}

int gemm_shape(const Shape& sh, std::mt19937& rng, bool all_combos) {
  using s24::gpu::Tile;
  int fails = 0;
  int i = 0;
  for (const Tile tile : tiles_of(false)) {
    if (!tile_selected(tile)) continue;
    // Every type pair on small shapes; on large ones one pair per tile, in turn.
    if (all_combos || i % 4 == 0) fails += gemm_case<ws::bfloat16, float>(sh, tile, rng);
    if (all_combos || i % 4 == 1) fails += gemm_case<ws::bfloat16, ws::bfloat16>(sh, tile, rng);
    if (all_combos || i % 4 == 2) fails += gemm_case<ws::half, float>(sh, tile, rng);
    if (all_combos || i % 4 == 3) fails += gemm_case<ws::half, ws::half>(sh, tile, rng);
    ++i;
  }
  return fails;
}

// ---------------------------------------------------------------------------------------------
// 3. Throughput
void perf_section(std::mt19937& rng, bool hopper) {
  using T = ws::bfloat16;
  for (int size : {4096, 8192}) {
    const int m = size, n = size, k = size;
    const auto dense = s24::prune_2of4<T>(random_values<T>(static_cast<std::size_t>(m) * k, rng), m, k);
    const auto da = s24::gpu::upload(s24::compress<T>(dense, m, k));
    DeviceBuffer<T> db(random_values<T>(static_cast<std::size_t>(k) * n, rng));
    DeviceBuffer<T> dc(static_cast<std::size_t>(m) * n);
    std::vector<s24::gpu::Tile> tiles;
    for (auto t : tiles_of(false))
      if (tile_selected(t)) tiles.push_back(t);
    if (hopper)
      for (auto t : tiles_of(true))
        if (tile_selected(t)) tiles.push_back(t);
    for (auto tile : tiles) {
      cudaEvent_t e0, e1;
      WS_CUDA(cudaEventCreate(&e0));
      WS_CUDA(cudaEventCreate(&e1));
      for (int i = 0; i < 3; ++i) s24::gpu::gemm(da, db.get(), n, n, dc.get(), n, nullptr, tile);
      std::vector<float> ms;
      for (int i = 0; i < 15; ++i) {
        WS_CUDA(cudaEventRecord(e0));
        s24::gpu::gemm(da, db.get(), n, n, dc.get(), n, nullptr, tile);
        WS_CUDA(cudaEventRecord(e1));
        WS_CUDA(cudaEventSynchronize(e1));
        float t = 0;
        WS_CUDA(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      const double med = ms[ms.size() / 2];
      std::string resources;
      if (!s24::gpu::is_wgmma(tile)) {
        const auto info = s24::gpu::kernel_info(tile, s24::gpu::Elem::kBf16, s24::gpu::Elem::kBf16);
        resources = " [regs=" + std::to_string(info.registers) + " local=" + std::to_string(info.local_bytes) +
                    "B smem=" + std::to_string(info.smem_bytes / 1024) + "KB threads=" + std::to_string(info.threads) +
                    " ctas/SM=" + std::to_string(info.ctas_per_sm) + "]";
      }
      std::printf("PERF bf16->bf16 tile=%s %dx%dx%d median %.3f ms = %.1f TFLOP/s (2MNK; L2 not flushed)%s\n",
                  s24::gpu::to_string(tile).c_str(), m, n, k, med, 2.0 * m * n * k / (med * 1e-3) / 1e12,
                  resources.c_str());
      WS_CUDA(cudaEventDestroy(e0));
      WS_CUDA(cudaEventDestroy(e1));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 5. Split-K's partials (the launch's own scratch) on two streams at once and from a CUDA graph
// (proptests/stream_safety.hpp), with the tile the dispatch picks.
int stream_section(std::mt19937& rng) {
  using T = ws::bfloat16;
  struct Weight {
    ws::gpu::DeviceBuffer<T> b, c;
    s24::gpu::DeviceMatrix<T> a;
    int m, n, k;
  };
  auto make_job = [&](int m, int n, int k) {
    const auto dense = s24::prune_2of4<T>(random_values<T>(static_cast<std::size_t>(m) * k, rng), m, k);
    auto w = std::make_shared<Weight>();
    w->a = s24::gpu::upload(s24::compress<T>(dense, m, k));
    w->b = DeviceBuffer<T>(random_values<T>(static_cast<std::size_t>(k) * n, rng));
    w->c = DeviceBuffer<T>(static_cast<std::size_t>(m) * n * ws::gpu_props::kStreamSlots);
    w->m = m, w->n = n, w->k = k;
    const std::size_t outs = static_cast<std::size_t>(m) * n;
    return ws::gpu_props::StreamJob{
        std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k),
        [w, outs](cudaStream_t st, int slot) {
          s24::gpu::gemm(w->a, w->b.get(), w->n, w->n, ws::gpu_props::slot_ptr(w->c.get(), outs, slot), w->n, st);
        },
        [w, outs](int slot) { return ws::gpu_props::slot_bytes(w->c.get(), outs, slot); }};
  };
  // Fewer output tiles than SMs: every one is split in K.
  const auto j0 = make_job(1024, 16, 2048), j1 = make_job(2048, 16, 6144), larger = make_job(4096, 32, 8192);
  const std::string fault = ws::gpu_props::check_streams_and_graph(j0, j1, [&](cudaStream_t st) { larger.launch(st, 0); });
  std::printf("%s split-K on two streams and from a CUDA graph%s%s\n", fault.empty() ? "PASS" : "FAIL",
              fault.empty() ? "" : ": ", fault.c_str());
  return fault.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, perf = false, hopper = true, streams_only = false;
  std::uint32_t seed = std::random_device{}();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "--perf") perf = true;
    else if (a == "--no-hopper") hopper = false;
    else if (a == "--streams-only") streams_only = true;
    else if (a == "--seed" && i + 1 < argc) seed = static_cast<std::uint32_t>(std::stoul(argv[++i]));
    else if (a == "--tile" && i + 1 < argc) g_tile_filter = argv[++i];
    else if (a == "--list-tiles") {
      for (const auto& n : tile_names()) std::printf("%s\n", n.c_str());
      return 0;
    } else {
      std::printf(
          "usage: %s [--seed S] [--quick] [--perf] [--no-hopper] [--tile NAME] [--list-tiles] "
          "[--streams-only]\n",
          argv[0]);
      return 2;
    }
  }
  if (!ws::gpu::device_available()) {
    std::printf("SKIP sparse24_gemm_gpu_test: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop{};
  WS_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s (sm_%d%d), seed %u (replay with --seed %u)\n", prop.name, prop.major, prop.minor, seed, seed);
  if (prop.major < 8) {
    std::printf("SKIP sparse24_gemm_gpu_test: mma.sp needs sm_80 or newer\n");
    return 77;
  }
  std::mt19937 rng(seed);
  if (streams_only) {
    if (prop.major != 9) {
      std::printf("SKIP sparse24_gemm_gpu_test --streams-only: split-K is the wgmma.sp kernel's, which needs sm_90\n");
      return 77;
    }
    try {
      const int f = stream_section(rng);
      std::printf("%s: %d failing case(s)\n", f ? "FAILED" : "ALL PASSED", f);
      return f ? 1 : 0;
    } catch (const std::exception& e) {
      std::printf("FAIL exception: %s\n", e.what());
      return 1;
    }
  }
  int fails = 0;
  try {
    fails += probe_section<ws::bfloat16>(rng);
    fails += probe_section<ws::half>(rng);

    std::vector<Shape> shapes = {
        {128, 256, 64},          // exactly one large tile
        {256, 512, 128, 1, 3},   // tile multiples, padded ldb/ldc
        {1, 1, 1},               {1, 8, 4},     {7, 13, 5, 0, 1},   {17, 9, 33},
        {129, 257, 65},          {127, 255, 63, 2, 5},              {300, 200, 100},
        {64, 1000, 2000},        {1000, 24, 512}, {513, 129, 4095, 0, 2},
    };
    if (!quick) {
      shapes.push_back({1024, 1024, 1024});
      shapes.push_back({4096, 4096, 4096});
      shapes.push_back({4096 + 3, 1536 + 5, 2048 + 7, 1, 1});
      std::uniform_real_distribution<double> logu(0.0, std::log(3000.0));
      std::uniform_int_distribution<int> extra(0, 3);
      for (int i = 0; i < 12; ++i)
        shapes.push_back({static_cast<int>(std::exp(logu(rng))), static_cast<int>(std::exp(logu(rng))),
                          static_cast<int>(std::exp(logu(rng))), extra(rng), extra(rng)});
    }
    for (const Shape& sh : shapes) {
      const bool big = static_cast<double>(sh.m) * sh.n * sh.k > 2e9;
      fails += gemm_shape(sh, rng, !big);
    }
    std::printf("mma.sp kernel: %s (%d failing case(s))\n", fails ? "FAILED" : "ALL PASSED", fails);
  } catch (const std::exception& e) {
    std::printf("FAIL exception: %s\n", e.what());
    return 1;
  }
  int hopper_fails = 0;
  if (hopper) {
    if (prop.major != 9) {
      std::printf("SKIP wgmma.sp tiles: they need sm_90\n");
    } else {
      try {
        using s24::gpu::Tile;
        std::vector<Shape> hshapes = {{128, 256, 64}, {256, 512, 256, 1, 3}, {1, 1, 1}, {129, 257, 65},
                                            {300, 200, 100, 0, 1}, {1000, 24, 512}, {2048, 2048, 2048},
                                            // more tiles than SMs: the persistent grid strides
                                            {4096, 2048, 128}, {2200, 4200, 96, 0, 1},
                                            // ldc % 8 == 0: the TMA-store epilogue, clipped at M and N
                                            {2200, 4200, 96}, {1000, 1000, 512, 0, 8},
                                            // 33 blocks of 128 padded rows: the last 256-row tile
                                            // is half padding, after earlier tiles filled its stages
                                            {4224, 1024, 256},
                                            // few tokens: split-K (sparse24::gpu::split_plan), the
                                            // tiles' K tiles shared by up to every SM, the partials
                                            // added by a second kernel; ragged K and ldc
                                            {4096, 16, 4096}, {777, 16, 3000, 0, 2}, {1, 32, 2048},
                                            // the tail kernel's block layouts for tiles of at most
                                            // 64 and 128 columns (16 and 32: above), ragged rows
                                            {1500, 48, 2051, 0, 1}, {900, 100, 3001}};
        // More tiles than SMs, the tiles after the whole rounds shared by groups of CTAs in equal
        // parts: one column, every row checked (4 tail tiles of 32 K tiles, 8 parts each), and
        // 2 columns with ragged K (2 tail rows of 17 K tiles, 4 parts each).
        const int sms = prop.multiProcessorCount;
        hshapes.push_back({256 * (sms + 3) + 77, 8, 2048});
        hshapes.push_back({256 * (sms / 2 + 1) + 5, 200, 1027, 0, 3});
        // 5 columns of tiles (no divisor of 132): the tail is the last tiles in the grid's order,
        // each cut into equal parts.
        hshapes.push_back({256 * ((sms + 10) / 5) - 7, 600, 1000, 0, 1});
        // 4 columns and 130 K tiles: 4 tail rows on sms / 4 groups, stream-K ranges that cross
        // rows, ragged M, N and K (ldc 504: the TMA-store epilogue).
        hshapes.push_back({256 * (sms / 4 + 4) - 100, 504, 8300});
        // 4 columns and 172 K tiles on 132 SMs: ranges across rows would not fit the partials
        // bound, so 16 tail rows in 2 equal parts each (split_plan's fallback).
        hshapes.push_back({4096, 512, 11008});
        for (const Tile t : tiles_of(true))
          for (const Shape& sh : hshapes) {
            if (t == Tile::kAuto) continue;
            const auto& info = s24::gpu::tile_info(t);
            const auto plan = s24::gpu::split_plan(sh.m, sh.n, sh.k, info.rows, info.cols,
                                                   (sh.k + s24::kColAlign - 1) / s24::kColAlign, sms);
            if (plan.split() && tile_selected(t))
              std::printf("split-K %s %d x %d x %d: %lld whole tiles, %d tail units of %d tiles shared by %d groups\n",
                          info.key, sh.m, sh.n, sh.k, plan.whole, plan.tail, plan.width, plan.groups);
          }
        for (const Tile t : tiles_of(true))
          for (const Shape& sh : hshapes) {
            if (!tile_selected(t)) continue;
            hopper_fails += gemm_case<ws::bfloat16, ws::bfloat16>(sh, t, rng);
            hopper_fails += gemm_case<ws::half, float>(sh, t, rng);
          }
        hopper_fails += stream_section(rng);
      } catch (const std::exception& e) {
        std::printf("FAIL wgmma.sp exception: %s\n", e.what());
        ++hopper_fails;
      }
      std::printf("wgmma.sp kernel: %s (%d failing case(s))\n", hopper_fails ? "FAILED" : "ALL PASSED",
                  hopper_fails);
    }
  }
  try {
    if (perf) perf_section(rng, hopper && prop.major == 9 && hopper_fails == 0);
  } catch (const std::exception& e) {
    std::printf("FAIL perf exception: %s\n", e.what());
    return 1;
  }
  const int total = fails + hopper_fails;
  std::printf("%s: %d failing case(s)\n", total ? "FAILED" : "ALL PASSED", total);
  return total ? 1 : 0;
}
