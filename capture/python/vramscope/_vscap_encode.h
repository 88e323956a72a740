#pragma once
// The torch extension's .vscap encoders (_tracker.cpp): varints, the String/Frame/Stack/Stream
// records of its interner and the Events columns. A copy of core/io's codec (VscapEncode.h,
// VscapEvents.h) because the extension is compiled on the user's machine from the installed package,
// which has no core/. Standard library only and free of torch, so that tests/tst_vscap_codec compiles
// it and checks its records byte for byte against the golden files that core's codec writes
// (tests/golden/vscap). Change the layout in core/io first, then here.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace vramscope_tracker {

inline void varint(std::string& out, uint64_t v) {
    while (v >= 0x80) out.push_back(static_cast<char>(v | 0x80)), v >>= 7;
    out.push_back(static_cast<char>(v));
}
inline void svarint(std::string& out, int64_t v) {
    varint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
inline void record(std::string& out, uint32_t kind, const std::string& body) {
    varint(out, kind), varint(out, body.size()), out += body;
}
enum : uint32_t { kString = 1, kFrame = 2, kStack = 3, kStream = 4, kEvents = 7 };

// File ids; new definitions go to `pending` ahead of the records that use them. The same numbering
// as vscap.py's Interner: a frame's name is interned before its file.
struct Interner {
    std::unordered_map<std::string, uint64_t> strings{{"", 0}};
    std::map<std::tuple<uint64_t, uint64_t, uint64_t>, uint64_t> frames;
    std::map<std::vector<uint64_t>, uint64_t> stacks{{{}, 0}};
    std::unordered_map<uint64_t, uint64_t> streams;
    std::string pending;

    uint64_t string(const std::string& s) {
        auto [it, fresh] = strings.emplace(s, strings.size());
        if (fresh) record(pending, kString, s);
        return it->second;
    }
    uint64_t frame(const std::string& file, const std::string& name, uint64_t line) {
        const uint64_t nameId = string(name); // before the file: argument order is unspecified
        const uint64_t fileId = string(file);
        auto [it, fresh] = frames.emplace(std::make_tuple(fileId, nameId, line), frames.size());
        if (fresh) {
            std::string b;
            varint(b, nameId), varint(b, fileId), varint(b, line);
            record(pending, kFrame, b);
        }
        return it->second;
    }
    uint64_t stack(const std::vector<uint64_t>& ids) {
        auto [it, fresh] = stacks.emplace(ids, stacks.size());
        if (fresh) {
            std::string b;
            varint(b, ids.size());
            for (uint64_t f : ids) varint(b, f);
            record(pending, kStack, b);
        }
        return it->second;
    }
    uint64_t stream(uint64_t raw) {
        auto [it, fresh] = streams.emplace(raw, streams.size());
        if (fresh) {
            std::string b;
            varint(b, raw);
            record(pending, kStream, b);
        }
        return it->second;
    }
};

struct EventFields {
    int64_t timeUs;
    uint64_t addr, size;
    uint8_t action;  // c10's TraceEntry::Action
    uint64_t stream; // the raw cudaStream_t, interned here
    uint64_t stack;  // a stack id
};

// One device's events (n > 0, in order) as an Events record; `at(i)` gives the i-th EventFields.
// Streams are interned first, so their definitions (taken from `in.pending`) precede the record.
template <class At> void encodeEvents(std::string& out, Interner& in, int device, size_t n, At at) {
    std::string b, cols[6];
    svarint(b, device), varint(b, n), svarint(b, at(0).timeUs);
    int64_t prevT = at(0).timeUs;
    uint64_t prevA = 0;
    for (size_t i = 0; i < n; ++i) {
        const EventFields e = at(i);
        cols[0].push_back(static_cast<char>(e.action));
        svarint(cols[1], e.timeUs - prevT), prevT = e.timeUs;
        svarint(cols[2], static_cast<int64_t>(e.addr - prevA)), prevA = e.addr;
        varint(cols[3], e.size);
        varint(cols[4], in.stream(e.stream));
        varint(cols[5], e.stack);
    }
    for (auto& c : cols) b += c;
    out += in.pending, in.pending.clear();
    record(out, kEvents, b);
}

} // namespace vramscope_tracker
