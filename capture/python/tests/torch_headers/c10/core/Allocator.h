#pragma once
// A stand-in for the one type of PyTorch's c10/core/Allocator.h the recorder's headers use (see
// torch/csrc/profiler/combined_traceback.h here).
namespace c10 {
struct GatheredContext {
    virtual ~GatheredContext() = default;
};
} // namespace c10
