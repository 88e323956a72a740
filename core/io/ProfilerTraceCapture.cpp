// torch.profiler memory events -> a Capture the two-pass replay reproduces exactly. The profiler
// reports whole blocks (Bytes) and the allocator's totals, not segments: each allocation becomes a
// segment of its own holding one block, and the cached memory (Total Reserved - Total Allocated) one
// expandable free range at a synthetic address that grows and shrinks with it (as the CUPTI agent's
// pool caches do). Blocks alive before the profiler started are recovered by the replay's backward
// pass from the final list built here: those freed during the trace at their addresses, the rest as
// one block at a synthetic address.
#include "LineRange.h"
#include "LoadError.h"
#include "ProfilerTrace.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>

namespace vs {
namespace {

constexpr int kCudaDeviceType = 1;                     // c10::DeviceType::CUDA
constexpr uint64_t kCacheBase = 0xffff900000000000ull; // never a device address
constexpr uint64_t kBaselineBase = 0xffffa00000000000ull;
constexpr uint64_t kMaxLiveBytes = 1ull << 56;  // 64 PiB: no device; the replay's sums stay far from 2^63
constexpr uint64_t kMaxBlockBytes = 1ull << 50; // 1 PiB: above any device, far from overflow

uint64_t round512(uint64_t n) {
    return (n + 511) & ~uint64_t(511);
}

uint64_t magnitude(int64_t bytes) { // a freed block's size; no overflow on INT64_MIN from a hostile file
    return bytes < 0 ? 0 - uint64_t(bytes) : uint64_t(bytes);
}

class DeviceBuilder {
  public:
    DeviceBuilder(Capture& c, DeviceTrace& t, std::span<const ProfilerMemoryEvent* const> events,
                  const ProfilerTraceEvents& in)
        : c_(c), t_(t), events_(events), in_(in), stream_(c.internStream(0)) {}

    void build() {
        start();
        for (const ProfilerMemoryEvent* e : events_) {
            time_ = int64_t(std::llround(e->timeUs));
            e->bytes > 0 ? allocated(*e) : e->bytes < 0 ? freed(*e) : void();
            checkLive();
            if (e->totalAllocated >= 0 && uint64_t(e->totalAllocated) != allocated_) ++mismatches_;
        }
        finish();
    }

  private:
    // What was alive before the first event: frees of addresses never allocated in the trace, and the
    // rest of the first event's Total Allocated as one block.
    void start() {
        std::unordered_map<uint64_t, uint64_t> seen;
        time_ = int64_t(std::llround(events_.front()->timeUs)); // what was live before the first event
        for (const ProfilerMemoryEvent* e : events_) {
            if (e->bytes > 0)
                seen[e->addr] = 1;
            else if (e->bytes < 0 && !seen.erase(e->addr))
                allocated_ += round512(magnitude(e->bytes)), checkLive();
        }
        const ProfilerMemoryEvent& first = *events_.front();
        if (first.totalAllocated >= 0) {
            int64_t before = 0; // a hostile file's totals: no signed overflow, a huge total stays huge
            if (__builtin_sub_overflow(first.totalAllocated, first.bytes, &before)) before = INT64_MAX;
            if (before > int64_t(allocated_)) baseline_ = uint64_t(before) - allocated_;
            allocated_ += baseline_;
        }
        // Reserved before the first event is unknown: the baseline's own segments, the cache appears with it.
        checkLive();
    }

    void allocated(const ProfilerMemoryEvent& e) {
        if (live_.count(e.addr)) { // allocated again without a free: the profiler missed one
            ++unpaired_;
            release(e.addr, live_[e.addr].second);
        }
        const uint64_t size = round512(uint64_t(e.bytes));
        shrinkCache(e, size); // the cache gives the memory first: never a false peak
        site_ = stackOfSite(e.site);
        push(Action::SegmentAlloc, e.addr, size);
        push(Action::Alloc, e.addr, uint64_t(e.bytes));
        site_ = StackId{};
        live_[e.addr] = {size, uint64_t(e.bytes)};
        allocated_ += size;
        growCache(e);
    }

    // Each site's stack interned once, not once per allocation (a site may hold thousands of frames).
    StackId stackOfSite(uint32_t site) {
        if (site >= siteStacks_.size()) return StackId{};
        if (!siteStacks_[site]) siteStacks_[site] = siteStack(c_, in_, site, linesOutOfRange_);
        return *siteStacks_[site];
    }

    // What is live (blocks, the baseline, the cache) after each event: a hostile file's sizes or totals
    // near 2^63, or enough allocations never freed, would overflow the replay's and the summary's
    // signed totals (each addition here is below 2^64 once the sum before it passed).
    void checkLive() const {
        if (allocated_ + cache_ > kMaxLiveBytes)
            throw LoadError("the torch.profiler trace's memory events leave " +
                            std::to_string(allocated_ + cache_) + " bytes live on device " +
                            std::to_string(t_.device) + " at " + std::to_string(time_) +
                            " us, more than any device has: the file is damaged");
    }

    void freed(const ProfilerMemoryEvent& e) {
        const auto it = live_.find(e.addr);
        release(e.addr, it != live_.end() ? it->second.second : magnitude(e.bytes));
        growCache(e);
    }

    void release(uint64_t addr, uint64_t requested) {
        const auto it = live_.find(addr);
        const uint64_t size = it != live_.end() ? it->second.first : round512(requested);
        if (it != live_.end()) live_.erase(it);
        push(Action::FreeRequested, addr, requested);
        push(Action::FreeCompleted, addr, requested);
        push(Action::SegmentFree, addr, size);
        allocated_ -= std::min(allocated_, size);
    }

    uint64_t cacheTarget(const ProfilerMemoryEvent& e, uint64_t extra) const {
        if (e.totalReserved < 0) return cache_;
        const uint64_t reserved = uint64_t(e.totalReserved),
                       used = allocated_ + extra; // unsigned: no overflow
        return reserved > used ? reserved - used : 0;
    }
    void shrinkCache(const ProfilerMemoryEvent& e, uint64_t extra) {
        const uint64_t target = cacheTarget(e, extra);
        if (target < cache_)
            push(Action::SegmentUnmap, kCacheBase + target, cache_ - target), cache_ = target;
    }
    void growCache(const ProfilerMemoryEvent& e) {
        const uint64_t target = cacheTarget(e, 0);
        if (target < cache_) return shrinkCache(e, 0);
        if (target > cache_) push(Action::SegmentMap, kCacheBase + cache_, target - cache_), cache_ = target;
    }

    void push(Action a, uint64_t addr, uint64_t size) {
        t_.timeUs.push_back(std::max(time_, t_.timeUs.empty() ? time_ : t_.timeUs.back()));
        t_.action.push_back(a);
        t_.addr.push_back(addr);
        t_.size.push_back(size);
        t_.stream.push_back(stream_);
        t_.stack.push_back(a == Action::Alloc || a == Action::SegmentAlloc ? site_ : StackId{});
    }

    // The end state the replay checks itself against: the live blocks, the unknown baseline, the cache.
    void finish() {
        auto segment = [&](uint64_t addr, uint64_t size, uint64_t requested, BlockState state,
                           bool expandable) {
            SnapshotSegment s;
            s.address = addr, s.totalSize = size, s.expandable = expandable, s.smallPool = size <= (1 << 20);
            s.blocks.push_back({addr, size, requested, state, StackId{}});
            t_.finalSegments.push_back(std::move(s));
        };
        for (const auto& [addr, block] : live_)
            segment(addr, block.first, block.second, BlockState::ActiveAllocated, false);
        if (baseline_) segment(kBaselineBase, baseline_, baseline_, BlockState::ActiveAllocated, false);
        if (cache_) segment(kCacheBase, cache_, 0, BlockState::Inactive, true);
        std::sort(t_.finalSegments.begin(), t_.finalSegments.end(),
                  [](const SnapshotSegment& a, const SnapshotSegment& b) { return a.address < b.address; });
        t_.hasFinalSnapshot = true;
        if (mismatches_)
            c_.warnings.push_back("device " + std::to_string(t_.device) +
                                  ": allocated differs from the profiler's " + "Total Allocated after " +
                                  std::to_string(mismatches_) + " memory events");
        if (linesOutOfRange_) c_.warnings.push_back(linesOutOfRangeWarning(linesOutOfRange_));
        if (unpaired_)
            c_.warnings.push_back("device " + std::to_string(t_.device) + ": " + std::to_string(unpaired_) +
                                  " addresses allocated again without a free in the trace");
    }

    Capture& c_;
    DeviceTrace& t_;
    std::span<const ProfilerMemoryEvent* const> events_;
    const ProfilerTraceEvents& in_;
    StreamId stream_;
    StackId site_; // of the allocation being pushed
    std::vector<std::optional<StackId>> siteStacks_ = std::vector<std::optional<StackId>>(in_.sites.size());
    std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> live_; // addr -> (block, requested)
    uint64_t allocated_ = 0, cache_ = 0, baseline_ = 0;
    int64_t time_ = 0;
    size_t mismatches_ = 0, unpaired_ = 0;
    uint64_t linesOutOfRange_ = 0;
};

// The frames of the stacks the allocations' sites become are bounded by the text, as a pickle's load
// is (16 times its bytes, plus 64 MiB), checked before any is made: spans nested thousands deep
// around allocations at every depth would make each allocation's stack as deep as the nesting,
// quadratic in a file of a few MB.
void checkSiteDepths(const ProfilerTraceEvents& in) {
    std::vector<bool> seen(in.sites.size());
    uint64_t frames = 0;
    for (const ProfilerMemoryEvent& e : in.memory)
        if (e.bytes > 0 && e.site < seen.size() && !seen[e.site])
            seen[e.site] = true, frames += in.sites[e.site].depth;
    const uint64_t bound = (16 * in.textBytes + (64ull << 20)) / sizeof(FrameId);
    if (frames > bound)
        throw LoadError(
            "the torch.profiler trace's spans nest so deep that the call stacks of its allocations "
            "would hold " +
            std::to_string(frames) + " frames, more than 16 times its " + std::to_string(in.textBytes) +
            " bytes allow (" + std::to_string(bound) + "): not a trace the profiler writes");
}

// The record_function ranges (ProfilerStep#N among them) as every CUDA device's annotations, start and
// end, by time: the profiler records them on the host, for whatever device the step used.
void annotate(Capture& c, const ProfilerTraceEvents& in) {
    for (const DeviceTrace& t : c.devices)
        for (const ProfilerSpan& s : in.marks) {
            const StringId name = c.strings.intern(in.names[s.name]);
            c.annotations.push_back({t.device, int64_t(std::llround(s.startUs)), true, name});
            c.annotations.push_back({t.device, int64_t(std::llround(s.endUs)), false, name});
        }
    std::stable_sort(c.annotations.begin(), c.annotations.end(),
                     [](const Annotation& a, const Annotation& b) { return a.timeUs < b.timeUs; });
}

} // namespace

std::unique_ptr<Capture> profilerTraceCapture(const ProfilerTraceEvents& in) {
    std::map<int, std::vector<const ProfilerMemoryEvent*>> byDevice;
    size_t otherDevices = 0;
    bool reserved = true;
    for (const ProfilerMemoryEvent& e : in.memory) {
        if (e.deviceType != kCudaDeviceType || e.device < 0) {
            ++otherDevices;
            continue;
        }
        if (magnitude(e.bytes) > kMaxBlockBytes)
            throw LoadError("the torch.profiler trace's [memory] event at " + std::to_string(e.timeUs) +
                            " us has an impossible size (" + std::to_string(e.bytes) +
                            " bytes): the file is damaged");
        byDevice[e.device].push_back(&e);
        reserved = reserved && e.totalReserved >= 0;
    }
    if (byDevice.empty())
        throw LoadError("the torch.profiler trace has no CUDA memory events (" +
                        std::to_string(in.memory.size()) + " [memory] events of " +
                        std::to_string(in.traceEvents) +
                        " trace events): record it with profile_memory=True and ProfilerActivity.CUDA");
    checkSiteDepths(in);
    auto capture = std::make_unique<Capture>();
    capture->warnings.push_back(
        "torch.profiler trace: it records block sizes and the allocator's totals, not blocks or segments; "
        "each allocation is shown as a segment of its own and the cached memory (Total Reserved - Total "
        "Allocated) as one free range; an allocation's site is the operators (and, with with_stack=True, "
        "the Python functions) open around it");
    if (!reserved)
        capture->warnings.push_back("the trace has no Total Reserved: reserved is shown as allocated");
    if (in.spansOutOfRange)
        capture->warnings.push_back(
            std::to_string(in.spansOutOfRange) +
            " operator or record_function spans left out: their times are before 1970 or "
            "after 2200");
    if (otherDevices)
        capture->warnings.push_back(std::to_string(otherDevices) +
                                    " CPU (or other device) memory events left out");
    for (auto& [device, events] : byDevice) {
        std::stable_sort(
            events.begin(), events.end(),
            [](const ProfilerMemoryEvent* a, const ProfilerMemoryEvent* b) { return a->timeUs < b->timeUs; });
        DeviceTrace& t = capture->devices.emplace_back();
        t.device = device;
        DeviceBuilder(*capture, t, events, in).build();
    }
    annotate(*capture, in);
    return capture;
}

// The text is parsed as it is decompressed (never whole in memory: a compressed trace, or a bomb,
// costs a window of it).
static std::unique_ptr<Capture> load(std::span<const uint8_t> bytes, const std::string& path,
                                     const LoadOptions& options) {
    const Compression codec = sniffCompression(bytes);
    auto capture = profilerTraceCapture(readProfilerTrace(bytes, options));
    capture->path = path;
    capture->format = codec == Compression::Gzip   ? "torch-profiler-trace.gz"
                      : codec == Compression::Zstd ? "torch-profiler-trace.zst"
                                                   : "torch-profiler-trace";
    return capture;
}

std::unique_ptr<Capture> loadProfilerTraceFile(const std::string& path, const LoadOptions& options) {
    const InputBuffer file = InputBuffer::openAsStored(path);
    return load(file.bytes(), path, options);
}

std::unique_ptr<Capture> loadProfilerTraceBytes(std::span<const uint8_t> bytes, const LoadOptions& options) {
    return load(bytes, "<memory>", options);
}

} // namespace vs
