#pragma once
// The compiled recorder's file ids: strings, frames, stacks and streams numbered in first-use order,
// each new one defined by a record in `pending` ahead of the records that use it. The records
// themselves are core's codec (io/VscapEncode.h, io/VscapEvents.h: the same source files, found
// through the include path that native.py gives the compiler), so no layout is spelled out here.
// The same numbering as codec.py's Interner, the pure-Python fallback: a frame's name is interned
// before its file. Standard library only and free of torch, so that tests/tst_vscap_codec compiles
// it and checks it against the golden files.
#include "io/VscapEncode.h"
#include "io/VscapEvents.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace vramscope_tracker {

using vs::vscap::recordBytes;

struct Interner {
    std::unordered_map<std::string, uint64_t> strings{{"", 0}};
    std::map<std::tuple<uint64_t, uint64_t, uint64_t>, uint64_t> frames;
    std::map<std::vector<uint64_t>, uint64_t> stacks{{{}, 0}};
    std::unordered_map<uint64_t, uint64_t> streams;
    std::string pending;

    uint64_t string(const std::string& s) {
        auto [it, fresh] = strings.emplace(s, strings.size());
        if (fresh) pending += recordBytes(vs::vscap::StringRecord{s});
        return it->second;
    }
    // A line beyond int64 is PyTorch's wrapped -1 (PyCode_Addr2Line: no line): 0, as the records
    // written from Python give it (codec.py, _codec.cpp clamp negative lines to 0).
    uint64_t frame(const std::string& file, const std::string& name, uint64_t line) {
        if (line > uint64_t(INT64_MAX)) line = 0;
        const uint64_t nameId = string(name); // before the file: argument order is unspecified
        const uint64_t fileId = string(file);
        auto [it, fresh] = frames.emplace(std::make_tuple(fileId, nameId, line), frames.size());
        if (fresh) pending += recordBytes(vs::vscap::FrameRecord{nameId, fileId, line});
        return it->second;
    }
    uint64_t stack(const std::vector<uint64_t>& ids) {
        auto [it, fresh] = stacks.emplace(ids, stacks.size());
        if (fresh) pending += recordBytes(vs::vscap::StackRecord{ids});
        return it->second;
    }
    uint64_t stream(uint64_t raw) {
        auto [it, fresh] = streams.emplace(raw, streams.size());
        if (fresh) pending += recordBytes(vs::vscap::StreamRecord{raw});
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
template <class At> void encodeEvents(std::string& out, Interner& in, int64_t device, size_t n, At at) {
    std::vector<uint64_t> streams(n);
    for (size_t i = 0; i < n; ++i) streams[i] = in.stream(at(i).stream);
    vs::vscap::ByteWriter body, framed;
    vs::vscap::writeEventsBody(body, int(device), n, [&](size_t i) {
        const EventFields e = at(i);
        return vs::vscap::EventFields{e.timeUs, e.addr, e.size, vs::Action(e.action), streams[i], e.stack};
    });
    vs::vscap::appendRecord(framed, vs::vscap::Record::Events, body.str());
    out += in.pending, in.pending.clear();
    out += framed.str();
}

} // namespace vramscope_tracker
