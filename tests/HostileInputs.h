#pragma once
// Generators of the hostile inputs of issue 31 (what runs after the reader): each a few lines, made
// by the test that needs it instead of a committed blob. Snapshots are PyTorch pickles written by
// PickleBuilder, traces torch.profiler JSON in the shape Kineto writes.
#include "PickleBuilder.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vs::test {

constexpr int64_t kEpochUs = 1700000000000000; // 2023-11-14, a plausible recording time

// One trace entry: {'action', 'addr', 'size', 'time_us', 'stream': 0} with shared keys.
inline PickleBuilder& traceEntry(PickleBuilder& p, const char* action, uint64_t addr, uint64_t size, int64_t t) {
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
// segment_alloc looked through all segments before (issue 31: past 20 s at 200k).
inline std::vector<uint8_t> manySegmentsSnapshot(uint32_t n) {
    const uint64_t base = 1ull << 40, size = 2ull << 20;
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

// A torch.profiler trace's "[memory]" event (Device Type 1: CUDA), ts in µs after the base time.
inline std::string profilerMemoryEvent(const std::string& ts, uint64_t addr, int64_t bytes, int64_t total) {
    return R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": )" + ts +
           R"(, "args": {"Addr": )" + std::to_string(addr) + R"(, "Bytes": )" + std::to_string(bytes) +
           R"(, "Total Allocated": )" + std::to_string(total) + R"(, "Total Reserved": )" + std::to_string(total) +
           R"(, "Device Id": 0, "Device Type": 1}})";
}

inline std::string profilerTraceOf(const std::vector<std::string>& events) {
    std::string json = R"({"baseTimeNanoseconds": 1700000000000000000, "traceEvents": [)";
    for (size_t i = 0; i < events.size(); ++i) json += (i ? ",\n" : "\n") + events[i];
    return json + "\n]}\n";
}

// `n` allocations of 512 bytes never freed: each becomes a segment of its own (issue 31: 17 s at 200k).
inline std::string manyAllocationsTrace(uint32_t n) {
    std::vector<std::string> events;
    for (uint32_t i = 0; i < n; ++i)
        events.push_back(profilerMemoryEvent(std::to_string(1000 + i), (1ull << 32) + 512ull * i, 512, 512ll * (i + 1)));
    return profilerTraceOf(events);
}

} // namespace vs::test
