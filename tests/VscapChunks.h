#pragma once
// Test helper: where a .vscap stream's chunks end, to hand out a recording piece by piece as a
// recorder would write it (tst_live, tst_remote).
#include "io/VscapReader.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace vs::test {

// The byte offset just after the k-th chunk (0-based) of a .vscap stream.
inline size_t afterChunk(const std::string& s, size_t k) {
    size_t pos = vscap::kHeaderSize;
    for (size_t i = 0; i <= k; ++i) {
        uint32_t stored;
        std::memcpy(&stored, s.data() + pos + 8, 4);
        pos += vscap::kChunkHeaderSize + stored;
    }
    return pos;
}

} // namespace vs::test
