// How an EC matrix runs on a GPU (docs/ec-spmv.md, "Clipping threshold" and "Per-row reduction
// order"): blocks are clipped into pieces of at most C_G steps, one warp per piece; each piece
// stores its G warp sums into fixed slots of a partials buffer, and a second pass adds a row's
// partials left to right in piece order before the epilogue. The bytes on disk do not depend on
// the GPU; this plan (the upload tables) does. Host only; the kernel and the warp model both read
// the same Plan.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference/device/device_facts.hpp"
#include "reference/ec/ec_format.hpp"

namespace warpsparse::ec {

// The clipping rule, as data: C_G = max(min_piece_steps, floor(piece_share · E / (N · V_G))),
// E = stored values, N = resident warps of the GPU, V_G = values of one step of the set. Pieces
// no longer than piece_share of the mean per-warp load keep the slowest warp within
// (1 + piece_share) of the mean (list scheduling, longest first); the floor keeps each piece's
// fixed cost (lane starts, G butterflies, G partial stores) small against its steps.
struct Rules {
  int min_piece_steps = 4;
  double piece_share = 0.5;
};

struct Piece {
  std::uint32_t set = 0, block = 0;
  std::uint32_t step_begin = 0, step_end = 0;  // steps of the set, [begin, end)
  std::uint32_t partial = 0;                   // its G sums go to partials[partial + k]
};

struct Plan {
  std::vector<int> clip_steps;        // per set: the longest piece in steps (0: blocks are not clipped)
  std::vector<Piece> pieces;          // set order, block order, then by step
  std::vector<std::uint32_t> lane_start;    // kLanes per piece: the column each lane adds its first delta to
  std::vector<std::uint32_t> row_part_ptr;  // rows + 1
  std::vector<std::uint32_t> row_parts;     // each row's partial indices, in piece order
  std::int64_t partials = 0;
  std::uint64_t bytes() const {
    return pieces.size() * sizeof(Piece) + (lane_start.size() + row_part_ptr.size() + row_parts.size()) * 4 +
           static_cast<std::uint64_t>(partials) * 4;
  }
};

// Resident warps of a GPU for the clipping rule (8448 on an H100).
inline std::int64_t resident_warps(const DeviceFacts& d) { return std::int64_t{d.sms} * (d.max_threads_per_sm / 32); }

template <class T>
std::vector<int> clip_steps(const Ec<T>& a, const DeviceFacts& d, const Rules& r = {}) {
  std::int64_t stored = 0;
  for (const auto& s : a.sets) stored += s.slots() * s.group;
  std::vector<int> c;
  for (const auto& s : a.sets) {
    const double step_values = double(s.step_slots()) * s.group;
    const double steps = r.piece_share * double(stored) / (double(resident_warps(d)) * step_values);
    c.push_back(std::max(r.min_piece_steps, static_cast<int>(std::min(steps, 1e9))));
  }
  return c;
}

// The plan for given clip lengths per set (0 or negative: one piece per block).
template <class T>
Plan make_plan(const Ec<T>& a, std::vector<int> clip) {
  require(clip.size() == a.sets.size(), "EC plan: " + std::to_string(clip.size()) + " clip lengths for " +
                                            std::to_string(a.sets.size()) + " sets");
  Plan p;
  p.clip_steps = clip;
  std::vector<std::uint32_t> count(static_cast<std::size_t>(a.rows) + 1, 0);
  for (std::size_t si = 0; si < a.sets.size(); ++si) {
    const EcSet<T>& s = a.sets[si];
    for (std::int64_t b = 0; b < s.blocks(); ++b) {
      const std::int64_t b0 = s.step_ptr[b], b1 = s.step_ptr[b + 1];
      const std::int64_t n = clip[si] > 0 ? (b1 - b0 + clip[si] - 1) / clip[si] : 1;
      // n pieces whose lengths differ by at most one step, the longer ones first.
      std::int64_t at = b0;
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t len = (b1 - b0) / n + (i < (b1 - b0) % n ? 1 : 0);
        p.pieces.push_back({static_cast<std::uint32_t>(si), static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(at),
                            static_cast<std::uint32_t>(at + len), static_cast<std::uint32_t>(p.partials)});
        p.partials += s.group;
        for (int k = 0; k < s.group; ++k) ++count[s.rows[static_cast<std::size_t>(b * s.group + k)] + 1];
        at += len;
      }
    }
  }
  require(p.partials <= std::int64_t{UINT32_MAX}, "EC plan: more than 2^32 partial sums");
  // Lane starts: the running column of each lane just before the piece's first slot (the base
  // itself at a block's first step, whose first delta is 0).
  p.lane_start.resize(p.pieces.size() * kLanes);
  for (std::size_t i = 0; i < p.pieces.size(); ++i) {
    const Piece& pc = p.pieces[i];
    const EcSet<T>& s = a.sets[pc.set];
    const std::int64_t b0 = s.step_ptr[pc.block];
    for (int l = 0; l < kLanes; ++l) {
      std::int64_t c = s.bases[std::size_t{pc.block} * kLanes + static_cast<std::size_t>(l)];
      for (std::int64_t j = 0; j < (std::int64_t{pc.step_begin} - b0) * s.vec; ++j)
        c += s.delta(b0 * s.step_slots() + slot_position(j, l, s.vec), a.delta_bits);
      p.lane_start[i * kLanes + static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(c);
    }
  }
  p.row_part_ptr.assign(count.begin(), count.end());
  for (std::size_t r = 1; r < p.row_part_ptr.size(); ++r) p.row_part_ptr[r] += p.row_part_ptr[r - 1];
  p.row_parts.resize(p.row_part_ptr.back());
  std::vector<std::uint32_t> fill(p.row_part_ptr.begin(), p.row_part_ptr.end() - 1);
  for (const Piece& pc : p.pieces) {
    const EcSet<T>& s = a.sets[pc.set];
    for (int k = 0; k < s.group; ++k) p.row_parts[fill[s.rows[std::size_t{pc.block} * s.group + static_cast<std::size_t>(k)]]++] = pc.partial + static_cast<std::uint32_t>(k);
  }
  return p;
}

template <class T>
Plan make_plan(const Ec<T>& a, const DeviceFacts& d, const Rules& r = {}) {
  return make_plan(a, clip_steps(a, d, r));
}

}  // namespace warpsparse::ec

namespace warpsparse {

// Why a plan does not fit its matrix, or nullopt. The kernels rely on all of it: pieces in set,
// block and step order cover every step once; partials are handed out in piece order, G per
// piece; each lane_start is the lane's running column before the piece's first slot; each row
// lists exactly its own partials, in piece order. O(stored slots).
template <class T>
std::optional<std::string> ec_plan_fault(const Ec<T>& a, const ec::Plan& p) {
  const auto pieces = static_cast<std::int64_t>(p.pieces.size());
  if (p.clip_steps.size() != a.sets.size())
    return std::to_string(p.clip_steps.size()) + " clip lengths for " + std::to_string(a.sets.size()) + " sets";
  if (static_cast<std::int64_t>(p.lane_start.size()) != pieces * ec::kLanes)
    return std::to_string(p.lane_start.size()) + " lane starts for " + std::to_string(pieces) + " pieces";
  if (static_cast<std::int64_t>(p.row_part_ptr.size()) != a.rows + 1 || p.row_part_ptr[0] != 0)
    return "row_part_ptr has " + std::to_string(p.row_part_ptr.size()) + " entries for " + std::to_string(a.rows) + " rows";
  if (static_cast<std::int64_t>(p.row_parts.size()) != p.partials || p.row_part_ptr.back() != p.row_parts.size())
    return "row_parts has " + std::to_string(p.row_parts.size()) + " entries for " + std::to_string(p.partials) + " partials";
  std::vector<std::uint32_t> owner;  // row of each partial
  owner.reserve(static_cast<std::size_t>(p.partials));
  std::int64_t i = 0;
  for (std::size_t si = 0; si < a.sets.size(); ++si) {
    const EcSet<T>& s = a.sets[si];
    for (std::int64_t b = 0; b < s.blocks(); ++b) {
      const std::int64_t b0 = s.step_ptr[b], b1 = s.step_ptr[b + 1];
      const std::int64_t first = i;
      for (std::int64_t at = b0; at < b1; ++i) {
        const std::string where = "piece " + std::to_string(i);
        if (i >= pieces) return where + " missing: set " + std::to_string(si) + " block " + std::to_string(b) + " step " + std::to_string(at);
        const ec::Piece& pc = p.pieces[static_cast<std::size_t>(i)];
        if (pc.set != si || pc.block != b || pc.step_begin != at || pc.step_end <= at || pc.step_end > b1)
          return where + " is set " + std::to_string(pc.set) + " block " + std::to_string(pc.block) + " steps [" +
                 std::to_string(pc.step_begin) + ", " + std::to_string(pc.step_end) + "), expected set " + std::to_string(si) +
                 " block " + std::to_string(b) + " from step " + std::to_string(at) + " to at most " + std::to_string(b1);
        if (pc.partial != owner.size())
          return where + " stores to partial " + std::to_string(pc.partial) + ", expected " + std::to_string(owner.size());
        for (int k = 0; k < s.group; ++k) owner.push_back(s.rows[static_cast<std::size_t>(b * s.group + k)]);
        at = pc.step_end;
      }
      // Each lane's running column at each of the block's pieces.
      for (int l = 0; l < ec::kLanes; ++l) {
        std::int64_t c = s.bases[static_cast<std::size_t>(b * ec::kLanes + l)];
        for (std::int64_t q = first; q < i; ++q) {
          const ec::Piece& pc = p.pieces[static_cast<std::size_t>(q)];
          if (p.lane_start[static_cast<std::size_t>(q * ec::kLanes + l)] != c)
            return "piece " + std::to_string(q) + " lane " + std::to_string(l) + " starts at column " +
                   std::to_string(p.lane_start[static_cast<std::size_t>(q * ec::kLanes + l)]) + ", the walk is at " + std::to_string(c);
          for (std::int64_t j = (std::int64_t{pc.step_begin} - b0) * s.vec; j < (std::int64_t{pc.step_end} - b0) * s.vec; ++j)
            c += s.delta(b0 * s.step_slots() + ec::slot_position(j, l, s.vec), a.delta_bits);
        }
      }
    }
  }
  if (i != pieces) return std::to_string(pieces) + " pieces, the sets' steps need " + std::to_string(i);
  if (static_cast<std::int64_t>(owner.size()) != p.partials)
    return std::to_string(p.partials) + " partials, the pieces store " + std::to_string(owner.size());
  for (std::int64_t r = 0; r < a.rows; ++r)
    if (p.row_part_ptr[r + 1] < p.row_part_ptr[r]) return "row_part_ptr decreases at row " + std::to_string(r);
  for (std::int64_t r = 0; r < a.rows; ++r) {
    for (std::uint32_t k = p.row_part_ptr[r]; k < p.row_part_ptr[r + 1]; ++k) {
      const std::uint32_t q = p.row_parts[k];
      // Strictly increasing and owned by r: with as many entries as partials, each is listed once.
      if (q >= owner.size() || owner[q] != r || (k > p.row_part_ptr[r] && q <= p.row_parts[k - 1]))
        return "row " + std::to_string(r) + " lists partial " + std::to_string(q) + " out of order or of another row";
    }
  }
  return std::nullopt;
}

}  // namespace warpsparse
