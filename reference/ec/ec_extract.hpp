// EC-SpMV block extraction (ec-spmv-paper.txt §4-§5; decisions in docs/ec-spmv.md, rows "Overlap",
// "Greedy pairing order and ties", "What counts as a usable block", "Which shared columns a pair
// takes", "Largest G", "How leftover rows at each level are kept", "Extraction cost and speed-ups").
//
// Units. Level 0's units are the matrix rows (G = 1), each with its column set S as a bitset.
// Level k pairs units of G = 2^k into units of 2G; the units of level k + 1 are the pairs of
// level k in creation order.
//
// A round (one pass of the greedy over a level's units):
//   * The overlap of units i and j is |S_i ∩ S_j| of their residual sets at the start of the round.
//   * Units go in ascending index. An unmatched unit i looks at the unmatched units j > i (neither
//     chosen by an earlier unit this round nor having chosen one) in the order (overlap desc,
//     j asc) and takes the first usable one (below), stopping at the first overlap below thr; if
//     nothing is usable, i stays unmatched this round. So the choice is on the raw overlap, with
//     usability checked by the fill: the best usable overlap, ties to the smallest j.
//   * All pairs of a round are chosen before any column moves. Then, in the order the pairs were
//     made, each pair (i, j) creates a unit of group 2G with rows = rows_i ++ rows_j and cols = the
//     self-filling prefix of S_i ∩ S_j; those columns leave S_i and S_j, the rest of the shared
//     columns stay in both.
//   * Rounds repeat until a round makes no pair (that round is counted in `rounds`).
// Units whose row sets intersect never pair: every column of a row lies in at most one unit of a
// level, so two such units share no column (overlap 0 < thr).
//
// The self-filling prefix of c: P = c, then P = P[0, fill_long(P).used) until fill_long(P) uses
// all of P (or finds no fill: empty). So fill_long(P).used == |P| for every unit and block, the
// contract of EcUnit. It is fill_long(c)'s own prefix unless the last lane of that fill ends in
// padding slots: they step towards c[used], a column the prefix does not hold, so fill_long(prefix)
// alone cannot end that lane and picks a smaller L (the next iteration). Then a pair takes fewer
// columns and the rest of the shared columns stay in both residuals for later rounds.
//
// Usable: overlap >= thr (the docs' "fills at least one step": lanes · vec · min_steps columns)
// and a non-empty self-filling prefix of the shared columns. fill_long always fills >= thr
// columns (at L = vec · min_steps the columns cannot run out), so the second condition only fails
// when padding at the end of the last lane shrinks the prefix to nothing.
//
// After the rounds of level k: level 0's residuals are the G = 1 rows. A unit of G >= 2 outputs
// its residual as G-blocks, taking self-filling prefixes while one is non-empty; the columns left
// return, as single elements, to the G = 1 residual of each of its rows. The units of
// G = max_group are not paired: they are output the same way (one block each, since their columns
// are self-filling). `blocks` lists the blocks in the order they are output: G = 2 (after
// level 1), then G = 4, ...; within a G by unit creation order, then prefix order.
//
// The fast path (extract_blocks) equals the specification (extract_blocks_naive) pair for pair:
//   1. First scan, in parallel, for every live unit i: overlaps (AND + popcount; a kernel picked
//      at run time, 4 x 4 pairs at a time) with the live units j > i, keeping the top
//      `candidates` by (overlap desc, j asc) among those >= thr, and the count of all j >= thr.
//      The usability of the first entry is checked here too. Integer results, each unit's list
//      computed by one thread, so the thread count cannot change them.
//   2. Sequentially, in ascending i: the first unmatched usable entry. When every entry is matched
//      or unusable and more j reached thr, the entries tried so far become i's floor and i's list
//      is refilled: the top entries after the floor among the j > i still unmatched, computed
//      exactly (in parallel, together with the next units whose lists are nearly spent). Matches
//      only accumulate, so the first unmatched entry of such a list is the best unmatched j: the
//      naive rule. A refill visits the j by count descending, and a unit whose list is full stops
//      once the counts fall below its last entry (an overlap is at most the smaller count); its
//      list is then marked incomplete, which at worst means another refill. When every unit's best
//      partners are the same dense units (magnitude-pruned matrices), taken one per unit in the
//      resolution, refills are what keeps the resolution going.
//   Exact savings, all from "columns only leave a unit within a level, so overlaps only shrink":
//   a unit with fewer than thr columns, or with no partner >= thr in a round's first scan, is out
//   for the rest of the level; and the j > i that reached thr in one round are a superset of those
//   that reach it in the next, so a unit keeps that list (while at most `live_cap` long) and the
//   next round only looks at it. The kernels' early exit (stop once the count so far plus the
//   bits left in the smaller set cannot reach the needed overlap) only shortens overlaps below it.
//   Tuning (panel sizes, list lengths, kernel) changes the speed, never the result; the property
//   tests vary all of it against the naive greedy.
#pragma once
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <exception>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "reference/common/error.hpp"
#include "reference/ec/ec_fill.hpp"
#include "reference/ec/ec_layout.hpp"
#include "reference/ec/ec_types.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define WS_EC_X86 1
#else
#define WS_EC_X86 0
#endif

namespace warpsparse::ec {

namespace extract_detail {

using Word = std::uint64_t;

// Words per unit: ceil(cols / 64) rounded up to a multiple of 8 (one 512-bit vector), zero-padded.
inline std::size_t words_for(std::int64_t cols) { return static_cast<std::size_t>((cols + 511) / 512 * 8); }

// ---- AND + popcount kernels, selected at run time (the build has no -march flags) ----------------
// A chunk is 8 words. `one` and `four` count |a & b| exactly (four: against 4 b's). The bounded
// forms stop early: they return |a & b| when it is >= need, and otherwise some value < need; ra and
// rb hold, per chunk c, the bits of a and b in chunks c.. (so ra[0] = |a|, ra[w / 8] = 0). They
// check after 1, 2, 4, 8, ... chunks whether the count so far plus min(ra[c], rb[c]) is below need.
struct Kernel {
  const char* name;
  std::int32_t (*one)(const Word* a, const Word* b, std::size_t w);                  // w % 8 == 0
  void (*four)(const Word* a, const Word* const* b, std::size_t w, std::int32_t* out);  // 4 b's
  std::int32_t (*bounded)(const Word* a, const Word* b, std::size_t w, const std::int32_t* ra, const std::int32_t* rb,
                          std::int32_t need);
  void (*bounded4)(const Word* a, const Word* const* b, std::size_t w, const std::int32_t* ra,
                   const std::int32_t* const* rb, std::int32_t need, std::int32_t* out);
  // 4 a's x 4 b's, out[x * 4 + y] for (a[x], b[y]), bounded like bounded4 (stops when all 16 may).
  void (*tile44)(const Word* const* a, const Word* const* b, std::size_t w, const std::int32_t* const* ra,
                 const std::int32_t* const* rb, std::int32_t need, std::int32_t* out);
};

// Checks after 1, 2, 4, 8, ... chunks (more frequent ones cost more sums than they save).
inline constexpr bool is_checkpoint(std::size_t c) { return (c & (c - 1)) == 0; }
inline bool bound_below(std::int32_t part, const std::int32_t* ra, const std::int32_t* rb, std::size_t c,
                        std::int32_t need) {
  return part + std::min(ra[c], rb[c]) < need;
}
// Whether a check at chunk c can stop at all (the count so far is >= 0): only then is it summed.
inline bool may_stop(const std::int32_t* ra, const std::int32_t* rb, std::size_t c, std::int32_t need) {
  return std::min(ra[c], rb[c]) < need;
}
inline bool may_stop4(const std::int32_t* ra, const std::int32_t* const* rb, std::size_t c, std::int32_t need) {
  return ra[c] < need || std::max(std::max(rb[0][c], rb[1][c]), std::max(rb[2][c], rb[3][c])) < need;
}
inline bool may_stop44(const std::int32_t* const* ra, const std::int32_t* const* rb, std::size_t c, std::int32_t need) {
  return std::max(std::max(ra[0][c], ra[1][c]), std::max(ra[2][c], ra[3][c])) < need ||
         std::max(std::max(rb[0][c], rb[1][c]), std::max(rb[2][c], rb[3][c])) < need;
}

inline std::int32_t one_generic(const Word* a, const Word* b, std::size_t w) {
  std::int64_t s = 0;
  for (std::size_t k = 0; k < w; ++k) s += std::popcount(a[k] & b[k]);
  return static_cast<std::int32_t>(s);
}
inline void four_generic(const Word* a, const Word* const* b, std::size_t w, std::int32_t* out) {
  for (int t = 0; t < 4; ++t) out[t] = one_generic(a, b[t], w);
}
inline std::int32_t bounded_generic(const Word* a, const Word* b, std::size_t w, const std::int32_t* ra,
                                    const std::int32_t* rb, std::int32_t need) {
  std::int32_t s = 0;
  const std::size_t nc = w / 8;
  for (std::size_t c = 0; c < nc;) {
    for (std::size_t k = c * 8; k < c * 8 + 8; ++k) s += std::popcount(a[k] & b[k]);
    ++c;
    if (c < nc && is_checkpoint(c) && may_stop(ra, rb, c, need) && bound_below(s, ra, rb, c, need)) return s;
  }
  return s;
}
inline void bounded4_generic(const Word* a, const Word* const* b, std::size_t w, const std::int32_t* ra,
                             const std::int32_t* const* rb, std::int32_t need, std::int32_t* out) {
  for (int t = 0; t < 4; ++t) out[t] = bounded_generic(a, b[t], w, ra, rb[t], need);
}
inline void tile44_generic(const Word* const* a, const Word* const* b, std::size_t w, const std::int32_t* const* ra,
                          const std::int32_t* const* rb, std::int32_t need, std::int32_t* out) {
  for (int x = 0; x < 4; ++x) bounded4_generic(a[x], b, w, ra[x], rb, need, out + 4 * x);
}

#if WS_EC_X86
__attribute__((target("popcnt"))) inline std::int32_t one_popcnt(const Word* a, const Word* b, std::size_t w) {
  std::uint64_t s = 0;
  for (std::size_t k = 0; k < w; ++k) s += static_cast<std::uint64_t>(__builtin_popcountll(a[k] & b[k]));
  return static_cast<std::int32_t>(s);
}
__attribute__((target("popcnt"))) inline void four_popcnt(const Word* a, const Word* const* b, std::size_t w,
                                                          std::int32_t* out) {
  std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (std::size_t k = 0; k < w; ++k) {
    const Word x = a[k];
    s0 += static_cast<std::uint64_t>(__builtin_popcountll(x & b[0][k]));
    s1 += static_cast<std::uint64_t>(__builtin_popcountll(x & b[1][k]));
    s2 += static_cast<std::uint64_t>(__builtin_popcountll(x & b[2][k]));
    s3 += static_cast<std::uint64_t>(__builtin_popcountll(x & b[3][k]));
  }
  out[0] = static_cast<std::int32_t>(s0), out[1] = static_cast<std::int32_t>(s1);
  out[2] = static_cast<std::int32_t>(s2), out[3] = static_cast<std::int32_t>(s3);
}

__attribute__((target("popcnt"))) inline std::int32_t bounded_popcnt(const Word* a, const Word* b, std::size_t w,
                                                                     const std::int32_t* ra, const std::int32_t* rb,
                                                                     std::int32_t need) {
  std::int32_t s = 0;
  const std::size_t nc = w / 8;
  for (std::size_t c = 0; c < nc;) {
    for (std::size_t k = c * 8; k < c * 8 + 8; ++k) s += __builtin_popcountll(a[k] & b[k]);
    ++c;
    if (c < nc && is_checkpoint(c) && may_stop(ra, rb, c, need) && bound_below(s, ra, rb, c, need)) return s;
  }
  return s;
}
__attribute__((target("popcnt"))) inline void bounded4_popcnt(const Word* a, const Word* const* b, std::size_t w,
                                                              const std::int32_t* ra, const std::int32_t* const* rb,
                                                              std::int32_t need, std::int32_t* out) {
  for (int t = 0; t < 4; ++t) out[t] = bounded_popcnt(a, b[t], w, ra, rb[t], need);
}
__attribute__((target("popcnt"))) inline void tile44_popcnt(const Word* const* a, const Word* const* b, std::size_t w,
                                                            const std::int32_t* const* ra, const std::int32_t* const* rb,
                                                            std::int32_t need, std::int32_t* out) {
  for (int x = 0; x < 4; ++x) bounded4_popcnt(a[x], b, w, ra[x], rb, need, out + 4 * x);
}

// AVX2: nibble lookup (pshufb) and byte sums (psadbw) into 4 x u64.
__attribute__((target("avx2"))) inline __m256i popcount256(__m256i v) {
  const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3,
                                       2, 3, 3, 4);
  const __m256i low = _mm256_set1_epi8(0x0f);
  const __m256i lo = _mm256_and_si256(v, low), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
  const __m256i c = _mm256_add_epi8(_mm256_shuffle_epi8(lut, lo), _mm256_shuffle_epi8(lut, hi));
  return _mm256_sad_epu8(c, _mm256_setzero_si256());
}
__attribute__((target("avx2"))) inline std::int32_t sum256(__m256i v) {
  alignas(32) std::uint64_t t[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(t), v);
  return static_cast<std::int32_t>(t[0] + t[1] + t[2] + t[3]);
}
__attribute__((target("avx2"))) inline std::int32_t one_avx2(const Word* a, const Word* b, std::size_t w) {
  __m256i acc = _mm256_setzero_si256();
  for (std::size_t k = 0; k < w; k += 4) {
    const __m256i x = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + k)),
                                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + k)));
    acc = _mm256_add_epi64(acc, popcount256(x));
  }
  return sum256(acc);
}
__attribute__((target("avx2"))) inline void four_avx2(const Word* a, const Word* const* b, std::size_t w,
                                                      std::int32_t* out) {
  __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0;
  for (std::size_t k = 0; k < w; k += 4) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + k));
    c0 = _mm256_add_epi64(c0, popcount256(_mm256_and_si256(x, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b[0] + k)))));
    c1 = _mm256_add_epi64(c1, popcount256(_mm256_and_si256(x, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b[1] + k)))));
    c2 = _mm256_add_epi64(c2, popcount256(_mm256_and_si256(x, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b[2] + k)))));
    c3 = _mm256_add_epi64(c3, popcount256(_mm256_and_si256(x, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b[3] + k)))));
  }
  out[0] = sum256(c0), out[1] = sum256(c1), out[2] = sum256(c2), out[3] = sum256(c3);
}

__attribute__((target("avx2"))) inline __m256i and_count256(const Word* a, const Word* b) {
  return popcount256(_mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a)),
                                      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b))));
}
__attribute__((target("avx2"))) inline std::int32_t bounded_avx2(const Word* a, const Word* b, std::size_t w,
                                                                 const std::int32_t* ra, const std::int32_t* rb,
                                                                 std::int32_t need) {
  __m256i acc = _mm256_setzero_si256();
  const std::size_t nc = w / 8;
  for (std::size_t c = 0; c < nc;) {
    acc = _mm256_add_epi64(acc, _mm256_add_epi64(and_count256(a + c * 8, b + c * 8), and_count256(a + c * 8 + 4, b + c * 8 + 4)));
    ++c;
    if (c < nc && is_checkpoint(c) && may_stop(ra, rb, c, need)) {
      const std::int32_t part = sum256(acc);
      if (bound_below(part, ra, rb, c, need)) return part;
    }
  }
  return sum256(acc);
}
__attribute__((target("avx2"))) inline void bounded4_avx2(const Word* a, const Word* const* b, std::size_t w,
                                                          const std::int32_t* ra, const std::int32_t* const* rb,
                                                          std::int32_t need, std::int32_t* out) {
  for (int t = 0; t < 4; ++t) out[t] = bounded_avx2(a, b[t], w, ra, rb[t], need);
}
__attribute__((target("avx2"))) inline void tile44_avx2(const Word* const* a, const Word* const* b, std::size_t w,
                                                        const std::int32_t* const* ra, const std::int32_t* const* rb,
                                                        std::int32_t need, std::int32_t* out) {
  for (int x = 0; x < 4; ++x) bounded4_avx2(a[x], b, w, ra[x], rb, need, out + 4 * x);
}

// AVX-512 VPOPCNTDQ (Ice Lake, Zen 4 and later). The sum goes through memory: GCC 12's
// _mm512_reduce_add_epi64 trips -Wuninitialized inside its own header.
__attribute__((target("avx512f"))) inline std::int32_t sum512(__m512i v) {
  alignas(64) std::uint64_t t[8];
  _mm512_store_si512(t, v);
  return static_cast<std::int32_t>(t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7]);
}
__attribute__((target("avx512f,avx512vpopcntdq"))) inline std::int32_t one_avx512(const Word* a, const Word* b,
                                                                                  std::size_t w) {
  __m512i acc = _mm512_setzero_si512();
  for (std::size_t k = 0; k < w; k += 8)
    acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_and_si512(_mm512_loadu_si512(a + k), _mm512_loadu_si512(b + k))));
  return sum512(acc);
}
__attribute__((target("avx512f,avx512vpopcntdq"))) inline void four_avx512(const Word* a, const Word* const* b,
                                                                           std::size_t w, std::int32_t* out) {
  __m512i c0 = _mm512_setzero_si512(), c1 = c0, c2 = c0, c3 = c0;
  for (std::size_t k = 0; k < w; k += 8) {
    const __m512i x = _mm512_loadu_si512(a + k);
    c0 = _mm512_add_epi64(c0, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_loadu_si512(b[0] + k))));
    c1 = _mm512_add_epi64(c1, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_loadu_si512(b[1] + k))));
    c2 = _mm512_add_epi64(c2, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_loadu_si512(b[2] + k))));
    c3 = _mm512_add_epi64(c3, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_loadu_si512(b[3] + k))));
  }
  out[0] = sum512(c0);
  out[1] = sum512(c1);
  out[2] = sum512(c2);
  out[3] = sum512(c3);
}
__attribute__((target("avx512f,avx512vpopcntdq"))) inline __m512i and_count512(const Word* a, const Word* b) {
  return _mm512_popcnt_epi64(_mm512_and_si512(_mm512_loadu_si512(a), _mm512_loadu_si512(b)));
}
__attribute__((target("avx512f,avx512vpopcntdq"))) inline std::int32_t bounded_avx512(
    const Word* a, const Word* b, std::size_t w, const std::int32_t* ra, const std::int32_t* rb, std::int32_t need) {
  __m512i acc = _mm512_setzero_si512();
  const std::size_t nc = w / 8;
  for (std::size_t c = 0; c < nc;) {
    acc = _mm512_add_epi64(acc, and_count512(a + c * 8, b + c * 8));
    ++c;
    if (c < nc && is_checkpoint(c) && may_stop(ra, rb, c, need)) {
      const std::int32_t part = sum512(acc);
      if (bound_below(part, ra, rb, c, need)) return part;
    }
  }
  return sum512(acc);
}
// Four b's at once (a loaded once per chunk); stops when all four are below their bounds.
__attribute__((target("avx512f,avx512vpopcntdq"))) inline void bounded4_avx512(
    const Word* a, const Word* const* b, std::size_t w, const std::int32_t* ra, const std::int32_t* const* rb,
    std::int32_t need, std::int32_t* out) {
  __m512i c0 = _mm512_setzero_si512(), c1 = c0, c2 = c0, c3 = c0;
  const std::size_t nc = w / 8;
  for (std::size_t c = 0; c < nc;) {
    const __m512i x = _mm512_loadu_si512(a + c * 8);
    c0 = _mm512_add_epi64(c0, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_loadu_si512(b[0] + c * 8))));
    c1 = _mm512_add_epi64(c1, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_loadu_si512(b[1] + c * 8))));
    c2 = _mm512_add_epi64(c2, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_loadu_si512(b[2] + c * 8))));
    c3 = _mm512_add_epi64(c3, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_loadu_si512(b[3] + c * 8))));
    ++c;
    if (c < nc && is_checkpoint(c) && may_stop4(ra, rb, c, need)) {
      out[0] = sum512(c0), out[1] = sum512(c1), out[2] = sum512(c2), out[3] = sum512(c3);
      if (bound_below(out[0], ra, rb[0], c, need) && bound_below(out[1], ra, rb[1], c, need) &&
          bound_below(out[2], ra, rb[2], c, need) && bound_below(out[3], ra, rb[3], c, need))
        return;
    }
  }
  out[0] = sum512(c0), out[1] = sum512(c1), out[2] = sum512(c2), out[3] = sum512(c3);
}
// 4 x 4: each chunk of the 4 b's and 4 a's is loaded once for 16 pairs (the 1 x 4 form is bound
// by loads, this one by VPOPCNTQ).
#define WS_EC_ACC4(X, x)                                                                       \
  c##X##0 = _mm512_add_epi64(c##X##0, _mm512_popcnt_epi64(_mm512_and_si512(x, y0)));           \
  c##X##1 = _mm512_add_epi64(c##X##1, _mm512_popcnt_epi64(_mm512_and_si512(x, y1)));           \
  c##X##2 = _mm512_add_epi64(c##X##2, _mm512_popcnt_epi64(_mm512_and_si512(x, y2)));           \
  c##X##3 = _mm512_add_epi64(c##X##3, _mm512_popcnt_epi64(_mm512_and_si512(x, y3)))
#define WS_EC_SUM4(X)                                                                          \
  out[4 * X + 0] = sum512(c##X##0), out[4 * X + 1] = sum512(c##X##1), out[4 * X + 2] = sum512(c##X##2), \
  out[4 * X + 3] = sum512(c##X##3)
__attribute__((target("avx512f,avx512vpopcntdq"))) inline void tile44_avx512(
    const Word* const* a, const Word* const* b, std::size_t w, const std::int32_t* const* ra,
    const std::int32_t* const* rb, std::int32_t need, std::int32_t* out) {
  __m512i c00 = _mm512_setzero_si512(), c01 = c00, c02 = c00, c03 = c00, c10 = c00, c11 = c00, c12 = c00, c13 = c00,
          c20 = c00, c21 = c00, c22 = c00, c23 = c00, c30 = c00, c31 = c00, c32 = c00, c33 = c00;
  const Word *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3], *b0 = b[0], *b1 = b[1], *b2 = b[2], *b3 = b[3];
  const std::size_t nc = w / 8;
  for (std::size_t c = 0; c < nc;) {
    const std::size_t k = c * 8;
    const __m512i y0 = _mm512_loadu_si512(b0 + k), y1 = _mm512_loadu_si512(b1 + k), y2 = _mm512_loadu_si512(b2 + k),
                  y3 = _mm512_loadu_si512(b3 + k);
    __m512i x = _mm512_loadu_si512(a0 + k);
    WS_EC_ACC4(0, x);
    x = _mm512_loadu_si512(a1 + k);
    WS_EC_ACC4(1, x);
    x = _mm512_loadu_si512(a2 + k);
    WS_EC_ACC4(2, x);
    x = _mm512_loadu_si512(a3 + k);
    WS_EC_ACC4(3, x);
    ++c;
    if (c < nc && is_checkpoint(c) && may_stop44(ra, rb, c, need)) {
      WS_EC_SUM4(0);
      WS_EC_SUM4(1);
      WS_EC_SUM4(2);
      WS_EC_SUM4(3);
      bool all = true;
      for (int e = 0; e < 16 && all; ++e) all = bound_below(out[e], ra[e / 4], rb[e % 4], c, need);
      if (all) return;
    }
  }
  WS_EC_SUM4(0);
  WS_EC_SUM4(1);
  WS_EC_SUM4(2);
  WS_EC_SUM4(3);
}
#undef WS_EC_ACC4
#undef WS_EC_SUM4
#endif

// Every kernel this CPU can run, the portable one first (tests compare them all).
inline std::vector<Kernel> available_kernels() {
  std::vector<Kernel> k{{"generic", one_generic, four_generic, bounded_generic, bounded4_generic, tile44_generic}};
#if WS_EC_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("popcnt")) k.push_back({"popcnt", one_popcnt, four_popcnt, bounded_popcnt, bounded4_popcnt, tile44_popcnt});
  if (__builtin_cpu_supports("avx2")) k.push_back({"avx2", one_avx2, four_avx2, bounded_avx2, bounded4_avx2, tile44_avx2});
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq"))
    k.push_back({"avx512vpopcntdq", one_avx512, four_avx512, bounded_avx512, bounded4_avx512, tile44_avx512});
#endif
  return k;
}
// The fastest available (the last one listed).
inline const Kernel& best_kernel() {
  static const Kernel k = available_kernels().back();
  return k;
}

// ---- bitsets ------------------------------------------------------------------------------------
inline void set_cols(Word* s, std::span<const std::int32_t> cols) {
  for (const auto c : cols) s[static_cast<std::size_t>(c) >> 6] |= Word{1} << (c & 63);
}
inline void clear_cols(Word* s, std::span<const std::int32_t> cols) {
  for (const auto c : cols) s[static_cast<std::size_t>(c) >> 6] &= ~(Word{1} << (c & 63));
}
inline void cols_of(const Word* s, std::size_t w, std::vector<std::int32_t>& out) {
  out.clear();
  for (std::size_t k = 0; k < w; ++k)
    for (Word x = s[k]; x; x &= x - 1) out.push_back(static_cast<std::int32_t>(k * 64 + static_cast<std::size_t>(std::countr_zero(x))));
}
inline void shared_cols(const Word* a, const Word* b, std::size_t w, std::vector<std::int32_t>& out) {
  out.clear();
  for (std::size_t k = 0; k < w; ++k)
    for (Word x = a[k] & b[k]; x; x &= x - 1) out.push_back(static_cast<std::int32_t>(k * 64 + static_cast<std::size_t>(std::countr_zero(x))));
}

// ---- parameters, input ----------------------------------------------------------------------------
inline void check_params(const EcParams& p) {
  require(valid_delta_bits(p.delta_bits), "EcParams: delta_bits must be 4 or 8, got " + std::to_string(p.delta_bits));
  require(p.max_group == 1 || p.max_group == 2 || p.max_group == 4 || p.max_group == 8 || p.max_group == 16,
          "EcParams: max_group must be 1, 2, 4, 8 or 16, got " + std::to_string(p.max_group));
  require(p.min_steps >= 1, "EcParams: min_steps must be >= 1");
  require(p.threads >= 0, "EcParams: threads must be >= 0");
  require(p.candidates >= 1, "EcParams: candidates must be >= 1");
  require(p.lanes >= 1 && p.vec >= 1, "EcParams: lanes and vec must be >= 1");
}
inline void check_input(std::int64_t rows, std::int64_t cols, std::span<const std::int64_t> row_ptr,
                        std::span<const std::int32_t> col) {
  require(rows >= 0 && cols >= 0, "extract_blocks: negative shape");
  require(rows <= std::int64_t{0xffffffff}, "extract_blocks: more than 2^32 - 1 rows");
  require(cols <= std::int64_t{0x7fffffff}, "extract_blocks: cols exceeds 2^31 - 1");
  require(row_ptr.size() == static_cast<std::size_t>(rows) + 1, "extract_blocks: row_ptr must have rows + 1 entries");
  require(row_ptr[0] == 0 && row_ptr[static_cast<std::size_t>(rows)] == static_cast<std::int64_t>(col.size()),
          "extract_blocks: row_ptr does not span [0, nnz]");
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto b = row_ptr[static_cast<std::size_t>(r)], e = row_ptr[static_cast<std::size_t>(r) + 1];
    if (b > e) throw Error("extract_blocks: row_ptr decreases at row " + std::to_string(r));
    for (auto k = b; k < e; ++k) {
      const auto c = col[static_cast<std::size_t>(k)];
      if (c < 0 || c >= cols) throw Error("extract_blocks: column out of range in row " + std::to_string(r));
      if (k > b && c <= col[static_cast<std::size_t>(k) - 1])
        throw Error("extract_blocks: columns not strictly increasing in row " + std::to_string(r));
    }
  }
}

inline std::int64_t usable_minimum(const EcParams& p) {
  return std::int64_t{p.lanes} * p.vec * p.min_steps;
}
// The self-filling prefix of c (above): its length, 0 when there is none.
inline std::int64_t self_filling_prefix(std::span<const std::int32_t> c, const EcParams& p) {
  auto n = static_cast<std::int64_t>(c.size());
  for (;;) {
    const Fill f = fill_long(c.first(static_cast<std::size_t>(n)), p.vec, p.delta_bits, p.min_steps, p.lanes);
    if (f.per_lane == 0) return 0;
    if (f.used == n) return n;
    n = f.used;
  }
}
inline bool usable(std::span<const std::int32_t> shared, const EcParams& p, std::int64_t& used) {
  used = self_filling_prefix(shared, p);
  return used > 0;
}
inline int pairing_levels(const EcParams& p) { return std::countr_zero(static_cast<unsigned>(p.max_group)); }

// What both extractions start from: the checked input, and a result with its shape, one residual
// row per row and the per-level counters at zero.
inline EcExtraction start_extraction(std::int64_t rows, std::int64_t cols, std::span<const std::int64_t> row_ptr,
                                     std::span<const std::int32_t> col, const EcParams& p) {
  check_params(p);
  check_input(rows, cols, row_ptr, col);
  EcExtraction out;
  out.rows = rows, out.cols = cols;
  out.residual.resize(static_cast<std::size_t>(rows));
  const auto levels = static_cast<std::size_t>(pairing_levels(p));
  out.rounds.assign(levels, 0);
  out.pairs.assign(levels, 0);
  out.seconds.assign(levels, 0.0);
  return out;
}

// Outputs a finished level's unit of G >= 2: self-filling prefixes become G-blocks, the rest goes
// back to the G = 1 residual of each of its rows (`returns`, sorted in at the end).
inline void output_unit(int group, std::span<const std::uint32_t> rows, const std::vector<std::int32_t>& left,
                        const EcParams& p, EcExtraction& out, std::vector<std::vector<std::int32_t>>& returns) {
  std::size_t at = 0;
  while (at < left.size()) {
    const std::span<const std::int32_t> rest(left.data() + at, left.size() - at);
    const std::int64_t n = self_filling_prefix(rest, p);
    if (n == 0) break;
    EcUnit b;
    b.group = group;
    b.rows.assign(rows.begin(), rows.end());
    b.cols.assign(rest.begin(), rest.begin() + n);
    out.blocks.push_back(std::move(b));
    at += static_cast<std::size_t>(n);
  }
  if (at < left.size())
    for (const auto r : rows) returns[r].insert(returns[r].end(), left.begin() + static_cast<std::ptrdiff_t>(at), left.end());
}
inline void merge_returns(EcExtraction& out, std::vector<std::vector<std::int32_t>>& returns) {
  for (std::size_t r = 0; r < returns.size(); ++r) {
    if (returns[r].empty()) continue;
    auto& res = out.residual[r];
    res.insert(res.end(), returns[r].begin(), returns[r].end());
    std::sort(res.begin(), res.end());
  }
}

// ---- threads --------------------------------------------------------------------------------------
inline int thread_count(const EcParams& p) {
  if (p.threads > 0) return p.threads;
  const unsigned h = std::thread::hardware_concurrency();
  return h ? static_cast<int>(h) : 1;
}
// f(task, thread) for task in [0, tasks), handed out in ascending order to `threads` threads
// (thread in [0, threads)).
template <class F>
void parallel_tasks(int threads, std::int64_t tasks, F&& f) {
  const std::int64_t nt = std::min<std::int64_t>(threads, tasks);
  if (nt <= 1) {
    for (std::int64_t t = 0; t < tasks; ++t) f(t, 0);
    return;
  }
  std::atomic<std::int64_t> next{0};
  std::vector<std::exception_ptr> err(static_cast<std::size_t>(nt));
  auto work = [&](std::size_t me) {
    try {
      for (std::int64_t t; (t = next.fetch_add(1)) < tasks;) f(t, static_cast<int>(me));
    } catch (...) {
      err[me] = std::current_exception();
      next.store(tasks);
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < static_cast<std::size_t>(nt); ++k) pool.emplace_back(work, k);
  work(0);
  for (auto& t : pool) t.join();
  for (auto& e : err)
    if (e) std::rethrow_exception(e);
}

// Tuning of the fast path; none of it changes the result (tests vary it).
struct Tuning {
  int live_cap = 4096;          // a unit keeps its list of j >= thr for the next round while at most this long
  int panel = 256;              // units per task in a scan (their bitsets stay in L2 while j streams)
  int refill_candidates = 256;  // list length of a refill (longer than a batch: popular units go fast)
  int refill_batch = 128;       // units refilled together
  int pretest = 1;              // usable entries a scan looks for in each list (in parallel)
  int kernel = -1;              // index into available_kernels(); -1: best_kernel()
};

struct Cand {
  std::int32_t ov;
  std::int32_t j;
  std::int32_t used = -1;  // the pair's self-filling prefix: -1 not known yet, 0 unusable
};
// Top-k by (ov desc, j asc), j arriving in ascending order: a later j never beats an equal ov.
inline void topk_insert(Cand* c, std::int32_t& size, int k, Cand x) {
  if (size == k && x.ov <= c[k - 1].ov) return;
  int pos = size < k ? size : k - 1;
  while (pos > 0 && c[pos - 1].ov < x.ov) {
    c[pos] = c[pos - 1];
    --pos;
  }
  c[pos] = x;
  if (size < k) ++size;
}

// One level's units for the fast path.
struct Units {
  int group = 1;
  std::size_t w = 0;
  std::vector<Word> bits;         // n · w
  std::vector<std::int32_t> cnt;  // |S|
  std::vector<std::uint32_t> rows;  // n · group
  std::vector<std::int32_t> rem;    // n · (w / 8 + 1): bits in chunks c.. (the kernels' bounds)
  std::int64_t size() const { return static_cast<std::int64_t>(cnt.size()); }
  std::size_t nrem() const { return w / 8 + 1; }
  const Word* s(std::int64_t u) const { return bits.data() + static_cast<std::size_t>(u) * w; }
  Word* s(std::int64_t u) { return bits.data() + static_cast<std::size_t>(u) * w; }
  const std::int32_t* r(std::int64_t u) const { return rem.data() + static_cast<std::size_t>(u) * nrem(); }
  void count(std::int64_t u) {  // cnt and rem of unit u from its bits
    std::int32_t* q = rem.data() + static_cast<std::size_t>(u) * nrem();
    const Word* b = s(u);
    q[w / 8] = 0;
    for (std::size_t c = w / 8; c-- > 0;) {
      std::int32_t k = 0;
      for (std::size_t e = c * 8; e < c * 8 + 8; ++e) k += std::popcount(b[e]);
      q[c] = q[c + 1] + k;
    }
    cnt[static_cast<std::size_t>(u)] = q[0];
  }
};

// One progress line per round. cpu: process CPU seconds (all threads), of which the round's first
// scan and its refills.
inline std::string fmt_round(int level, int group, int round, std::int64_t pairs, std::int64_t active, double sec,
                             double cpu, double scan_cpu, std::int64_t refills, double refill_cpu) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "ec extract: level %d (G %d -> %d) round %d: %lld pairs, %lld active units, %.2f s "
                "(cpu %.2f s: first scan %.2f s, %lld refills %.2f s)",
                level, group, 2 * group, round, static_cast<long long>(pairs), static_cast<long long>(active), sec, cpu,
                scan_cpu, static_cast<long long>(refills), refill_cpu);
  return buf;
}
inline double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The rounds of one level (fast path). Removes the paired columns from `u` and returns the pairs'
// units (group 2G) in creation order, as (rows, cols).
struct NewUnit {
  std::vector<std::uint32_t> rows;
  std::vector<std::int32_t> cols;
};

// Keys order candidates: (ov desc, j asc). `floor` excludes the keys at or before it.
inline constexpr Cand kNoFloor{std::numeric_limits<std::int32_t>::max(), -1, -1};
inline bool after(Cand x, Cand floor) { return x.ov < floor.ov || (x.ov == floor.ov && x.j > floor.j); }

// Per-level state of the candidate scans.
struct Scan {
  const Units* u = nullptr;
  const EcParams* p = nullptr;
  std::int32_t thr = 0;
  int kc = 0;                                // list capacity per unit (first scan)
  int kr = 0;                                // list capacity of a refill
  std::vector<Cand> cand;                    // n · kc
  std::vector<Cand> rbuf;                    // refilled lists, kr each, for the units not yet resolved
  std::vector<std::int32_t> slot;            // the unit's list in rbuf, or -1: in cand
  std::vector<std::int32_t> free_slots;
  std::vector<std::int32_t> ncand;           // list length
  std::vector<std::int64_t> nqual;           // eligible j > i after floor with ov >= thr (complete iff <= ncand)
  std::vector<std::int64_t> nq_first;        // nqual of the unit's last first scan (no floor)
  std::vector<Cand> floor;                   // keys already tried by i this round
  std::vector<std::uint8_t> listed;          // 1: only live[i] can reach thr (overlaps only shrink)
  std::vector<std::vector<std::int32_t>> live;
  std::vector<std::uint8_t> eligible;        // active and unmatched
  std::vector<std::uint8_t> alive;           // 0: no partner reached thr in a round's first scan (final)
  std::vector<std::vector<std::uint8_t>> seen;  // per thread: 1 where a unit has a partner >= thr (first scan)
  Cand* list(std::int64_t i) {
    const std::int32_t sl = slot[static_cast<std::size_t>(i)];
    return sl >= 0 ? rbuf.data() + static_cast<std::size_t>(sl) * static_cast<std::size_t>(kr)
                   : cand.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(kc);
  }
  void take_slot(std::int32_t i) {
    if (slot[static_cast<std::size_t>(i)] >= 0) return;
    if (free_slots.empty()) {
      free_slots.push_back(static_cast<std::int32_t>(rbuf.size() / static_cast<std::size_t>(kr)));
      rbuf.resize(rbuf.size() + static_cast<std::size_t>(kr));
    }
    slot[static_cast<std::size_t>(i)] = free_slots.back();
    free_slots.pop_back();
  }
  void free_slot(std::int32_t i) {
    if (slot[static_cast<std::size_t>(i)] < 0) return;
    free_slots.push_back(slot[static_cast<std::size_t>(i)]);
    slot[static_cast<std::size_t>(i)] = -1;
  }
};

// The first scan of a round, over the active units `act` (ascending): for each i, the top k by
// key among the j > i of `act` (its live list if listed), the count of j >= thr, its new live list
// (the j > i reaching thr, while at most live_cap) and, in `seen`, whether it has a partner at all.
inline void scan_candidates(Scan& sc, std::span<const std::int32_t> act, int k, const Kernel& K, const Tuning& tune,
                            int threads) {
  const Units& u = *sc.u;
  const std::size_t w = u.w;
  const std::int32_t thr = sc.thr;
  const std::span<const std::int32_t> ids = act, pool = act;
  const auto n_ids = static_cast<std::int64_t>(ids.size()), np = static_cast<std::int64_t>(pool.size());
  // Panels of at most tune.panel units, but enough of them to keep every thread busy.
  const std::int64_t P = std::max<std::int64_t>(
      4, std::min<std::int64_t>(std::max(1, tune.panel), (n_ids + 4 * threads - 1) / (4 * threads)));
  for (auto& v : sc.seen) std::fill(v.begin(), v.end(), std::uint8_t{0});
  parallel_tasks(threads, (n_ids + P - 1) / P, [&](std::int64_t task, int tid) {
    const std::int64_t p0 = task * P, p1 = std::min(n_ids, p0 + P);
    std::uint8_t* seen = sc.seen[static_cast<std::size_t>(tid)].data();
    std::vector<std::int32_t> js, shared;
    // The running state of each of the panel's units (index f).
    struct Acc {
      std::int32_t i;
      bool over = false;  // live list over the cap (or not collected)
      std::int32_t kth;  // a new entry must beat this overlap (thr - 1 while the list has room)
      std::int64_t nq = 0;
      std::vector<std::int32_t> keep;
    };
    std::vector<Acc> acc;
    acc.reserve(static_cast<std::size_t>(p1 - p0));
    // A pair that reached thr: both units have a partner (those without one drop out for the rest
    // of the level); j joins i's live list; a candidate of i.
    auto record = [&](Acc& a, std::int32_t j, std::int32_t o) {
      seen[j] = 1;
      if (!a.over) {
        if (static_cast<std::int64_t>(a.keep.size()) < tune.live_cap) a.keep.push_back(j);
        else a.over = true;
      }
      const Cand x{o, j};
      ++a.nq;
      if (o <= a.kth) return;
      std::int32_t& nc = sc.ncand[static_cast<std::size_t>(a.i)];
      Cand* c = sc.list(a.i);
      topk_insert(c, nc, k, x);
      if (nc == k) a.kth = c[k - 1].ov;
    };
    // record() for the 4 overlaps of a tile row (j ascending), with the common case of a dense
    // round (live list already over the cap, no entry beating the list) kept short.
    auto record4 = [&](Acc& a, const std::int32_t* o4, const std::int32_t* j4) {
      int q = 0;
      std::int32_t best = -1;
      for (int y = 0; y < 4; ++y) {
        q += o4[y] >= thr ? 1 : 0;
        best = std::max(best, o4[y]);
      }
      if (q == 0) return;
      if (!a.over || best > a.kth) {
        for (int y = 0; y < 4; ++y)
          if (o4[y] >= thr) record(a, j4[y], o4[y]);
        return;
      }
      a.nq += q;
      for (int y = 0; y < 4; ++y)
        if (o4[y] >= thr) seen[j4[y]] = 1;
    };
    auto start = [&](std::int32_t i) {
      sc.ncand[static_cast<std::size_t>(i)] = 0;
      // A unit far over the cap last round is not listed this round either: skip the collection
      // (it only decides between a list and a full scan next round, never a result).
      const bool skip = sc.nq_first[static_cast<std::size_t>(i)] > 2 * std::int64_t{tune.live_cap};
      acc.push_back({i, skip, thr - 1, 0, {}});
    };
    auto finish = [&](Acc& a, bool full_mode) {
      sc.nqual[static_cast<std::size_t>(a.i)] = a.nq;
      sc.nq_first[static_cast<std::size_t>(a.i)] = a.nq;
      if (a.nq > 0) seen[a.i] = 1;
      if (full_mode) {
        if (!a.over) {
          sc.listed[static_cast<std::size_t>(a.i)] = 1;
          sc.live[static_cast<std::size_t>(a.i)].swap(a.keep);
        }
      } else {
        sc.live[static_cast<std::size_t>(a.i)].swap(a.keep);  // a subset of the old list: never over
      }
    };
    std::int32_t ov[16];
    const Word* bj[4];
    const Word* ai[4];
    const std::int32_t* rj[4];
    const std::int32_t* ri[4];
    // List mode: the j > i that reached thr at the start of the last round (ascending).
    for (std::int64_t q = p0; q < p1; ++q) {
      const std::int32_t i = ids[static_cast<std::size_t>(q)];
      if (!sc.listed[static_cast<std::size_t>(i)]) continue;
      start(i);
      Acc& a = acc.back();
      js.clear();
      for (const auto j : sc.live[static_cast<std::size_t>(i)])
        if (sc.eligible[static_cast<std::size_t>(j)]) js.push_back(j);
      std::size_t t = 0;
      for (; t + 4 <= js.size(); t += 4) {
        for (int e = 0; e < 4; ++e) bj[e] = u.s(js[t + static_cast<std::size_t>(e)]), rj[e] = u.r(js[t + static_cast<std::size_t>(e)]);
        K.bounded4(u.s(i), bj, w, u.r(i), rj, thr, ov);
        for (int e = 0; e < 4; ++e)
          if (ov[e] >= thr) record(a, js[t + static_cast<std::size_t>(e)], ov[e]);
      }
      for (; t < js.size(); ++t) {
        const std::int32_t o = K.bounded(u.s(i), u.s(js[t]), w, u.r(i), u.r(js[t]), thr);
        if (o >= thr) record(a, js[t], o);
      }
      finish(a, false);
      acc.pop_back();
    }
    // Full scan: the panel's other units against every pool entry after the first of them, 4 x 4
    // at a time; each j's bitset is read once per panel.
    for (std::int64_t q = p0; q < p1; ++q) {
      const std::int32_t i = ids[static_cast<std::size_t>(q)];
      if (!sc.listed[static_cast<std::size_t>(i)]) start(i);
    }
    if (!acc.empty()) {
      const std::size_t nf = acc.size();
      std::int64_t q = std::upper_bound(pool.begin(), pool.end(), acc.front().i) - pool.begin();
      for (; q + 4 <= np; q += 4) {
        std::int32_t jj[4];
        for (int e = 0; e < 4; ++e) jj[e] = pool[static_cast<std::size_t>(q + e)], bj[e] = u.s(jj[e]), rj[e] = u.r(jj[e]);
        for (std::size_t f = 0; f < nf;) {
          if (f + 4 <= nf && acc[f + 3].i < jj[0]) {
            for (int x = 0; x < 4; ++x) ai[x] = u.s(acc[f + static_cast<std::size_t>(x)].i), ri[x] = u.r(acc[f + static_cast<std::size_t>(x)].i);
            K.tile44(ai, bj, w, ri, rj, thr, ov);
            for (int x = 0; x < 4; ++x) record4(acc[f + static_cast<std::size_t>(x)], ov + 4 * x, jj);
            f += 4;
            continue;
          }
          Acc& a = acc[f];
          if (jj[3] <= a.i) break;  // and so for every later unit of the panel
          K.bounded4(u.s(a.i), bj, w, u.r(a.i), rj, thr, ov);
          for (int e = 0; e < 4; ++e)
            if (jj[e] > a.i && ov[e] >= thr) record(a, jj[e], ov[e]);
          ++f;
        }
      }
      for (; q < np; ++q) {
        const std::int32_t j = pool[static_cast<std::size_t>(q)];
        for (std::size_t f = 0; f < nf && acc[f].i < j; ++f) {
          const std::int32_t o = K.bounded(u.s(acc[f].i), u.s(j), w, u.r(acc[f].i), u.r(j), thr);
          if (o >= thr) record(acc[f], j, o);
        }
      }
      for (auto& a : acc) finish(a, true);
    }
    // Usability of the first entries, here in parallel rather than in the sequential resolution,
    // until `pretest` usable ones are known.
    for (std::int64_t q = p0; q < p1; ++q) {
      const std::int32_t i = ids[static_cast<std::size_t>(q)];
      Cand* c = sc.list(i);
      int found = 0;
      for (std::int32_t e = 0; e < sc.ncand[static_cast<std::size_t>(i)] && found < tune.pretest; ++e) {
        shared_cols(u.s(i), u.s(c[e].j), w, shared);
        c[e].used = static_cast<std::int32_t>(self_filling_prefix(shared, *sc.p));
        found += c[e].used > 0 ? 1 : 0;
      }
    }
  });
}

// Top-k by (ov desc, j asc) for entries arriving in any order.
inline void topk_insert_any(Cand* c, std::int32_t& size, int k, Cand x) {
  auto better = [](Cand a, Cand b) { return a.ov != b.ov ? a.ov > b.ov : a.j < b.j; };
  if (size == k && !better(x, c[k - 1])) return;
  int pos = size < k ? size : k - 1;
  while (pos > 0 && better(x, c[pos - 1])) {
    c[pos] = c[pos - 1];
    --pos;
  }
  c[pos] = x;
  if (size < k) ++size;
}

// A refill: for each unit b of `batch`, the top k after its floor among the eligible j > b of
// `by_size` (the candidates, by count descending, then id). Since an overlap is at most the
// smaller count, b stops once its list is full and the counts fall below its last entry; its list
// is then marked incomplete (nqual = ncand + 1), which at worst means another refill later. With
// a skewed popularity (every unit's best partners are the same dense units, taken one by one in
// the resolution) a refill so looks at a few dense units instead of all of them. Listed units
// look only at their live lists.
inline void refill_candidates(Scan& sc, std::span<const std::int32_t> batch, std::span<const std::int32_t> by_size, int k,
                              const Kernel& K, const Tuning& tune, int threads) {
  const Units& u = *sc.u;
  const std::size_t w = u.w;
  const std::int32_t thr = sc.thr;
  const auto np = static_cast<std::int64_t>(by_size.size());
  std::vector<std::int32_t> listed, open;
  for (const auto b : batch) (sc.listed[static_cast<std::size_t>(b)] ? listed : open).push_back(b);
  struct St {
    std::int32_t b;
    Cand floor;
    bool has_floor, incomplete = false, stopped = false;
  };
  // (by_size holds eligible units only, and no match happens during a refill.)
  auto offer = [&](St& s, std::int32_t j, std::int32_t o) {
    std::int32_t& nc = sc.ncand[static_cast<std::size_t>(s.b)];
    const Cand x{o, j};
    if (o < thr || j <= s.b) return;
    if (s.has_floor && !after(x, s.floor)) return;
    if (nc == k) s.incomplete = true;  // x or the last entry stays out
    topk_insert_any(sc.list(s.b), nc, k, x);
  };
  auto pretest = [&](std::int32_t b, std::vector<std::int32_t>& shared) {
    Cand* c = sc.list(b);
    int found = 0;
    for (std::int32_t e = 0; e < sc.ncand[static_cast<std::size_t>(b)] && found < tune.pretest; ++e) {
      shared_cols(u.s(b), u.s(c[e].j), w, shared);
      c[e].used = static_cast<std::int32_t>(self_filling_prefix(shared, *sc.p));
      found += c[e].used > 0 ? 1 : 0;
    }
  };
  auto init = [&](std::int32_t b) {
    sc.ncand[static_cast<std::size_t>(b)] = 0;
    const Cand fl = sc.floor[static_cast<std::size_t>(b)];
    return St{b, fl, fl.ov != kNoFloor.ov || fl.j != kNoFloor.j};
  };
  const auto n_open = static_cast<std::int64_t>(open.size()), n_listed = static_cast<std::int64_t>(listed.size());
  // The open units in one panel per thread (groups of 4), so that each j's bitset, read in the
  // order of `by_size`, serves the whole panel.
  const std::int64_t n_groups = (n_open + 3) / 4;
  const std::int64_t panels = std::min<std::int64_t>(threads, n_groups);
  parallel_tasks(threads, panels + n_listed, [&](std::int64_t task, int) {
    std::vector<std::int32_t> shared;
    if (task >= panels) {  // a listed unit: its live list
      St s = init(listed[static_cast<std::size_t>(task - panels)]);
      for (const auto j : sc.live[static_cast<std::size_t>(s.b)])
        if (sc.eligible[static_cast<std::size_t>(j)]) offer(s, j, K.bounded(u.s(s.b), u.s(j), w, u.r(s.b), u.r(j), thr));
      sc.nqual[static_cast<std::size_t>(s.b)] = sc.ncand[static_cast<std::size_t>(s.b)] + (s.incomplete ? 1 : 0);
      pretest(s.b, shared);
      return;
    }
    const std::int64_t g0 = n_groups * task / panels, g1 = n_groups * (task + 1) / panels;
    // Slots 4 g .. 4 g + 3 of group g; a slot past the last unit repeats it, marked stopped.
    std::vector<St> st;
    for (std::int64_t e = 4 * g0; e < 4 * g1; ++e) {
      st.push_back(init(open[static_cast<std::size_t>(std::min(e, n_open - 1))]));
      st.back().stopped = e >= n_open;
    }
    const auto ns = static_cast<std::int64_t>(st.size());
    const Word* bj[4];
    const Word* ai[4];
    const std::int32_t* rj[4];
    const std::int32_t* ri[4];
    std::int32_t jj[4], ov[16];
    for (std::int64_t q = 0; q < np; q += 4) {
      // A unit stops once its list is full and no count from here on reaches its last entry
      // (looked at every 64 j: a later stop only costs overlaps that cannot enter).
      if (q % 64 == 0) {
        const std::int32_t top = u.cnt[static_cast<std::size_t>(by_size[static_cast<std::size_t>(q)])];
        bool all = true;
        for (auto& s : st) {
          if (!s.stopped && sc.ncand[static_cast<std::size_t>(s.b)] == k && top < sc.list(s.b)[k - 1].ov) {
            s.stopped = true;
            s.incomplete = s.incomplete || top >= thr;
          }
          all = all && s.stopped;
        }
        if (all) break;
      }
      const int m = static_cast<int>(std::min<std::int64_t>(4, np - q));
      for (int e = 0; e < 4; ++e) {
        jj[e] = by_size[static_cast<std::size_t>(q + std::min(e, m - 1))];
        bj[e] = u.s(jj[e]), rj[e] = u.r(jj[e]);
      }
      for (std::int64_t x0 = 0; x0 < ns; x0 += 4) {
        St* g = st.data() + x0;
        if (g[0].stopped && g[1].stopped && g[2].stopped && g[3].stopped) continue;
        for (int x = 0; x < 4; ++x) ai[x] = u.s(g[x].b), ri[x] = u.r(g[x].b);
        K.tile44(ai, bj, w, ri, rj, thr, ov);
        for (int x = 0; x < 4; ++x) {
          St& st_x = g[x];
          if (st_x.stopped) continue;
          const std::int32_t* o4 = ov + 4 * x;
          // Common case: the list is full and none of the 4 reaches its last entry.
          const std::int32_t best = std::max(std::max(o4[0], o4[1]), std::max(o4[2], o4[3]));
          if (sc.ncand[static_cast<std::size_t>(st_x.b)] == k && best < sc.list(st_x.b)[k - 1].ov) {
            if (best >= thr) st_x.incomplete = true;
            continue;
          }
          for (int e = 0; e < m; ++e) offer(st_x, jj[e], o4[e]);
        }
      }
    }
    for (std::int64_t e = 0; e < ns; ++e) {
      if (4 * g0 + e >= n_open) continue;
      const std::int32_t b = st[static_cast<std::size_t>(e)].b;
      sc.nqual[static_cast<std::size_t>(b)] = sc.ncand[static_cast<std::size_t>(b)] + (st[static_cast<std::size_t>(e)].incomplete ? 1 : 0);
      pretest(b, shared);
    }
  });
}

inline std::vector<NewUnit> pair_level_fast(Units& u, int level, const EcParams& p, const Tuning& tune,
                                            EcExtraction& out,
                                            const std::function<void(const std::string&)>& progress) {
  static const std::vector<Kernel> kernels = available_kernels();
  const Kernel& K = tune.kernel >= 0 && tune.kernel < static_cast<int>(kernels.size())
                        ? kernels[static_cast<std::size_t>(tune.kernel)]
                        : best_kernel();
  const std::int64_t n = u.size();
  const std::size_t w = u.w;
  const int threads = thread_count(p);
  const int G = u.group;
  Scan sc;
  sc.u = &u;
  sc.p = &p;
  sc.thr = static_cast<std::int32_t>(std::min<std::int64_t>(usable_minimum(p), std::int64_t{1} << 30));
  const int k = static_cast<int>(std::min<std::int64_t>(p.candidates, std::max<std::int64_t>(n, 1)));
  const int k_refill = static_cast<int>(std::min<std::int64_t>(std::max(k, tune.refill_candidates), std::max<std::int64_t>(n, 1)));
  sc.kc = k;
  sc.kr = k_refill;
  sc.cand.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(sc.kc));
  sc.slot.assign(static_cast<std::size_t>(n), -1);
  sc.ncand.assign(static_cast<std::size_t>(n), 0);
  sc.nqual.assign(static_cast<std::size_t>(n), 0);
  sc.nq_first.assign(static_cast<std::size_t>(n), 0);
  sc.floor.assign(static_cast<std::size_t>(n), kNoFloor);
  sc.listed.assign(static_cast<std::size_t>(n), 0);
  sc.live.resize(static_cast<std::size_t>(n));
  sc.eligible.assign(static_cast<std::size_t>(n), 0);
  sc.alive.assign(static_cast<std::size_t>(n), 1);
  sc.seen.assign(static_cast<std::size_t>(threads), std::vector<std::uint8_t>(static_cast<std::size_t>(n), 0));

  std::vector<NewUnit> made;
  std::vector<std::uint8_t> matched(static_cast<std::size_t>(n));
  std::vector<std::int32_t> act, shared, pool, batch, by_size;
  for (int round = 1;; ++round) {
    const auto t0 = Clock::now();
    const double c0 = cpu_seconds();
    act.clear();
    for (std::int64_t i = 0; i < n; ++i) {
      const bool a = u.cnt[static_cast<std::size_t>(i)] >= sc.thr && sc.alive[static_cast<std::size_t>(i)];
      sc.eligible[static_cast<std::size_t>(i)] = a ? 1 : 0;
      if (a) act.push_back(static_cast<std::int32_t>(i));
    }
    const auto na = static_cast<std::int64_t>(act.size());
    for (const auto i : act) sc.floor[static_cast<std::size_t>(i)] = kNoFloor;

    // 1. Candidates of every active unit, in parallel.
    scan_candidates(sc, act, k, K, tune, threads);
    by_size = act;
    std::sort(by_size.begin(), by_size.end(), [&](std::int32_t a, std::int32_t b) {
      const auto ca = u.cnt[static_cast<std::size_t>(a)], cb = u.cnt[static_cast<std::size_t>(b)];
      return ca != cb ? ca > cb : a < b;
    });
    for (const auto i : act) {
      bool partner = false;
      for (const auto& v : sc.seen) partner = partner || v[static_cast<std::size_t>(i)];
      if (!partner) sc.alive[static_cast<std::size_t>(i)] = 0;
    }

    // 2. Resolve in ascending i (sequential). A unit whose list runs out while more j reached thr
    // refills it, together with the next units whose lists are nearly spent, against the units
    // still unmatched (in parallel): a fresh top list of the unmatched j after its floor.
    std::fill(matched.begin(), matched.end(), std::uint8_t{0});
    struct Pair {
      std::int32_t i, j;
      std::vector<std::int32_t> cols;
    };
    std::vector<Pair> pairs;
    std::int64_t used = 0, refills = 0;
    double refill_cpu = 0;
    const double scan_cpu = cpu_seconds() - c0;
    auto try_pair = [&](std::int32_t i, Cand& c) {
      const std::int32_t j = c.j;
      if (c.used == 0) return false;
      shared_cols(u.s(i), u.s(j), w, shared);
      if (c.used > 0) used = c.used;
      else if (!usable(shared, p, used)) return c.used = 0, false;
      matched[static_cast<std::size_t>(i)] = matched[static_cast<std::size_t>(j)] = 1;
      sc.eligible[static_cast<std::size_t>(i)] = sc.eligible[static_cast<std::size_t>(j)] = 0;
      sc.free_slot(j);
      pairs.push_back({i, j, std::vector<std::int32_t>(shared.begin(), shared.begin() + used)});
      return true;
    };
    auto open_entries = [&](std::int32_t i) {
      const Cand* c = sc.list(i);
      int m = 0;
      for (std::int32_t e = 0; e < sc.ncand[static_cast<std::size_t>(i)]; ++e)
        m += matched[static_cast<std::size_t>(c[e].j)] || c[e].used == 0 ? 0 : 1;
      return m;
    };
    for (std::int64_t q = 0; q < na; ++q) {
      const std::int32_t i = act[static_cast<std::size_t>(q)];
      if (matched[static_cast<std::size_t>(i)]) continue;
      for (;;) {
        Cand* c = sc.list(i);
        const std::int32_t nc = sc.ncand[static_cast<std::size_t>(i)];
        bool done = false;
        for (std::int32_t e = 0; e < nc && !done; ++e)
          if (!matched[static_cast<std::size_t>(c[e].j)]) done = try_pair(i, c[e]);
        if (done || sc.nqual[static_cast<std::size_t>(i)] <= nc) break;
        // Every entry is taken or unusable, and more j reached thr after them.
        sc.floor[static_cast<std::size_t>(i)] = c[nc - 1];
        batch.assign(1, i);
        for (std::int64_t r = q + 1; r < na && r < q + 8 * tune.refill_batch &&
                                     static_cast<std::int64_t>(batch.size()) < tune.refill_batch;
             ++r) {
          const std::int32_t b = act[static_cast<std::size_t>(r)];
          if (!matched[static_cast<std::size_t>(b)] && sc.nqual[static_cast<std::size_t>(b)] > sc.ncand[static_cast<std::size_t>(b)] &&
              open_entries(b) < 2)
            batch.push_back(b);
        }
        pool.clear();
        for (const auto j : by_size)
          if (j > i && sc.eligible[static_cast<std::size_t>(j)]) pool.push_back(j);
        for (const auto b : batch) sc.take_slot(b);
        const double cr = cpu_seconds();
        refill_candidates(sc, batch, pool, k_refill, K, tune, threads);
        ++refills;
        refill_cpu += cpu_seconds() - cr;
      }
      sc.free_slot(i);
    }

    // 3. Extract: the pairs' columns leave both units.
    for (auto& pr : pairs) {
      clear_cols(u.s(pr.i), pr.cols);
      clear_cols(u.s(pr.j), pr.cols);
      u.count(pr.i);
      u.count(pr.j);
      NewUnit nu;
      nu.rows.reserve(static_cast<std::size_t>(2 * G));
      for (const std::int32_t m : {pr.i, pr.j})
        nu.rows.insert(nu.rows.end(), u.rows.begin() + static_cast<std::ptrdiff_t>(m) * G,
                       u.rows.begin() + static_cast<std::ptrdiff_t>(m + 1) * G);
      nu.cols = std::move(pr.cols);
      made.push_back(std::move(nu));
    }
    out.rounds[static_cast<std::size_t>(level)] = round;
    out.pairs[static_cast<std::size_t>(level)] += static_cast<std::int64_t>(pairs.size());
    if (progress)
      progress(fmt_round(level, G, round, static_cast<std::int64_t>(pairs.size()), na, seconds_since(t0), cpu_seconds() - c0,
                         scan_cpu, refills, refill_cpu));
    if (pairs.empty()) break;
  }
  return made;
}

inline Units make_units(int group, std::int64_t cols, std::vector<NewUnit>& made) {
  Units u;
  u.group = group;
  u.w = words_for(cols);
  u.bits.assign(made.size() * u.w, 0);
  u.cnt.resize(made.size());
  u.rem.resize(made.size() * u.nrem());
  u.rows.reserve(made.size() * static_cast<std::size_t>(group));
  for (std::size_t m = 0; m < made.size(); ++m) {
    set_cols(u.s(static_cast<std::int64_t>(m)), made[m].cols);
    u.count(static_cast<std::int64_t>(m));
    u.rows.insert(u.rows.end(), made[m].rows.begin(), made[m].rows.end());
    made[m] = {};
  }
  return u;
}

inline EcExtraction extract_fast(std::int64_t rows, std::int64_t cols, std::span<const std::int64_t> row_ptr,
                                 std::span<const std::int32_t> col, const EcParams& p, const Tuning& tune,
                                 const std::function<void(const std::string&)>& progress) {
  EcExtraction out = start_extraction(rows, cols, row_ptr, col, p);
  const int levels = pairing_levels(p);
  std::vector<std::vector<std::int32_t>> returns(static_cast<std::size_t>(rows));

  Units u;
  u.group = 1;
  u.w = words_for(cols);
  u.bits.assign(static_cast<std::size_t>(rows) * u.w, 0);
  u.cnt.resize(static_cast<std::size_t>(rows));
  u.rem.resize(static_cast<std::size_t>(rows) * u.nrem());
  u.rows.resize(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto b = row_ptr[static_cast<std::size_t>(r)], e = row_ptr[static_cast<std::size_t>(r) + 1];
    set_cols(u.s(r), col.subspan(static_cast<std::size_t>(b), static_cast<std::size_t>(e - b)));
    u.count(r);
    u.rows[static_cast<std::size_t>(r)] = static_cast<std::uint32_t>(r);
  }
  std::vector<std::int32_t> left;
  auto output_level = [&](const Units& v) {
    for (std::int64_t m = 0; m < v.size(); ++m) {
      cols_of(v.s(m), v.w, left);
      if (v.group == 1) {
        out.residual[static_cast<std::size_t>(v.rows[static_cast<std::size_t>(m)])] = left;
      } else {
        const std::span<const std::uint32_t> rs(v.rows.data() + static_cast<std::size_t>(m) * static_cast<std::size_t>(v.group),
                                                static_cast<std::size_t>(v.group));
        output_unit(v.group, rs, left, p, out, returns);
      }
    }
  };
  for (int level = 0; level < levels; ++level) {
    const auto t0 = Clock::now();
    std::vector<NewUnit> made = pair_level_fast(u, level, p, tune, out, progress);
    output_level(u);
    u = make_units(2 * u.group, cols, made);
    out.seconds[static_cast<std::size_t>(level)] = seconds_since(t0);
  }
  output_level(u);
  merge_returns(out, returns);
  return out;
}

}  // namespace extract_detail

// Extraction from a pattern given CSR-style: row_ptr of rows + 1 offsets, col ascending within each
// row, zeros already removed by the caller. `progress` gets one line per round.
inline EcExtraction extract_blocks(std::int64_t rows, std::int64_t cols, std::span<const std::int64_t> row_ptr,
                                   std::span<const std::int32_t> col, const EcParams& p = {},
                                   const std::function<void(const std::string&)>& progress = {}) {
  return extract_detail::extract_fast(rows, cols, row_ptr, col, p, extract_detail::Tuning{}, progress);
}

// The specification: the same greedy with the plain O(n^2) scan of sorted column lists per round,
// single-threaded. extract_blocks equals it exactly (blocks, residuals, rounds, pairs).
inline EcExtraction extract_blocks_naive(std::int64_t rows, std::int64_t cols, std::span<const std::int64_t> row_ptr,
                                         std::span<const std::int32_t> col, const EcParams& p = {},
                                         const std::function<void(const std::string&)>& progress = {}) {
  using namespace extract_detail;
  EcExtraction out = start_extraction(rows, cols, row_ptr, col, p);
  const int levels = pairing_levels(p);
  std::vector<std::vector<std::int32_t>> returns(static_cast<std::size_t>(rows));
  const std::int64_t thr = usable_minimum(p);

  struct U {
    std::vector<std::uint32_t> rows;
    std::vector<std::int32_t> cols;
  };
  std::vector<U> units(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    units[static_cast<std::size_t>(r)].rows = {static_cast<std::uint32_t>(r)};
    units[static_cast<std::size_t>(r)].cols.assign(col.begin() + row_ptr[static_cast<std::size_t>(r)],
                                                   col.begin() + row_ptr[static_cast<std::size_t>(r) + 1]);
  }
  auto intersect = [](const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
    std::vector<std::int32_t> s;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(s));
    return s;
  };
  auto rows_meet = [](const U& a, const U& b) {
    for (const auto r : a.rows)
      if (std::find(b.rows.begin(), b.rows.end(), r) != b.rows.end()) return true;
    return false;
  };
  int group = 1;
  for (int level = 0; level < levels; ++level, group *= 2) {
    const auto t0 = Clock::now();
    std::vector<U> made;
    const std::size_t n = units.size();
    for (int round = 1;; ++round) {
      const auto tr = Clock::now();
      const double cr = cpu_seconds();
      std::vector<std::uint8_t> matched(n, 0);
      struct Pair {
        std::size_t i, j;
        std::vector<std::int32_t> cols;
      };
      std::vector<Pair> pairs;
      for (std::size_t i = 0; i < n; ++i) {
        if (matched[i]) continue;
        std::vector<std::pair<std::int64_t, std::size_t>> opts;  // (overlap, j)
        for (std::size_t j = i + 1; j < n; ++j) {
          if (matched[j] || rows_meet(units[i], units[j])) continue;
          opts.emplace_back(static_cast<std::int64_t>(intersect(units[i].cols, units[j].cols).size()), j);
        }
        std::sort(opts.begin(), opts.end(),
                  [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
        for (const auto& [ov, j] : opts) {
          if (ov < thr) break;  // fill_long needs at least thr columns
          const auto s = intersect(units[i].cols, units[j].cols);
          std::int64_t used = 0;
          if (!usable(s, p, used)) continue;
          matched[i] = matched[j] = 1;
          pairs.push_back({i, j, std::vector<std::int32_t>(s.begin(), s.begin() + used)});
          break;
        }
      }
      for (auto& pr : pairs) {
        U nu;
        nu.rows = units[pr.i].rows;
        nu.rows.insert(nu.rows.end(), units[pr.j].rows.begin(), units[pr.j].rows.end());
        for (const std::size_t m : {pr.i, pr.j}) {
          std::vector<std::int32_t> rest;
          std::set_difference(units[m].cols.begin(), units[m].cols.end(), pr.cols.begin(), pr.cols.end(),
                              std::back_inserter(rest));
          units[m].cols = std::move(rest);
        }
        nu.cols = std::move(pr.cols);
        made.push_back(std::move(nu));
      }
      out.rounds[static_cast<std::size_t>(level)] = round;
      out.pairs[static_cast<std::size_t>(level)] += static_cast<std::int64_t>(pairs.size());
      if (progress)
        progress(fmt_round(level, group, round, static_cast<std::int64_t>(pairs.size()), static_cast<std::int64_t>(n),
                           seconds_since(tr), cpu_seconds() - cr, 0.0, 0, 0.0));
      if (pairs.empty()) break;
    }
    for (auto& v : units) {
      if (group == 1) out.residual[v.rows[0]] = v.cols;
      else output_unit(group, v.rows, v.cols, p, out, returns);
    }
    units = std::move(made);
    out.seconds[static_cast<std::size_t>(level)] = seconds_since(t0);
  }
  for (auto& v : units) {
    if (group == 1) out.residual[v.rows[0]] = v.cols;
    else output_unit(group, v.rows, v.cols, p, out, returns);
  }
  merge_returns(out, returns);
  return out;
}

}  // namespace warpsparse::ec
