#pragma once
// The body of an Events record (docs/vscap.md): six columns - actions, time deltas, address
// deltas, sizes, stream ids, stack ids. One encoder for every C++ writer (the exporter, the CUPTI
// agent); `at(i)` returns the i-th event as EventFields.
#include "VscapFormat.h"
#include "model/Action.h"

#include <cstddef>
#include <cstdint>

namespace vs::vscap {

struct EventFields {
    int64_t timeUs;
    uint64_t addr, size;
    Action action;
    uint64_t stream, stack; // file ids
};

template <class At> void writeEventsBody(ByteWriter& b, int device, size_t n, At at) {
    if (n == 0) return;
    b.svarint(device), b.varint(n), b.svarint(at(0).timeUs);
    for (size_t i = 0; i < n; ++i) b.u8(static_cast<uint8_t>(at(i).action));
    int64_t t = at(0).timeUs;
    for (size_t i = 0; i < n; ++i) b.svarint(at(i).timeUs - t), t = at(i).timeUs;
    uint64_t a = 0;
    for (size_t i = 0; i < n; ++i) b.svarint(static_cast<int64_t>(at(i).addr - a)), a = at(i).addr;
    for (size_t i = 0; i < n; ++i) b.varint(at(i).size);
    for (size_t i = 0; i < n; ++i) b.varint(at(i).stream);
    for (size_t i = 0; i < n; ++i) b.varint(at(i).stack);
}

} // namespace vs::vscap
