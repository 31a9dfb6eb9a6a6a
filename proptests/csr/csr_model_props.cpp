// The CSR warp model against the double oracle, within the fp32 forward-error bound of each row's
// accumulation chain (csr_chain_length): 16- and 32-bit column indices, value types fp16/bf16/fp32/
// int8, alpha/beta including beta = 0 with NaN in y_old. The emulator must report no fault. On
// failure the case is written to ${build}/failures/.
#include "proptests/generators.hpp"
#include "proptests/spmv_cases.hpp"

using namespace warpsparse;
using namespace warpsparse::proptest;

namespace {

template <class T, class TY>
void csr_property() {
  const Recipe rec = *rc::gen::arbitrary<Recipe>().as("matrix");
  const bool narrow = *rc::gen::arbitrary<bool>().as("16-bit column indices");
  const Epilogue ep = gen_epilogue();
  const std::string failure = csr_case<T, TY>(build<T>(rec), narrow, ep.alpha, ep.beta, rec.seed);
  RC_ASSERT(failure == "");
}

}  // namespace

TEST_CASE("CSR warp model equals the oracle within the fp32 bound, without faults") {
  ws_prop("fp16 values, fp16 out", 600, [] { csr_property<half, half>(); });
  ws_prop("bf16 values, fp32 out", 400, [] { csr_property<bfloat16, float>(); });
  ws_prop("fp32 values, fp32 out", 400, [] { csr_property<float, float>(); });
  ws_prop("int8 values, fp16 out", 300, [] { csr_property<std::int8_t, half>(); });
}
