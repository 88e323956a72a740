#pragma once
// Everything read from one capture file: per-device traces plus the shared intern tables.
#include "AllocatorSettings.h"
#include "BlockAnnotation.h"
#include "DeviceTrace.h"
#include "DriverSample.h"
#include "FrameTable.h"
#include "RetentionGraph.h"
#include "StringTable.h"
#include "TensorTag.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace vs {

struct Annotation {
    int device = 0;
    int64_t timeUs = 0;
    bool start = true; // stage START or END
    StringId name;
    int64_t value = kNoMarkValue; // a mark's value (vramscope.mark(name, value)): a step, a batch size
    static constexpr int64_t kNoMarkValue = INT64_MIN;
};

struct DeviceInfo {
    int device = 0;
    std::string name;         // "NVIDIA H200"
    uint64_t totalMemory = 0; // bytes
};

// When only a time window of a longer capture was loaded (`--from/--to`, File > Open Range...).
struct LoadedWindow {
    bool cut = false;
    int64_t originUs = 0;      // the whole capture's first event: times keep reading as in a full load
    double fromS = 0, toS = 0; // seconds since originUs, as asked
    uint64_t eventsBefore = 0, eventsAfter = 0, eventsIn = 0; // all devices
};

struct Capture {
    std::string path;
    std::string format; // "pytorch-snapshot-pickle", "pytorch-snapshot-pickle.gz", ...
    std::vector<DeviceTrace> devices;
    std::vector<uint64_t> streams; // StreamId -> raw cudaStream_t value
    StringTable strings;
    FrameTable frames;
    StackTable stacks;
    AllocatorSettings settings;
    std::vector<Annotation> annotations;
    std::vector<BlockAnnotation> blockAnnotations; // labels put on live blocks after the fact, by time
    std::vector<RetentionGraph> retention;         // in recording order
    std::vector<DeviceInfo> deviceInfo;            // from recorders; snapshots have none
    std::vector<std::pair<std::string, std::string>> meta; // recorder facts: program, host, torch...
    std::vector<std::string> warnings; // reader-level warnings (unknown actions, clamped integers...)
    LoadedWindow window;
    bool nativeStacks = false;   // recorded at the CUDA driver level (the CUPTI agent): C/C++/CUDA frames
    std::vector<TensorTag> tags; // what the recorder named (parameters, gradients...), by time
    std::vector<DriverSample> driverSamples; // the driver's used memory during the recording, by time
    // `record --native`: the same process recorded at the CUDA driver level by the CUPTI agent (a Part
    // of the file): every driver allocation, PyTorch's segments and everyone else's. Null otherwise.
    std::shared_ptr<Capture> cudaLevel;

    StreamId internStream(uint64_t raw); // throws std::length_error past 65536 streams
    const DeviceTrace* device(int ordinal) const;

  private:
    std::vector<std::pair<uint64_t, uint16_t>> streamIndex_; // few streams: a sorted small vector
};

} // namespace vs
