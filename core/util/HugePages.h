#pragma once
// Transparent huge pages under a big contiguous table: first-touch page faults of 4 KiB pages
// otherwise cost as much as filling it (measured on the 2M capture: the event columns while
// decoding, the unpickler's memo and container table while parsing).
#include <cstdint>
#include <vector>

#include <sys/mman.h>

namespace vs {

template <class T> void adviseHugePages(const std::vector<T>& v) {
    const size_t bytes = v.capacity() * sizeof(T);
    if (bytes < (8u << 20)) return;
    constexpr uintptr_t kPage = 4096;
    const auto begin = (reinterpret_cast<uintptr_t>(v.data()) + kPage - 1) & ~(kPage - 1);
    const auto end = (reinterpret_cast<uintptr_t>(v.data()) + bytes) & ~(kPage - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// Room for n elements on huge pages, advised before anything touches them (the pages come huge at
// the first fault, with no later collapse). The per-allocation tables of 100M events are read at
// strides of kilobytes by a click's passes: with 4 KiB pages every read is also a TLB miss.
template <class T> void reserveHuge(std::vector<T>& v, size_t n) {
    v.reserve(n);
    adviseHugePages(v);
}

} // namespace vs
