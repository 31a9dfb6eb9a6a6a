// The 31 weight shapes (rows x cols) of macko-paper.txt Appendix D, used by both benchmarks.
#pragma once
#include <array>
#include <cstdint>

namespace warpsparse::bench {

inline constexpr std::array<std::array<std::int64_t, 2>, 31> kPaperShapes{{
    {4096, 4096},   {8192, 8192},   {8192, 29568},  {32000, 5120},  {32000, 8192},  {28672, 8192},
    {5120, 5120},   {5120, 13824},  {3584, 20480},  {4096, 11008},  {13824, 5120},  {18944, 3584},
    {14336, 4096},  {4096, 14336},  {8192, 28672},  {11008, 4096},  {32000, 4096},  {20480, 3584},
    {3584, 18944},  {21504, 7168},  {7168, 7168},   {28672, 7168},  {7168, 28672},  {27648, 9216},
    {9216, 9216},   {36864, 9216},  {9216, 36864},  {36864, 12288}, {12288, 12288}, {49152, 12288},
    {12288, 49152}}};

}  // namespace warpsparse::bench
