#pragma once
// What a stream-ordered memory pool (cudaMallocAsync) holds beyond its live allocations is recorded
// by the CUPTI agent as a free segment at a synthetic address in the kernel half of the address
// space, which no device allocation ever has: pool i's cache at kPoolCacheBase + i * 2^40.
#include <cstdint>

namespace vs {

constexpr uint64_t kPoolCacheBase = 0xffff800000000000ull;
constexpr int kPoolCacheShift = 40;

constexpr bool isPoolCache(uint64_t address) {
    return address >= kPoolCacheBase;
}
constexpr uint64_t poolCacheIndex(uint64_t address) {
    return (address - kPoolCacheBase) >> kPoolCacheShift;
}

} // namespace vs
