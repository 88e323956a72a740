#pragma once
// Reading a parsed PyTorch snapshot's values: segments and blocks, device traces, pinned host memory,
// allocator settings, the ring buffer's flags, annotations (docs/formats.md).
#include "LoadError.h"
#include "PickleMachine.h"
#include "SnapshotSchema.h"
#include "model/Capture.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vs {

// As many devices as a .vscap may hold: a PyTorch snapshot lists one trace per visible GPU.
constexpr size_t kMaxDevices = 1024;
static_assert(kPinnedHostDevice == int(kMaxDevices), "the host lane takes the slot past the last device");

// Walks the decoded top-level object of a snapshot and moves its parts into the Capture (the
// pickle machine has run: SnapshotLoader.cpp).
class SnapshotWalk {
  public:
    SnapshotWalk(pickle::PickleMachine& m, SnapshotSchema& schema, Capture& c)
        : m_(m), schema_(schema), c_(c) {}
    void load(pickle::Value top);

  private:
    [[noreturn]] void fail(const std::string& what) const {
        throw LoadError("not a PyTorch memory snapshot: " + what, m_.offset());
    }
    // A snapshot in the right shape whose final state PyTorch's allocator cannot have been in.
    [[noreturn]] static void impossible(const std::string& what) {
        throw LoadError("impossible snapshot: " + what);
    }
    void charge(uint64_t bytes) { m_.meter().charge(bytes, m_.offset()); }
    std::span<const pickle::Value> listItems(pickle::Value v, const char* what);
    std::optional<std::pair<uint32_t, uint32_t>> eventRun(pickle::Value v) const;
    std::span<const pickle::Value> dictPairs(pickle::Value v, const char* what) const;
    std::string_view key(pickle::Value k) const { return m_.str(k); }
    uint64_t uintField(pickle::Value v, const char* what) const;
    void loadSegments(pickle::Value list);
    SnapshotSegment loadSegment(pickle::Value dict, size_t index, int& device, bool host = false);
    void loadHostSegments(pickle::Value list);
    void loadHostTraces(pickle::Value list);
    bool traceIndices(pickle::Value list, int device, std::vector<uint32_t>& idx);
    void loadBlockAnnotation(std::span<const pickle::Value> pairs, int device);
    void loadRingBuffer(std::optional<pickle::Value> overflowed, std::optional<pickle::Value> maxEntries);
    void applyRingBuffer();
    void warn(std::string text) { c_.warnings.push_back(std::move(text)); }
    void loadBlocks(pickle::Value list, size_t index, int device, SnapshotSegment& seg);
    static void checkSegmentsApart(const DeviceTrace& d);
    void copyTrace(std::span<const uint32_t> idx, DeviceTrace& out);
    void loadTraces(pickle::Value list);
    const DeviceTrace& entries();
    void loadSettings(pickle::Value dict);
    void loadAnnotations(pickle::Value list);
    DeviceTrace& deviceTrace(int ordinal);
    std::string settingText(pickle::Value v) const; // a container with its first items
    std::string printable(pickle::Value v) const;

    pickle::PickleMachine& m_;
    SnapshotSchema& schema_;
    Capture& c_;
    // Ordinal -> index in devices[] + 1, 0 for none: zero-initialised (a memset, where filling with
    // -1 is a loop the fuzzer's instrumentation makes cost 2% of a small snapshot's load).
    std::array<uint32_t, kMaxDevices + 1> deviceSlot_{}; // + the pinned host memory lane
    int movedTo_ = -1;                // the device the schema's columns were moved to whole, if any
    uint64_t annotationsSkipped_ = 0; // 'annotate' entries without an address or a plausible time
    std::vector<bool> ringFlags_;     // trace_alloc_overflowed: one for all devices, or one per device
    bool ringFlagsForAll_ = false;
    std::map<uint32_t, std::vector<pickle::Value>> runItems_; // Events lists read as lists, by run
};

} // namespace vs
