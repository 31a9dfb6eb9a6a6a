// The DLPack structs this package exchanges, written from the DLPack specification (dlpack.h,
// v0.8 for the unversioned DLManagedTensor of the "dltensor" capsule, v1.0 for DLManagedTensorVersioned
// of "dltensor_versioned"; https://dmlc.github.io/dlpack/latest/c_api.html). Only the layout and
// the enum values we read or write; the ABI is C, so these are plain structs in the same order.
#pragma once
#include <cstdint>

namespace warpsparse::py::dlpack {

enum DeviceType : std::int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };
enum DataTypeCode : std::uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4 };

struct DLDevice {
  std::int32_t device_type;
  std::int32_t device_id;
};
struct DLDataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null: C order
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
struct DLPackVersion {
  std::uint32_t major;
  std::uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  std::uint64_t flags;  // bit 0: read only
  DLTensor dl_tensor;
};
inline constexpr std::uint64_t kDLPackFlagBitmaskReadOnly = 1;

inline constexpr char kCapsuleName[] = "dltensor";
inline constexpr char kUsedCapsuleName[] = "used_dltensor";
inline constexpr char kVersionedCapsuleName[] = "dltensor_versioned";

}  // namespace warpsparse::py::dlpack
