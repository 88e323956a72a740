#pragma once
// The allocator trace actions, in the order of c10's TraceEntry::Action.
#include <cstdint>
#include <string_view>

namespace vs {

enum class Action : uint8_t {
    Alloc,
    FreeRequested,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Snapshot,
    Oom,
    Unknown,
};

constexpr std::string_view actionName(Action a) {
    constexpr std::string_view names[] = {"alloc",        "free_requested", "free_completed", "segment_alloc",
                                          "segment_free", "segment_map",    "segment_unmap",  "snapshot",
                                          "oom",          "unknown"};
    return names[static_cast<int>(a)];
}

inline Action actionFromName(std::string_view s) {
    for (int i = 0; i < static_cast<int>(Action::Unknown); ++i)
        if (actionName(static_cast<Action>(i)) == s) return static_cast<Action>(i);
    return Action::Unknown;
}

} // namespace vs
