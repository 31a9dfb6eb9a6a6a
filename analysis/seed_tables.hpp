// Numbers the seeds publish, transcribed for comparison: tests and notebooks check the models
// against them; no model reads them.
#pragma once

namespace warpsparse::analysis {

// macko-blog.txt, "Storage overview table": effective density for 16-bit values and 4-bit
// deltas, printed with 1 (CSR) and 3 (MACKO) decimals.
struct BlogStorageRow {
  double density, csr32, csr16, best, expected, worst;
};
inline constexpr BlogStorageRow kBlogStorageTable[] = {
    {1.0, 3.0, 2.0, 1.250, 1.250, 1.250}, {0.9, 2.7, 1.8, 1.125, 1.125, 1.133},
    {0.8, 2.4, 1.6, 1.000, 1.000, 1.016}, {0.7, 2.1, 1.4, 0.875, 0.875, 0.898},
    {0.6, 1.8, 1.2, 0.750, 0.750, 0.781}, {0.5, 1.5, 1.0, 0.625, 0.625, 0.664},
    {0.4, 1.2, 0.8, 0.500, 0.500, 0.547}, {0.3, 0.9, 0.6, 0.375, 0.376, 0.430},
    {0.2, 0.6, 0.4, 0.250, 0.257, 0.312}, {0.1, 0.3, 0.2, 0.125, 0.153, 0.195}};
inline constexpr int kBlogCsrDecimals = 1;
inline constexpr int kBlogMackoDecimals = 3;

// ec-spmv-paper.txt §8.2, Table 2: padding overhead of EC-CSR with 4- and 8-bit delta indices on
// SparseGPT-pruned Llama2 matrices, in percent, at sparsity 70%, 80%, 90%.
struct EcPaddingRow {
  double sparsity, ec_csr4_pct, ec_csr8_pct;
};
inline constexpr EcPaddingRow kEcSpmvPaddingTable[] = {{0.7, 6.35, 0.75}, {0.8, 7.39, 0.71}, {0.9, 30.43, 1.87}};

// ec-spmv-paper.txt §8.2, the paragraph after Figure 9 ("Storage overhead"): storage reduction of
// EC-CSR against CSR-32 (1 - bytes(EC-CSR) / bytes(CSR-32)), in percent. The seed says "at three
// sparsity levels" without naming them; like docs/ec-spmv.md we read them in Table 2's order
// (70 / 80 / 90 %), each an average over the paper's SparseGPT-pruned LLaMA / OPT matrices.
struct EcReductionRow {
  double sparsity;
  double fp16_ec8_pct, fp16_ec4_pct;  // FP16 values
  double fp32_ec8_pct, fp32_ec4_pct;  // FP32 values
};
inline constexpr EcReductionRow kEcSpmvReductionTable[] = {
    {0.7, 52.0, 55.4, 38.9, 40.9}, {0.8, 49.9, 53.5, 37.3, 38.2}, {0.9, 45.8, 41.3, 33.7, 22.7}};

}  // namespace warpsparse::analysis
