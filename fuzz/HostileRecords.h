#pragma once
// Structure-aware fuzzing of the .vscap record decoder: turns fuzzer bytes into one chunk's worth of
// correctly framed records (kind, length, body) whose bodies are varints chosen to be hostile counts
// and ids (0, one past a table, 2^32, 2^63, all ones) mixed with small ones. Random bytes rarely
// frame a record; these reach every record's count and id checks.
#include "FuzzBytes.h"
#include "io/VscapFormat.h"

#include <string>

namespace vs::fuzz {

inline std::string hostileRecords(FuzzBytes& in) {
    static constexpr uint64_t kCounts[] = {
        0, 1, 2, 3, 255, 1024, 1025, 1ull << 20, 1ull << 28, UINT32_MAX, 1ull << 32, 1ull << 63, UINT64_MAX};
    vscap::ByteWriter out;
    for (size_t r = 0, n = 1 + in.below(12); r < n; ++r) {
        const uint32_t kind = in.below(16) == 15 ? 99 : 1 + static_cast<uint32_t>(in.below(20));
        vscap::ByteWriter body;
        for (size_t i = 0, m = in.below(24); i < m; ++i) {
            const uint8_t b = in.byte();
            if ((b & 3) == 0)
                body.varint(kCounts[(b >> 2) % (sizeof kCounts / sizeof kCounts[0])]);
            else if ((b & 3) == 1)
                body.svarint(static_cast<int64_t>(in.u64()));
            else if ((b & 3) == 2)
                body.bytes("train.py");
            else
                body.varint(b >> 2);
        }
        out.varint(kind);
        out.varint(in.below(8) == 0 ? body.size() + in.below(4) : body.size()); // now and then a lying length
        out.bytes(body.str());
    }
    return out.str();
}

} // namespace vs::fuzz
