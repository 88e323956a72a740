#pragma once
// Reads a torch.profiler trace recorded with profile_memory=True (the Chrome trace JSON written by
// export_chrome_trace / tensorboard_trace_handler, plain or .json.gz): its "[memory]" instant events
// (args Addr, Bytes, Total Allocated, Total Reserved, Device Id, Device Type) become a capture of the
// CUDA devices, each allocation with the operators / Python functions open around it as its stack
// (ProfilerTraceSites.cpp). Such a trace has no blocks or segments: each allocation becomes its own
// segment and the memory the allocator keeps cached (Total Reserved - Total Allocated) one free range,
// so allocated and reserved equal the profiler's totals after every event; the capture says so in a
// warning. record_function ranges (cat user_annotation: the "ProfilerStep#N" span PyTorch writes
// around each step of a scheduled profiler, the user's own ranges) become the capture's annotations,
// start and end, as record_function annotations do in a snapshot: its iterations and step markers.
// Anything else is refused with a LoadError.
#include "LoadOptions.h"
#include "model/Capture.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace vs {

// One "[memory]" event as the profiler wrote it.
struct ProfilerMemoryEvent {
    double timeUs = 0; // epoch microseconds (ts + baseTimeNanoseconds / 1000)
    uint64_t addr = 0;
    int64_t bytes = 0;                               // > 0 allocated, < 0 freed
    int64_t totalAllocated = -1, totalReserved = -1; // after the event; -1 when not recorded
    int device = -1;
    int deviceType = -1; // c10::DeviceType: 0 CPU, 1 CUDA
    int64_t tid = 0;     // the thread that allocated (string tids hashed)
    uint32_t site = 0;   // index into ProfilerTraceEvents::sites (0: no enclosing op)
};

// A complete event ("ph": "X") an allocation can happen inside: an operator (cat cpu_op), a Python
// function (python_function, with_stack=True) or a record_function range (user_annotation).
struct ProfilerSpan {
    double startUs = 0, endUs = 0;
    int64_t tid = 0;
    uint32_t name = 0; // index into ProfilerTraceEvents::names
};

struct ProfilerTraceEvents {
    std::vector<ProfilerMemoryEvent> memory; // in file order
    std::vector<ProfilerSpan> marks;         // record_function ranges, epoch microseconds, in file order
    size_t traceEvents = 0;                  // every entry of traceEvents
    size_t spansOutOfRange = 0;              // ops and ranges left out: times outside 1970..2200
    std::vector<std::string> names;          // of spans, each once
    // The spans around an allocation, as a tree of their names: a site is a node, its span's name
    // and the site of the spans around that one (site 0, the root, is none). A site costs one node
    // however deep it is: spans nested 10,000 deep are not 10,000 names per allocation.
    struct Site {
        uint32_t parent = 0, name = 0;
        uint32_t depth = 0; // spans from it up to the root
    };
    std::vector<Site> sites{Site{}};
    uint64_t textBytes = 0; // of the JSON: what the sites' stacks may take is bounded by it
};

// The enclosing spans of every memory event on its thread, as its site (ProfilerTraceSites.cpp).
void attachSites(ProfilerTraceEvents& events, std::vector<ProfilerSpan>& spans);
// A site as a call stack of the capture, innermost first: an op is a frame named after it, a Python
// function ("file.py(12): name") a frame at its file and line (one out of range is 0 and counted).
StackId siteStack(Capture& c, const ProfilerTraceEvents& events, uint32_t site, uint64_t& linesOutOfRange);

// The JSON layer (ProfilerTraceReader.cpp): throws LoadError when the bytes are not a Chrome trace.
// `json` may be gzip or zstd compressed: it is then decompressed as it is parsed, a window at a time,
// within the load's bounds (DecompressStream.h).
class DecompressStream;
ProfilerTraceEvents readProfilerTrace(std::span<const uint8_t> json, const LoadOptions& options);
ProfilerTraceEvents readProfilerTrace(DecompressStream& json, const LoadOptions& options);
// The capture (ProfilerTraceCapture.cpp): throws LoadError when no CUDA memory event is in it.
std::unique_ptr<Capture> profilerTraceCapture(const ProfilerTraceEvents& events);

std::unique_ptr<Capture> loadProfilerTraceFile(const std::string& path, const LoadOptions& options);
std::unique_ptr<Capture> loadProfilerTraceBytes(std::span<const uint8_t> bytes, const LoadOptions& options);

} // namespace vs
