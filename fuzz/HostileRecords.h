#pragma once
// Structure-aware fuzzing of the .vscap record decoder: turns fuzzer bytes into one chunk's worth of
// correctly framed records (kind, length, body) whose bodies are varints chosen to be hostile counts
// and ids (0, one past a table, 2^32, 2^63, all ones) mixed with small ones, of every kind up to
// BlockAnnotation; and ring_buffer Meta records, well formed or not. Random bytes rarely
// frame a record; these reach every record's count and id checks.
#include "FuzzBytes.h"
#include "io/VscapFormat.h"

#include <string>

namespace vs::fuzz {

inline std::string hostileRecords(FuzzBytes& in) {
    static constexpr uint64_t kCounts[] = {
        0, 1, 2, 3, 255, 1024, 1025, 1ull << 20, 1ull << 28, UINT32_MAX, 1ull << 32, 1ull << 63, UINT64_MAX};
    // ring_buffer meta values: what VscapExport writes, and what it never would (issue 47: -5 read as
    // 18446744073709551611; a device no other record names).
    static constexpr const char* kRingBuffer[] = {
        "0 overflowed 7", "0 kept",  "7 kept 100",       "0 kept -5",    "0 kept 18446744073709551616",
        "-1 kept",        "0  kept", "65536 overflowed", "0 kept 5 more"};
    vscap::ByteWriter out;
    for (size_t r = 0, n = 1 + in.below(12); r < n; ++r) {
        uint32_t kind = in.below(16) == 15 ? 99 : 1 + static_cast<uint32_t>(in.below(21));
        vscap::ByteWriter body;
        const bool ring = in.below(8) == 0;
        if (ring) { // a Meta ring_buffer record
            kind = uint32_t(vscap::Record::Meta);
            body.varint(vscap::kRingBufferMeta.size()), body.bytes(vscap::kRingBufferMeta);
            body.bytes(kRingBuffer[in.below(sizeof kRingBuffer / sizeof kRingBuffer[0])]);
        }
        for (size_t i = 0, m = ring ? 0 : in.below(24); i < m; ++i) {
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
