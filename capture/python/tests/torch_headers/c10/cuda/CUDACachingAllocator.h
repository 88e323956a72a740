#pragma once
// A stand-in for PyTorch's c10/cuda/CUDACachingAllocator.h (torch 2.11's layout of the snapshot
// types vramscope/_allocator_state.h reads), so that allocator_state_probe.cpp compiles it without
// torch: get() is an allocator whose snapshot() returns `standIn()`, which the probe fills.
#include <c10/core/Allocator.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace c10::CachingDeviceAllocator {
using MempoolId_t = std::pair<unsigned long long, unsigned long long>;
struct BlockInfo {
    size_t size = 0;
    size_t requested_size = 0;
    int32_t gc_counter = 0;
    bool allocated = false;
    bool active = false;
    std::shared_ptr<GatheredContext> context_when_allocated;
};
struct SegmentInfo {
    signed char device = 0;
    int32_t registration_counter = -1;
    size_t address = 0;
    size_t total_size = 0;
    size_t requested_size = 0;
    size_t allocated_size = 0;
    size_t active_size = 0;
    void* stream = nullptr;
    bool is_large = false;
    bool is_expandable = false;
    MempoolId_t owner_private_pool_id = {0, 0};
    std::vector<BlockInfo> blocks;
    std::shared_ptr<GatheredContext> context_when_allocated;
};
} // namespace c10::CachingDeviceAllocator

namespace c10::cuda::CUDACachingAllocator {
using c10::CachingDeviceAllocator::MempoolId_t;
struct AllocatorConfigInfo {
    double garbage_collection_threshold = 0.0;
    size_t max_split_size = SIZE_MAX;
    size_t pinned_num_register_threads = 1;
    bool expandable_segments = false;
    bool release_lock_on_malloc = false;
    bool pinned_use_host_register = false;
    bool graph_capture_record_stream_reuse = false;
    std::string last_allocator_settings;
    std::vector<size_t> roundup_power2_divisions;
};
struct SnapshotInfo {
    std::vector<c10::CachingDeviceAllocator::SegmentInfo> segments;
    AllocatorConfigInfo config_metadata;
};
inline SnapshotInfo& standIn() {
    static SnapshotInfo info;
    return info;
}
struct CUDAAllocator {
    SnapshotInfo snapshot(MempoolId_t = {0, 0}, bool includeTraces = true) {
        tracesAsked = includeTraces;
        return standIn();
    }
    bool tracesAsked = true; // what the last snapshot() was asked: the reader never needs the ring
};
inline CUDAAllocator* get() {
    static CUDAAllocator allocator;
    return &allocator;
}
} // namespace c10::cuda::CUDACachingAllocator
