// Status checks for the vendor libraries the benchmarks call (cuBLAS; cuSPARSE where included).
#pragma once
#include <cublas_v2.h>

#include <string>

#include "reference/common/error.hpp"

namespace warpsparse::bench {

inline void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error(std::string(what) + ": " + cublasGetStatusString(s));
}

}  // namespace warpsparse::bench

#define WS_CUBLAS(call) ::warpsparse::bench::check_cublas((call), #call)
