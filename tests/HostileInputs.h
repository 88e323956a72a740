#pragma once
// Generators of the hostile inputs of issue 31 (what runs after the reader): each a few lines, made
// by the test that needs it instead of a committed blob. Snapshots are PyTorch pickles written by
// PickleBuilder, traces torch.profiler JSON in the shape Kineto writes.
#include "PickleBuilder.h"
#include "io/VscapWriter.h"
#include "model/Action.h"

#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vs::test {

constexpr int64_t kEpochUs = 1700000000000000; // 2023-11-14, a plausible recording time

// One trace entry: {'action', 'addr', 'size', 'time_us', 'stream': 0} with shared keys.
inline PickleBuilder& traceEntry(PickleBuilder& p, const char* action, uint64_t addr, uint64_t size,
                                 int64_t t) {
    p.emptyDict().mark().key("action").key(action).key("addr").integer(int64_t(addr));
    return p.key("size").integer(int64_t(size)).key("time_us").integer(t).key("stream").integer(0).setitems();
}

// One final segment holding one block of its whole size in `state`.
inline PickleBuilder& wholeSegment(PickleBuilder& p, uint64_t addr, uint64_t size, const char* state) {
    p.emptyDict().mark().key("device").integer(0).key("address").integer(int64_t(addr));
    p.key("total_size").integer(int64_t(size)).key("stream").integer(0).key("segment_type").key("large");
    p.key("blocks").emptyList().mark().emptyDict().mark().key("address").integer(int64_t(addr));
    p.key("size").integer(int64_t(size)).key("requested_size").integer(int64_t(size)).key("state").key(state);
    return p.setitems().appends().setitems();
}

// {'segments': [...], 'device_traces': [[...]]} from two writers.
template <class Segments, class Trace> std::vector<uint8_t> snapshotOf(Segments segments, Trace trace) {
    PickleBuilder p;
    p.proto(4).emptyDict().mark().key("segments").emptyList().mark();
    segments(p);
    p.appends().key("device_traces").emptyList().mark().emptyList().mark();
    trace(p);
    return p.appends().appends().setitems().stop().bytes;
}

// A segment cudaMalloc'd for one request of `size` bytes (2^41: larger than any device), which is
// then freed: the what-if simulator's expandable segments grew past their reservation here.
inline std::vector<uint8_t> hugeRequestSnapshot(uint64_t size) {
    const uint64_t at = 1ull << 44;
    return snapshotOf([&](PickleBuilder& p) { wholeSegment(p, at, size, "inactive"); },
                      [&](PickleBuilder& p) {
                          traceEntry(p, "segment_alloc", at, size, kEpochUs);
                          traceEntry(p, "alloc", at, size, kEpochUs + 1);
                          traceEntry(p, "free_requested", at, size, kEpochUs + 2);
                          traceEntry(p, "free_completed", at, size, kEpochUs + 3);
                      });
}

// `n` segments of 2 MiB, each cudaMalloc'd for one allocation still alive at the end: every
// segment_alloc looked through all segments before (issue 31: past 20 s at 200k). Of 2^50 bytes
// (the largest size a reader takes), 8,192 add up past 2^63 (issue 47: a peak of 8191 PiB).
inline std::vector<uint8_t> manySegmentsSnapshot(uint32_t n, uint64_t size = 2ull << 20) {
    const uint64_t base = 1ull << 40;
    return snapshotOf(
        [&](PickleBuilder& p) {
            for (uint32_t i = 0; i < n; ++i) wholeSegment(p, base + i * size, size, "active_allocated");
        },
        [&](PickleBuilder& p) {
            for (uint32_t i = 0; i < n; ++i) {
                traceEntry(p, "segment_alloc", base + i * size, size, kEpochUs + 2 * i);
                traceEntry(p, "alloc", base + i * size, size, kEpochUs + 2 * i + 1);
            }
        });
}

// One allocation and the recorder's pause annotations (external_annotations) at the given times, a
// START and an END each: times at -2^63 and 2^63-1 made a negative pause (issue 47).
inline std::vector<uint8_t> pauseAnnotationsSnapshot(const std::vector<std::pair<int64_t, int64_t>>& pauses,
                                                     int64_t device = 0) {
    PickleBuilder p;
    p.proto(4).emptyDict().mark().key("segments").emptyList().key("device_traces").emptyList().mark();
    p.emptyList().mark();
    traceEntry(p, "alloc", 1 << 20, 512, kEpochUs);
    p.appends().appends().key("external_annotations").emptyList().mark();
    for (const auto& [from, to] : pauses)
        for (const auto& [stage, t] : {std::pair{"START", from}, std::pair{"END", to}}) {
            p.emptyDict()
                .mark()
                .key("name")
                .key("vramscope: recorder paused the program")
                .key("stage")
                .key(stage);
            p.key("device").integer(device).key("time_us").integer(t).setitems();
        }
    return p.appends().setitems().stop().bytes;
}

// `allocs` allocations of `size` bytes, each in a 2 MiB segment of its own and each with a distinct
// stack `depth` frames deep (a recursion 10,000 calls deep under a distinct leaf): the frames come
// from a few dicts shared through the memo, as a real pickle shares them, so the file stays small
// while the stacks are long (issue 31: compare of two such captures grew to 2.8 GB).
inline std::vector<uint8_t> deepStacksSnapshot(uint32_t allocs, uint32_t depth, uint64_t size,
                                               const std::string& leaf = "leaf") {
    const uint64_t base = 1ull << 40, segment = 2ull << 20;
    PickleBuilder p;
    p.proto(4).emptyDict().mark().key("segments").emptyList().mark();
    for (uint32_t i = 0; i < allocs; ++i) {
        p.emptyDict().mark().key("device").integer(0).key("address").integer(int64_t(base + i * segment));
        p.key("total_size")
            .integer(int64_t(segment))
            .key("stream")
            .integer(0)
            .key("segment_type")
            .key("small");
        p.key("blocks").emptyList().mark();
        p.emptyDict()
            .mark()
            .key("address")
            .integer(int64_t(base + i * segment))
            .key("size")
            .integer(int64_t(size));
        p.key("requested_size").integer(int64_t(size)).key("state").key("active_allocated").setitems();
        p.emptyDict().mark().key("address").integer(int64_t(base + i * segment + size));
        p.key("size").integer(int64_t(segment - size)).key("state").key("inactive").setitems();
        p.appends().setitems();
    }
    p.appends().key("device_traces").emptyList().mark().emptyList().mark();
    std::vector<uint32_t> common; // memo slots of the recursion's frames
    for (uint32_t i = 0; i < allocs; ++i) {
        traceEntry(p, "segment_alloc", base + i * segment, segment, kEpochUs + 2 * i);
        p.emptyDict().mark().key("action").key("alloc").key("addr").integer(int64_t(base + i * segment));
        p.key("size")
            .integer(int64_t(size))
            .key("time_us")
            .integer(kEpochUs + 2 * i + 1)
            .key("stream")
            .integer(0);
        p.key("frames").emptyList().mark();
        p.emptyDict()
            .mark()
            .key("name")
            .str(leaf + std::to_string(i))
            .key("filename")
            .key("/home/u/model.py");
        p.key("line").integer(1000 + i).setitems();
        for (uint32_t k = 0; k + 1 < depth; ++k) {
            if (common.size() < 50) { // a frame dict of its own, remembered by its memo slot
                common.push_back(p.memoCount());
                p.emptyDict().mark().key("name").key("recurse").key("filename").key("/home/u/model.py");
                p.key("line").integer(10 + k).setitems();
            } else {
                p.get(common[k % common.size()]);
            }
        }
        p.appends().setitems();
    }
    return p.appends().appends().setitems().stop().bytes;
}

// One 4 GiB segment and `n` allocations each 512 bytes into the free block left by the one before:
// never at a free block's start, so each contradicts the state and was carved out of the block that
// contains it, found by walking the segment's blocks (108 s at 200k).
inline std::vector<uint8_t> allocationsInsideFreeBlocks(uint32_t n) {
    const uint64_t base = 1ull << 40;
    return snapshotOf([](PickleBuilder&) {},
                      [&](PickleBuilder& p) {
                          traceEntry(p, "segment_alloc", base, 4ull << 30, kEpochUs);
                          for (uint32_t i = 0; i < n; ++i)
                              traceEntry(p, "alloc", base + 512 + 8192ull * i, 512, kEpochUs + 1 + i);
                      });
}

// A torch.profiler trace's "[memory]" event (Device Type 1: CUDA), ts in µs after the base time.
inline std::string profilerMemoryEvent(const std::string& ts, uint64_t addr, int64_t bytes, int64_t total) {
    return R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": )" +
           ts + R"(, "args": {"Addr": )" + std::to_string(addr) + R"(, "Bytes": )" + std::to_string(bytes) +
           R"(, "Total Allocated": )" + std::to_string(total) + R"(, "Total Reserved": )" +
           std::to_string(total) + R"(, "Device Id": 0, "Device Type": 1}})";
}

inline std::string profilerTraceOf(const std::vector<std::string>& events) {
    std::string json = R"({"baseTimeNanoseconds": 1700000000000000000, "traceEvents": [)";
    for (size_t i = 0; i < events.size(); ++i) json += (i ? ",\n" : "\n") + events[i];
    return json + "\n]}\n";
}

// `depth` operator spans nested one in another and an allocation at every depth: each allocation's
// stack is as deep as the spans around it (issue 31 follow-up: 10,000 deep, 3.3 MB, took 17.8 s and
// 809 MB, every site a copy of its spans' names).
inline std::string nestedSpansTrace(uint32_t depth) {
    std::vector<std::string> events;
    for (uint32_t k = 0; k < depth; ++k)
        events.push_back(R"({"ph": "X", "cat": "cpu_op", "name": "op)" + std::to_string(k) +
                         R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(k) + R"(, "dur": )" +
                         std::to_string(2 * depth + 10 - 2 * k) + "}");
    for (uint32_t k = 0; k < depth; ++k)
        events.push_back(
            profilerMemoryEvent(std::to_string(k) + ".5", (1ull << 32) + 512ull * k, 512, 512ll * (k + 1)));
    return profilerTraceOf(events);
}

// `n` allocations of 512 bytes never freed: each becomes a segment of its own (issue 31: 17 s at 200k).
inline std::string manyAllocationsTrace(uint32_t n) {
    std::vector<std::string> events;
    for (uint32_t i = 0; i < n; ++i)
        events.push_back(
            profilerMemoryEvent(std::to_string(1000 + i), (1ull << 32) + 512ull * i, 512, 512ll * (i + 1)));
    return profilerTraceOf(events);
}

// A .vscap of one device whose Events record has the base time `base` and the time deltas `deltas`
// (a segment_alloc, then allocations in it): times before 1970, after 2200, or deltas that overflow.
inline std::string vscapWithTimes(int64_t base, const std::vector<int64_t>& deltas) {
    std::string out;
    vscap::Writer w([&](std::string_view s) { out.append(s); });
    w.beginRecord(vscap::Record::Stream).varint(0);
    w.endRecord();
    vscap::ByteWriter& b = w.beginRecord(vscap::Record::Events);
    const size_t n = deltas.size();
    b.svarint(0), b.varint(n), b.svarint(base);
    for (size_t i = 0; i < n; ++i) b.u8(uint8_t(i ? Action::Alloc : Action::SegmentAlloc));
    for (int64_t d : deltas) b.svarint(d);
    for (size_t i = 0; i < n; ++i) b.svarint(i ? 512 : int64_t(1) << 30); // addresses: deltas
    for (size_t i = 0; i < n; ++i) b.varint(i ? 512 : 2 << 20);
    for (size_t i = 0; i < 2 * n; ++i) b.varint(0); // stream and stack ids
    w.endRecord();
    w.finish();
    return out;
}

// Raw deflate of `in`, ended by a full flush (byte-aligned, no reference back: copies of it can be
// laid end to end) or, with Z_FINISH, as the stream's last block.
inline std::string deflatePiece(const std::string& in, int flush) {
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, uLong(in.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = uInt(in.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    deflate(&z, flush);
    out.resize(out.size() - z.avail_out);
    deflateEnd(&z);
    return out;
}

// gzip of `head`, then `pieces` times 16 MiB of `fill` repeated, then `tail`: the fill is compressed once and
// copied, so 4 GiB of whitespace is a 4 MB file made in a second, and the test never holds the text.
inline std::string gzipOf(const std::string& head, const std::string& fill, uint32_t pieces,
                          const std::string& tail) {
    std::string piece;
    while (piece.size() < (16u << 20) / fill.size() * fill.size()) piece += fill;
    const std::string fillDeflated = deflatePiece(piece, Z_FULL_FLUSH);
    std::string out("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10); // gzip header: deflate, no name, Unix
    out += deflatePiece(head, Z_FULL_FLUSH);
    const uLong pieceCrc = crc32(0, reinterpret_cast<const Bytef*>(piece.data()), uInt(piece.size()));
    uLong crc = crc32(0, reinterpret_cast<const Bytef*>(head.data()), uInt(head.size()));
    for (uint32_t i = 0; i < pieces; ++i)
        out += fillDeflated, crc = crc32_combine(crc, pieceCrc, z_off_t(piece.size()));
    out += deflatePiece(tail, Z_FINISH);
    crc = crc32_combine(crc, crc32(0, reinterpret_cast<const Bytef*>(tail.data()), uInt(tail.size())),
                        z_off_t(tail.size()));
    const uint32_t size = uint32_t(head.size() + uint64_t(pieces) * piece.size() + tail.size()); // mod 2^32
    const uint32_t crc32le = uint32_t(crc);
    out.append(reinterpret_cast<const char*>(&crc32le), 4).append(reinterpret_cast<const char*>(&size), 4);
    return out;
}

// `text` (ASCII) as UTF-16 little-endian with its byte-order mark, as Windows tools save JSON.
inline std::string utf16le(const std::string& text) {
    std::string out = "\xff\xfe";
    for (char c : text) out += c, out += '\0';
    return out;
}

} // namespace vs::test
