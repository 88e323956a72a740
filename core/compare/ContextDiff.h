#pragma once
// What differs between two captures apart from their events, said before any number: allocator
// settings (PYTORCH_CUDA_ALLOC_CONF changes every figure), devices, torch version, the recorder and
// what it recorded (a .vscap's facts against a snapshot pickle's), the program's arguments.
#include "model/Capture.h"

#include <string>
#include <vector>

namespace vs {

struct ContextDifference {
    std::string what; // "allocator: expandable_segments", "torch", "device 0"
    std::string a, b; // the values, "(none)" when one side does not say
};

std::vector<ContextDifference> contextDifferences(const Capture& a, const Capture& b);

} // namespace vs
