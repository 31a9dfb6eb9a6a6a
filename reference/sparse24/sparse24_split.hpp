// The wgmma.sp kernel's schedule (kernels/sparse24/sparse24_wgmma.cu): how the persistent grid
// shares the tiles its last round would leave SMs idle on, and the CTA tile's rows. Pure host
// rules, so CI tests them without a GPU.
#pragma once

#include <algorithm>
#include <limits>

#include "reference/common/hd.hpp"
#include "reference/device/device_facts.hpp"
#include "reference/sparse24/sparse24_layout.hpp"

namespace warpsparse::sparse24::gpu {

// How the persistent grid's work covers the tiles_m x tiles_n output tiles. With T tiles on S SMs
// the grid runs whole rounds of S tiles, and in a last round of T mod S tiles the other SMs would
// idle. So:
//   - the `whole` tiles of the whole rounds are one unit each (all K tiles, stored into C), in the
//     grouped order of cta_tile, the grid striding over them;
//   - the `tail` units after them, of `width` tiles each, are shared by `groups` groups of `width`
//     CTAs (CTA c is position c % width of group c / width). The tail's K tiles, numbered unit
//     after unit (unit r's K tile j is r·ktiles + j), are cut into `groups` near-even ranges, group
//     g taking [begin(g), begin(g + 1)); each CTA of the group runs that range on its own tile of
//     each unit it meets (a segment). Each segment writes fp32 partials to its own slot, and a
//     second kernel adds a tile's segments in group order.
// Where S is a multiple of tiles_n, a unit is a row of tiles (width tiles_n; the whole rounds are
// then whole rows): the tiles of a group share A's rows and run the same K tiles side by side, so
// those rows are read at about the same time, as for whole tiles, and come from L2. Elsewhere a
// unit is one tile, the last T mod S in cta_tile's order.
// A launch in clusters of `cluster` CTAs (2: two CTAs that share A's rows, loading half of A each and
// multicasting it to both) needs the CTAs of a cluster (consecutive CTA numbers) to run the same
// units on side-by-side tiles of one tile row: whole_tile(pid, cluster) walks cta_tile's order over
// clusters of adjacent columns, and the tail's units are rows whose positions pair up.
// clusters(c, sms) says whether the plan allows that.
struct SplitPlan {
  long long whole = 0;
  int tail = 0, width = 1, groups = 0, ktiles = 0, tiles_m = 0, tiles_n = 1;

  WS_HD bool split() const { return groups > 0; }
  WS_HD bool rows() const { return width == tiles_n; }  // units are rows (one column: both)
  // The range arithmetic is 32-bit: split_plan keeps iterations() · (groups + 1) within int, and on
  // the GPU a 64-bit division is a long subroutine that a tail CTA would run before its first load.
  WS_HD int iterations() const { return tail * ktiles; }
  // The first tail K tile of group g (g in 0 .. groups; begin(groups) is the end).
  WS_HD int begin(int g) const { return iterations() * g / groups; }
  // The group whose range holds tail K tile x: the largest g with begin(g) <= x.
  WS_HD int group_of(int x) const { return ((x + 1) * groups + iterations() - 1) / iterations() - 1; }
  // The groups that share tail unit r, in K order: first_group(r) .. last_group(r).
  WS_HD int first_group(int r) const { return group_of(r * ktiles); }
  WS_HD int last_group(int r) const { return group_of((r + 1) * ktiles - 1); }
  // Whether a group's range [b, e) = [begin(g), begin(g + 1)) holds all of tail unit r's K tiles:
  // then no other group meets the unit, its CTA stores the tile directly and the tail kernel skips
  // it. Both kernels ask this one question; the GEMM kernel passes the range it already holds.
  WS_HD bool covers(int b, int e, int r) const { return b <= r * ktiles && (r + 1) * ktiles <= e; }
  // Group g's segment of tail unit r, position col, writes its partials to slot(col, g, r). For one
  // position no two segments share g + r: g in unit r and g + 1 in unit r - 1 would need unit r to
  // start before begin(g + 1) and unit r - 1 to end after it, and unit r - 1 ends where r starts.
  WS_HD int slots_per_position() const { return groups + tail - 1; }
  WS_HD int slot(int col, int g, int r) const { return col * slots_per_position() + g + r; }
  WS_HD int slots() const { return split() ? width * slots_per_position() : 0; }
  WS_HD int tail_tiles() const { return tail * width; }
  // The tiles of partials the segments write: a range that starts inside a unit adds one.
  long long segments() const {
    long long s = 0;
    for (int r = 0; r < tail && split(); ++r) s += last_group(r) - first_group(r) + 1;
    return s * width;
  }
  // The most K tiles one CTA runs: its share of the whole rounds, then the longest tail range.
  long long cta_ktiles(int sms) const {
    if (!split()) return (whole + sms - 1) / sms * ktiles;
    return whole / sms * ktiles + (static_cast<long long>(tail) * ktiles + groups - 1) / groups;
  }
  // Whole tile `pid` and position col of tail unit r, as output tile coordinates. The launch
  // requires fewer than 2^30 tiles, so `whole` fits an int and the division is 32-bit.
  WS_HD int whole_rows() const { return static_cast<int>(whole) / tiles_n; }
  WS_HD TileCoord whole_tile(int pid, int cluster = 1) const {
    const TileCoord t = cta_tile(pid / cluster, rows() ? whole_rows() : tiles_m, tiles_n / cluster);
    return TileCoord{t.m, cluster * t.n + pid % cluster};
  }
  // Every cluster of c consecutive CTAs gets the same units on the adjacent tiles of one tile row:
  // the columns come in groups of c, a shared tail is made of rows (width tiles_n), and the grid on
  // `sms` SMs is whole clusters.
  bool clusters(int c, int sms) const {
    return c >= 1 && tiles_n % c == 0 && (!split() || rows()) && grid(sms) % c == 0;
  }
  WS_HD TileCoord tail_tile(int r, int col) const {
    return rows() ? TileCoord{whole_rows() + r, col}
                  : cta_tile(static_cast<int>(whole) + r, tiles_m, tiles_n);
  }
  // The CTAs of the launch: enough for the whole rounds and for the tail's groups.
  long long grid(int sms) const {
    return std::max<long long>(std::min<long long>(whole, sms), static_cast<long long>(groups) * width);
  }
};

// When the tail is shared, and by how many groups: as many as the SMs hold (S / width), while each
// range keeps kMinPartKTiles K tiles and the partials (8 bytes per element and segment: written,
// then read back) stay within A's bytes (about M·K); and only with at least two groups per tail unit
// (the last round at most about half as long), since every segment writes a tile of partials and
// the second kernel reads them.
// Ranges that cross units (stream-K proper) pay where a unit is a row of several tiles, K is long
// (kStreamKMinKTiles K tiles or more) and the SMs hold many groups (kStreamKMinGroups or more: S /
// width; a row is a unit only where its width divides S, so rows of 2, 3, 4 or 6 tiles on 132
// SMs). Elsewhere the groups are a multiple of the tail units, so each tail tile is cut into the
// same number of equal parts and no range crosses a unit.
// Measured on the H100 (bf16, this rule against equal parts alternated on one machine,
// docs/sparse24-gemm.md): at 512 tokens (33 groups) 3-5 % less time on 12288², 12288 x 49152 and
// 36864 x 12288, within 1 % on 27648 x 9216, 28672 x 8192 and 36864 x 9216; at 768 (22 groups)
// -1.5 % on average over six weights; at 1408 (12 groups) -0.4 %, and at 1536 (11 groups) +3.1 %,
// up to +15 % (4096 x 1536 x 14336). Ranges across units lost 4-6 points of cuSPARSELt's rate where
// K was 3584-4096, and with one column were 1-40 % slower at 128 tokens (8192 x 128 x 29568:
// 127.5 % of cuSPARSELt against 148.0 %). Equal parts themselves: 4096 x 16 x 4096 went from 74 %
// to 108 % of cuSPARSELt with 8 parts, 4096 x 512 x 4096 from 77 % to 69 % with 2 (its partials:
// twice A's bytes).
inline constexpr int kMinPartKTiles = 4;
inline constexpr int kStreamKMinKTiles = 128;
inline constexpr int kStreamKMinGroups = 16;
inline SplitPlan split_plan(long long m, long long n, long long k, int bm, int bn, int ktiles, int sms) {
  if (m <= 0 || n <= 0 || k <= 0 || sms <= 0 || ktiles <= 0) return {};
  const long long tiles_m = (m + bm - 1) / bm, tiles_n = (n + bn - 1) / bn, tiles = tiles_m * tiles_n;
  const SplitPlan none{tiles, 0, 1, 0, ktiles, static_cast<int>(tiles_m), static_cast<int>(tiles_n)};
  const long long width = sms % tiles_n == 0 ? tiles_n : 1;
  const long long tail = (tiles % sms) / width;  // rows when width = tiles_n: the whole rounds are whole rows
  if (tail == 0) return none;
  const long long tile_elems = std::min<long long>(bm, m) * std::min<long long>(bn, n);
  const long long max_slots = (m * k) / (8 * tile_elems);
  // Equal parts write `groups` tiles of partials a position; ranges across units up to tail - 1 more.
  auto groups_of = [&](bool stream_k) {
    const long long g = std::min(
        {sms / width, tail * ktiles / kMinPartKTiles, max_slots / width - (stream_k ? tail - 1 : 0)});
    return stream_k ? g : g - g % tail;
  };
  long long groups = groups_of(width > 1 && ktiles >= kStreamKMinKTiles && sms / width >= kStreamKMinGroups);
  // Where the ranges' extra slots would leave fewer than two groups a unit, equal parts may still
  // fit: 4096 x 512 x 11008 gets 28 groups for its 16 rows across units, 32 in equal parts. Its split
  // tall tiles ran 15 % faster than the square tiles choose_tile_rows took without a split (H100).
  if (groups < 2 * tail) groups = groups_of(false);
  if (groups < 2 * tail) return none;
  if (tail * ktiles * (groups + 1) > std::numeric_limits<int>::max()) return none;  // K over ~8 M on 132 SMs
  return {tiles - tail * width, static_cast<int>(tail), static_cast<int>(width), static_cast<int>(groups), ktiles,
          static_cast<int>(tiles_m), static_cast<int>(tiles_n)};
}

// The CTA tile's rows: 256 (the tall tile) or 128 (the square one, 128 x 128). A square tile runs
// at about three quarters of a tall tile's rate (H100, the 31 weights at 2048 tokens: median 76 %,
// 71-85 %), so it pays only where tall tiles leave most SMs idle or pay heavily for split-K. With
// fewer tall tiles T than SMs S:
// - nothing split: square when 2T <= S (the square tiles still fit one round);
// - one column of tiles (N <= 128): the tile of the lower tile_time (below);
// - several columns: square only while K is at most kSquareMaxKTiles tiles. With longer K the
//   split tall tiles' fixed costs (pipeline fill, partials, the second kernel) are spread over long
//   ranges: at 256-512 tokens they ran 1-27 % faster than square tiles on every split weight with
//   K >= 11008, with partials up to 93 % of A, while K of 4096-8192 kept the square tile 4-13 %
//   ahead (H100, both tiles timed, docs/sparse24-gemm.md). Of the 20 such cases measured, tile_time
//   with the constants below picked the slower tile in 4 (up to 11 % slower).
inline constexpr int kTallRows = 256, kSquareRows = 128, kTileCols = 128, kSquareMaxKTiles = 128;
// A one-column launch's time in units of one A element of a tall tile's K loop: the busiest CTA's
// elements (rows x K it runs), at kSquareTimePerElement for the square tile, plus the partial-byte
// time for each byte of partials (8 per element: written, then read by the second kernel). Fitted
// on the H100 (bf16, both tiles timed on 14 weights whose tall tiles are split, at 16 and 128
// tokens, docs/sparse24-gemm.md): a straight line in these two terms and a constant came within 9 %
// of all 28 times at 128 tokens (square 1.28 per element, 0.0152 per byte), and these constants
// pick the faster tile in all 28 cases at 16 and 128 tokens, as do 1.25-1.6 per element with the
// per-byte constant raised with it (0.015-0.03).
inline constexpr double kSquareTimePerElement = 1.3, kTimePerPartialByte = 0.015;
// The partials are memory traffic and the K loop is not, so a byte costs less against an element
// where the memory is faster: the H100's constant times the H100's copy bandwidth over the device's
// (measured bandwidths, DeviceFacts; the H100's constant where the device's is not known). On the
// H200 (4.28 against 3.0 TB/s: 0.0105) this picks the faster tile, or one within 1 %, in 74 of the
// 76 one-column cases of the 31 weights at 16-128 tokens, against 69 with the H100's constant,
// whose worst pick was 11.8 % slower (13824 x 64 x 5120; docs/sparse24-gemm.md).
inline double partial_byte_time(const DeviceFacts& d) {
  return d.copy_bytes_per_s > 0 ? kTimePerPartialByte * kH100.copy_bytes_per_s / d.copy_bytes_per_s
                                : kTimePerPartialByte;
}
inline double tile_time(const SplitPlan& p, long long m, long long n, int rows, const DeviceFacts& d) {
  const double elements = static_cast<double>(rows) * kColAlign * static_cast<double>(p.cta_ktiles(d.sms));
  const long long tile_elems = std::min<long long>(rows, m) * std::min<long long>(kTileCols, n);
  const double partial_bytes = 8.0 * static_cast<double>(p.segments()) * static_cast<double>(tile_elems);
  return (rows == kSquareRows ? kSquareTimePerElement : 1.0) * elements +
         partial_byte_time(d) * partial_bytes;
}
inline int choose_tile_rows(long long m, long long n, long long k, int ktiles, const DeviceFacts& d) {
  const int sms = d.sms;
  const SplitPlan tall = split_plan(m, n, k, kTallRows, kTileCols, ktiles, sms);
  const long long tiles = tall.whole + tall.tail_tiles();
  if (m <= 0 || n <= 0 || k <= 0 || tiles >= sms) return kTallRows;
  if (!tall.split()) return 2 * tiles <= sms ? kSquareRows : kTallRows;
  if (tall.tiles_n > 1) return ktiles <= kSquareMaxKTiles ? kSquareRows : kTallRows;
  const SplitPlan square = split_plan(m, n, k, kSquareRows, kTileCols, ktiles, sms);
  return tile_time(square, m, n, kSquareRows, d) < tile_time(tall, m, n, kTallRows, d) ? kSquareRows
                                                                                       : kTallRows;
}

// Whether a tall-tile product runs in clusters of two CTAs that multicast A (kHopperTallPair):
// where its tiles fill more than one round of the SMs and come in at most kPairMaxCols columns (N up
// to 512), an even number. Few columns are where A's bytes per flop are high: at 512 tokens each A
// tile is read by four CTAs, and Nsight on 36864 x 512 x 12288 (H100, single CTAs) counted about
// 1.5 times A's bytes read from DRAM and L2 at 80 % of its throughput. Measured on the H100 (rested,
// the 31 weights at 512 tokens, each kernel as a share of cuSPARSELt's rate in its own run,
// docs/sparse24-gemm.md): with more tiles than SMs the pairs were 0.1-13 points ahead of single
// CTAs on 16 of 19 weights and 0.7-1.5 behind on three; with one round or less, 0.8-20 points
// behind on 11 of 12. At 256 tokens (one run, sustained) the same split held: ahead on all 11
// weights with more tiles than SMs, behind on 19 of the other 20. At 2048 tokens (rested) they
// were -0.8 to +3 % on four weights and -4.4 to +1.7 points, -0.8 on average, on ten others, so
// wider products keep single CTAs. Clusters of four on a tile row (A leaving L2 once per four
// tiles) ran behind the pairs on 15 of those 19 weights, by 4.2 points on average (H100, rested, one
// run), so two it is. The schedule must allow clusters too (SplitPlan::clusters, on all of the
// device's SMs), so the tile auto names is the one that runs.
inline constexpr int kPairMaxCols = 4;
inline bool choose_pairs(long long m, long long n, long long k, int ktiles, const DeviceFacts& d) {
  if (m <= 0 || n <= 0 || k <= 0) return false;
  const SplitPlan p = split_plan(m, n, k, kTallRows, kTileCols, ktiles, d.sms);
  return p.tiles_n <= kPairMaxCols && static_cast<long long>(p.tiles_m) * p.tiles_n > d.sms && p.clusters(2, d.sms);
}

}  // namespace warpsparse::sparse24::gpu
