// The DeviceFacts (reference/device/device_facts.hpp) of a CUDA device, read from the runtime, so the
// schedule policies plan with the device a program runs on.
#pragma once
#include "reference/device/device_facts.hpp"

namespace warpsparse::gpu {

// The facts of `device` (-1: the current one), read once per device and process.
const DeviceFacts& device_facts(int device = -1);

}  // namespace warpsparse::gpu
