#pragma once
// One device's recorded allocator events, stored column-wise in recording order.
#include "Action.h"
#include "Ids.h"
#include "SnapshotSegment.h"
#include "util/CompactColumn.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vs {

// The lane of pinned host memory (a snapshot's host_segments / host_traces, PyTorch's
// record_pinned_host_memory): one past the highest device ordinal a reader accepts, so it sorts
// after every GPU and is never taken for one.
constexpr int kPinnedHostDevice = 1024;
// "device 3", or "pinned host memory" for kPinnedHostDevice: how every view and message names a lane.
std::string deviceName(int ordinal);

// What a snapshot says about its ring buffer (allocator_settings.trace_alloc_overflowed): whether
// the allocator overwrote entries older than the first one kept. Unknown in older snapshots, where a
// trace that starts mid-run may mean either a late start or an overflow.
enum class RingBuffer : uint8_t { Unknown, Kept, Overflowed };

struct DeviceTrace {
    int device = 0;
    // The three 64-bit columns in chunks of 32-bit offsets (util/CompactColumn.h): ~4 bytes per
    // event each instead of 8, what brings a loaded capture to ~19 bytes per event.
    CompactColumn<int64_t> timeUs; // Unix epoch microseconds, non-decreasing
    CompactColumn<uint64_t> addr;  // block/segment address; free device bytes for oom
    CompactColumn<uint64_t> size;  // requested bytes for alloc/free; segment bytes; see Action
    std::vector<Action> action;
    std::vector<StreamId> stream; // index into Capture::streams
    std::vector<StackId> stack;
    // Rare per-event strings, kept sparse: (event index, text).
    std::vector<std::pair<uint32_t, StringId>> compileContext;
    std::vector<std::pair<uint32_t, StringId>> userMetadata;

    std::vector<SnapshotSegment> finalSegments; // the snapshot's `segments` of this device
    RingBuffer ringBuffer = RingBuffer::Unknown;
    // False when the recording ended without the allocator's final block list (a killed recorder):
    // the replay then starts from empty and has nothing to check its end state against.
    bool hasFinalSnapshot = true;
    // The allocator's state before the first event when it is known exactly (a window cut from a
    // longer capture, see analysis/CaptureWindow.h): the replay starts from it instead of
    // recovering a baseline backward from finalSegments.
    std::vector<SnapshotSegment> startSegments;
    bool hasStartState = false;

    // What one event costs at most in the columns above (readers charge it against a load's memory
    // budget): a compact column's chunk of full values takes 8 bytes per event.
    static constexpr size_t kBytesPerEvent =
        sizeof(int64_t) + 2 * sizeof(uint64_t) + sizeof(Action) + sizeof(StreamId) + sizeof(StackId);

    size_t eventCount() const { return timeUs.size(); }
    // The first event at or after `from` with this action, or eventCount(). memchr: 4 ms over 100M
    // events where a loop (or std::count) took 31 ms, and a click asks whether there is an OOM.
    size_t find(Action a, size_t from = 0) const;
    // The bytes the columns hold at most once they have grown to `n` events (the vectors' capacity
    // grows geometrically; the compact columns by chunks).
    size_t columnBytesAt(size_t n) const;
    void reserve(size_t n); // the vector columns
    void append(const DeviceTrace& from, size_t first,
                size_t last); // its events [first, last), not the sparse columns
    void clearEvents();
    // Gives the system back the whole pages of reserved column room past the last event (readers
    // reserve for more events than a file can hold; transparent huge pages would otherwise keep up
    // to 2 MiB per column resident past the end). The capacity stays: appending still works.
    void releaseSpareRoom();
};

} // namespace vs
