#pragma once
// LEB128 varints and zigzag signs over byte vectors: small numbers in few bytes, for what is kept
// packed in memory (analysis/PackedState.h). The .vscap codec keeps its own (io/VscapFormat.h): it is
// linked into the CUPTI agent without the other layers.
#include <cstdint>
#include <vector>

namespace vs {

inline uint64_t zigzag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t unzigzag(uint64_t v) {
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

inline void appendVarint(std::vector<uint8_t>& out, uint64_t v) {
    for (; v >= 0x80; v >>= 7) out.push_back(static_cast<uint8_t>(v | 0x80));
    out.push_back(static_cast<uint8_t>(v));
}

// Reads a varint that the caller wrote (no bounds check: packed data never comes from a file).
inline uint64_t readVarint(const uint8_t*& p) {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        const uint8_t b = *p++;
        v |= static_cast<uint64_t>(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
}

} // namespace vs
