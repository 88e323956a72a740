#pragma once
// The encoders of the records that describe a state rather than one moment: the allocator's final
// block list (Segments), its settings (Settings) and a retention graph (Retention). Part of the one
// .vscap encoder (VscapEncode.h says why it is the only one); plain fields, so that the exporter
// (model types) and the CUPTI agent (its own book) feed the same code.
#include "VscapEncode.h"

#include <array>
#include <utility>

namespace vs::vscap {

struct BlockFields {
    uint64_t offset; // from the segment's address
    uint64_t size, requestedSize;
    uint8_t state; // 0 inactive, 1 active_allocated, 2 active_pending_free
    uint64_t stack;
};

struct SegmentFields {
    uint64_t address, totalSize, stream; // stream: the raw cudaStream_t
    bool expandable, smallPool;
    uint64_t pool0, pool1, stack;
    std::span<const BlockFields> blocks;
};

struct SegmentsRecord { // a later one replaces an earlier one of the same device
    static constexpr Record kRecord = Record::Segments;
    int64_t device;
    std::span<const SegmentFields> segments;
    void encode(ByteWriter& b) const {
        b.svarint(device), b.varint(segments.size());
        for (const SegmentFields& s : segments) {
            b.varint(s.address), b.varint(s.totalSize), b.varint(s.stream);
            b.u8(static_cast<uint8_t>((s.expandable ? 1 : 0) | (s.smallPool ? 2 : 0)));
            b.varint(s.pool0), b.varint(s.pool1), b.varint(s.stack);
            b.varint(s.blocks.size());
            for (const BlockFields& k : s.blocks)
                b.varint(k.offset), b.varint(k.size), b.varint(k.requestedSize), b.u8(k.state),
                    b.varint(k.stack);
        }
    }
};

struct SettingsRecord {
    static constexpr Record kRecord = Record::Settings;
    bool expandableSegments;
    uint64_t maxSplitSize; // 2^64-1: unlimited
    uint64_t maxNonSplitRounding;
    double garbageCollectionThreshold;
    std::array<uint32_t, 16> roundupPower2Divisions;          // interval k = [2^k, 2^(k+1)) MiB
    std::string_view allocConf;                               // PYTORCH_CUDA_ALLOC_CONF
    std::span<const std::pair<std::string, std::string>> raw; // every key, printed
    void encode(ByteWriter& b) const {
        b.u8(expandableSegments ? 1 : 0);
        b.varint(maxSplitSize), b.varint(maxNonSplitRounding), b.f64(garbageCollectionThreshold);
        for (uint32_t div : roundupPower2Divisions) b.varint(div);
        b.varint(allocConf.size()), b.bytes(allocConf);
        b.varint(raw.size());
        for (const auto& [k, v] : raw) b.varint(k.size()), b.bytes(k), b.varint(v.size()), b.bytes(v);
    }
};

struct RetentionNodeFields {
    uint8_t kind;         // RetentionNodeKind
    uint64_t type, label; // string ids
    uint64_t gpuBytes, address;
};

struct RetentionEdgeFields {
    uint64_t src, dst; // node indices: src keeps dst alive
    uint8_t kind;      // RetentionEdgeKind
    uint64_t label;    // string id
};

struct RetentionRecord {
    static constexpr Record kRecord = Record::Retention;
    static constexpr uint64_t kLayout = 1; // readers skip other layouts
    int64_t device, timeUs;
    uint64_t trigger; // string id
    bool truncated;
    uint64_t objectsScanned, millis;
    std::span<const RetentionNodeFields> nodes;
    std::span<const RetentionEdgeFields> edges;
    void encode(ByteWriter& b) const {
        b.varint(kLayout), b.svarint(device), b.svarint(timeUs), b.varint(trigger);
        b.varint(truncated ? 1 : 0), b.varint(objectsScanned), b.varint(millis);
        b.varint(nodes.size());
        for (const auto& n : nodes)
            b.u8(n.kind), b.varint(n.type), b.varint(n.label), b.varint(n.gpuBytes), b.varint(n.address);
        b.varint(edges.size());
        for (const auto& e : edges) b.varint(e.src), b.varint(e.dst), b.u8(e.kind), b.varint(e.label);
    }
};

} // namespace vs::vscap
