#pragma once
// The one encoder of .vscap record bodies (docs/vscap.md). Every C++ writer - the exporter
// (VscapExport) and the CUPTI agent (capture/cupti) - writes its records through these structs, so a
// layout is spelled out once. The Python recorder's tracker module compiles these same files
// (capture/python/vramscope/_codec.cpp); only its pure-Python fallback (codec.py) is a second
// spelling, checked byte for byte against them (test_codec_parity.py, and tests/golden/vscap made by
// tst_vscap_codec from these encoders). Standard library only: the agent is injected into any program.
//
// Each struct names its record kind (kRecord) and appends its body to a ByteWriter; Writer::write()
// frames it into the current chunk. The larger records (Segments, Settings, Retention) are in
// VscapEncodeState.h, the Events columns in VscapEvents.h.
#include "VscapFormat.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace vs::vscap {

// kind · length · body: how a record sits in a chunk's raw bytes.
inline void appendRecord(ByteWriter& out, Record kind, std::string_view body) {
    out.varint(static_cast<uint32_t>(kind));
    out.varint(body.size());
    out.bytes(body);
}

// A record with its framing, as it sits in a chunk (tests, golden files).
template <class R> std::string recordBytes(const R& r) {
    ByteWriter body, out;
    r.encode(body);
    appendRecord(out, R::kRecord, body.str());
    return out.str();
}

struct StringRecord { // string ids count from 1 in record order (0 is "")
    static constexpr Record kRecord = Record::String;
    std::string_view text;
    void encode(ByteWriter& b) const { b.bytes(text); }
};

struct FrameRecord { // frame ids count from 0 in record order
    static constexpr Record kRecord = Record::Frame;
    uint64_t name, file, line; // string ids, line
    void encode(ByteWriter& b) const { b.varint(name), b.varint(file), b.varint(line); }
};

struct StackRecord { // stack ids count from 1 (0 is the empty stack)
    static constexpr Record kRecord = Record::Stack;
    std::span<const uint64_t> frames; // frame ids, innermost first
    void encode(ByteWriter& b) const {
        b.varint(frames.size());
        for (uint64_t f : frames) b.varint(f);
    }
};

struct StreamRecord { // stream ids count from 0
    static constexpr Record kRecord = Record::Stream;
    uint64_t raw; // the cudaStream_t value
    void encode(ByteWriter& b) const { b.varint(raw); }
};

struct DeviceRecord {
    static constexpr Record kRecord = Record::Device;
    int64_t ordinal;
    uint64_t totalMemory; // bytes
    std::string_view name;
    void encode(ByteWriter& b) const { b.svarint(ordinal), b.varint(totalMemory), b.bytes(name); }
};

struct AnnotationRecord {
    static constexpr Record kRecord = Record::Annotation;
    int64_t device, timeUs;
    bool start;    // stage 0 START, 1 END
    uint64_t name; // string id
    void encode(ByteWriter& b) const {
        b.svarint(device), b.svarint(timeUs), b.u8(start ? 0 : 1), b.varint(name);
    }
};

struct MarkRecord {
    static constexpr Record kRecord = Record::Mark;
    int64_t device, timeUs;
    uint64_t name; // string id
    int64_t value;
    void encode(ByteWriter& b) const {
        b.svarint(device), b.svarint(timeUs), b.varint(name), b.svarint(value);
    }
};

struct ClockSyncRecord {
    static constexpr Record kRecord = Record::ClockSync;
    int64_t monotonicNs, realtimeNs;
    void encode(ByteWriter& b) const { b.svarint(monotonicNs), b.svarint(realtimeNs); }
};

struct EventTextRecord {
    static constexpr Record kRecord = Record::EventText;
    int64_t device;
    uint64_t index;   // of the event within its device
    uint8_t textKind; // 0 compile context, 1 user metadata
    uint64_t text;    // string id
    void encode(ByteWriter& b) const { b.svarint(device), b.varint(index), b.u8(textKind), b.varint(text); }
};

struct BlockAnnotationRecord {
    static constexpr Record kRecord = Record::BlockAnnotation;
    int64_t device;
    int64_t timeUs;
    uint64_t address; // the annotated block's base address
    uint64_t text;    // string id
    uint64_t stack;   // stack id (0: none)
    void encode(ByteWriter& b) const {
        b.svarint(device), b.svarint(timeUs), b.varint(address), b.varint(text), b.varint(stack);
    }
};

struct DroppedRecord {
    static constexpr Record kRecord = Record::Dropped;
    uint64_t count; // since the previous Dropped record
    void encode(ByteWriter& b) const { b.varint(count); }
};

struct MetaRecord {
    static constexpr Record kRecord = Record::Meta;
    std::string_view key, value;
    void encode(ByteWriter& b) const { b.varint(key.size()), b.bytes(key), b.bytes(value); }
};

struct ReserveRecord {
    static constexpr Record kRecord = Record::Reserve;
    int64_t device;
    uint64_t events; // the device's expected event count
    void encode(ByteWriter& b) const { b.svarint(device), b.varint(events); }
};

struct TagsRecord {
    static constexpr Record kRecord = Record::Tags;
    int64_t device, timeUs;
    std::span<const std::pair<uint64_t, uint8_t>> tags; // (storage address, TagKind)
    void encode(ByteWriter& b) const {
        b.svarint(device), b.svarint(timeUs), b.varint(tags.size());
        for (const auto& [address, kind] : tags) b.varint(address), b.u8(kind);
    }
};

struct DriverMemoryRecord {
    static constexpr Record kRecord = Record::DriverMemory;
    int64_t device, timeUs;
    uint64_t deviceUsed, processUsed; // 0 = not known
    void encode(ByteWriter& b) const {
        b.svarint(device), b.svarint(timeUs), b.varint(deviceUsed), b.varint(processUsed);
    }
};

struct PartRecord { // must be alone in its chunk
    static constexpr Record kRecord = Record::Part;
    uint64_t level = 1; // 1: the CUPTI agent's recording of the same process
    void encode(ByteWriter& b) const { b.varint(level); }
};

struct EndRecord {
    static constexpr Record kRecord = Record::End;
    void encode(ByteWriter&) const {}
};

} // namespace vs::vscap
