#pragma once
// Everything read from one capture file: per-device traces plus the shared intern tables.
#include "AllocatorSettings.h"
#include "DeviceTrace.h"
#include "FrameTable.h"
#include "StringTable.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vs {

struct Annotation {
    int device = 0;
    int64_t timeUs = 0;
    bool start = true; // stage START or END
    StringId name;
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
    std::vector<std::string> warnings; // reader-level warnings (unknown actions, clamped integers...)

    StreamId internStream(uint64_t raw);
    const DeviceTrace* device(int ordinal) const;

  private:
    std::vector<std::pair<uint64_t, uint32_t>> streamIndex_; // few streams: a sorted small vector
};

} // namespace vs
