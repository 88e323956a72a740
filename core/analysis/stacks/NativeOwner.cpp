#include "analysis/stacks/NativeOwner.h"

#include <array>

namespace vs {
namespace {

bool has(std::string_view s, std::string_view part) {
    return s.find(part) != std::string_view::npos;
}

NativeOwner ownerOfFrame(std::string_view name, std::string_view file) {
    if (has(name, "CudaMallocAsync")) return NativeOwner::TorchAsync;
    if (has(name, "CUDACachingAllocator") || has(name, "DeviceCachingAllocator"))
        return NativeOwner::TorchCache;
    if (has(file, "libcublasLt")) return NativeOwner::CublasLt;
    if (has(file, "libcublas")) return NativeOwner::Cublas;
    if (has(file, "libcudnn")) return NativeOwner::Cudnn;
    if (has(file, "libnccl")) return NativeOwner::Nccl;
    if (has(file, "/cupy") || has(file, "cupy_backends")) return NativeOwner::CuPy;
    if (has(file, "/triton/")) return NativeOwner::Triton;
    return NativeOwner::User;
}

} // namespace

NativeOwner nativeOwner(const Capture& c, StackId s) {
    for (FrameId f : c.stacks.frames(s)) {
        const auto o = ownerOfFrame(c.strings.text(c.frames[f].name), c.strings.text(c.frames[f].filename));
        if (o != NativeOwner::User) return o;
    }
    return NativeOwner::User;
}

std::string_view nativeOwnerName(NativeOwner o) {
    switch (o) {
    case NativeOwner::TorchCache:
        return "PyTorch's caching allocator";
    case NativeOwner::TorchAsync:
        return "PyTorch's cudaMallocAsync allocator";
    case NativeOwner::Cublas:
        return "cuBLAS";
    case NativeOwner::CublasLt:
        return "cuBLASLt";
    case NativeOwner::Cudnn:
        return "cuDNN";
    case NativeOwner::Nccl:
        return "NCCL";
    case NativeOwner::CuPy:
        return "CuPy";
    case NativeOwner::Triton:
        return "Triton";
    case NativeOwner::User:
        break;
    }
    return {};
}

bool isLibraryModule(std::string_view file) {
    static constexpr std::array<std::string_view, 12> libraries = {
        "/torch/lib/", "libtorch", "libc10",         "libcublas",      "libcudnn",   "libnccl",
        "libpython",   "/python3", "site-packages/", "dist-packages/", "libcuda.so", "libcudart.so"};
    for (auto l : libraries)
        if (has(file, l)) return true;
    return false;
}

} // namespace vs
