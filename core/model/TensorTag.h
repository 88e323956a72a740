#pragma once
// What the PyTorch recorder saw a tensor to be at a moment: the optimizer's parameters, their
// gradients and its state after a step, the tensors fed to a model (Tags records). The storage's
// address names the allocation live at that moment; analysis/Categories decides the rest.
#include <cstdint>

namespace vs {

enum class TagKind : uint8_t { Parameter = 1, Gradient = 2, OptimizerState = 3, Input = 4 };

struct TensorTag {
    int device = 0;
    int64_t timeUs = 0;
    uint64_t address = 0; // the storage's data pointer
    TagKind kind = TagKind::Parameter;
};

} // namespace vs
