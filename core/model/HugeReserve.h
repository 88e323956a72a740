#pragma once
// Reserves a big column with transparent huge pages: first-touch page faults otherwise cost as
// much as filling it (measured decoding the 2M capture, and growing live snapshots on a VM).
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vs {

template <class T> void reserveHuge(std::vector<T>& v, size_t n) {
    v.reserve(n);
    const size_t bytes = v.capacity() * sizeof(T);
    if (bytes < (8u << 20)) return;
    constexpr uintptr_t kPage = 4096;
    const auto begin = (reinterpret_cast<uintptr_t>(v.data()) + kPage - 1) & ~(kPage - 1);
    const auto end = (reinterpret_cast<uintptr_t>(v.data()) + bytes) & ~(kPage - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

} // namespace vs
