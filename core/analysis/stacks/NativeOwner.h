#pragma once
// Who made a device allocation recorded at the CUDA level (the CUPTI agent): the program's own
// code, or a framework's allocator or a library that keeps memory by design — PyTorch's caching
// allocator (segments that hold tensors), its cudaMallocAsync backend, cuBLAS/cuBLASLt/cuDNN
// handles and workspaces, NCCL buffers, CuPy's and Triton's pools. Those are caches and
// workspaces: named, grouped apart, never the user's leak.
#include "model/Capture.h"

#include <string_view>

namespace vs {

enum class NativeOwner : uint8_t {
    User,
    TorchCache,
    TorchAsync,
    Cublas,
    CublasLt,
    Cudnn,
    Nccl,
    CuPy,
    Triton
};

// The owner of a stack: the innermost frame that belongs to a known allocator or library decides.
NativeOwner nativeOwner(const Capture& c, StackId s);
// "PyTorch's caching allocator", "cuBLAS", ...; empty for User.
std::string_view nativeOwnerName(NativeOwner o);
// True when a native frame is a framework's or runtime's own code (PyTorch, CUDA libraries, the
// Python interpreter): shown, but not the user's.
bool isLibraryModule(std::string_view filename);

} // namespace vs
