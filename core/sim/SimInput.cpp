#include "SimInput.h"

#include "SimRange.h"
#include "analysis/replay/AllocatorRules.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace vs {
namespace {

using Kind = SimRequest::Kind;

uint64_t newSegmentSize(uint64_t rounded) { // CUDACachingAllocator's get_allocation_size
    if (rounded <= AllocatorRules::kSmallSize) return AllocatorRules::kSmallBuffer;
    if (rounded < (10ull << 20)) return 20ull << 20;
    return (rounded + (2ull << 20) - 1) / (2ull << 20) * (2ull << 20);
}

// The recorded run's cudaMalloc'd segments and how many live blocks each holds: enough to tell
// whether a run of segment frees emptied the cache (no idle segment left) and what it released.
class RecordedSegments {
  public:
    struct Seg {
        uint64_t size = 0, stream = 0;
        uint32_t active = 0;
    };
    void add(uint64_t addr, uint64_t size, uint64_t stream, uint32_t active) {
        segs_[addr] = {size, stream, active};
        idle_ += active == 0;
    }
    void remove(uint64_t addr) {
        auto it = segs_.find(addr);
        if (it == segs_.end()) return;
        idle_ -= it->second.active == 0;
        segs_.erase(it);
    }
    void blockAlive(uint64_t addr, int delta) {
        auto it = segs_.upper_bound(addr);
        if (it == segs_.begin()) return;
        --it;
        if (addr >= it->first + it->second.size) return; // in an expandable range: not tracked
        if (delta < 0 && it->second.active == 0) return;
        idle_ -= it->second.active == 0;
        it->second.active += delta;
        idle_ += it->second.active == 0;
    }
    const Seg* find(uint64_t addr) const {
        auto it = segs_.find(addr);
        return it == segs_.end() ? nullptr : &it->second;
    }
    size_t idle() const { return idle_; }

  private:
    std::map<uint64_t, Seg> segs_;
    size_t idle_ = 0;
};

class Builder {
  public:
    Builder(const DeviceTrace& t, std::span<const uint64_t> streams, const ReplayResult& r,
            const AllocatorSettings& s)
        : t_(t), streams_(streams), r_(r), rules_(AllocatorRules::from(s)) {}

    SimInput build() {
        loadBaseline();
        in_.requests.reserve(t_.eventCount());
        for (size_t i = 0; i < t_.eventCount(); ++i) i = step(i);
        in_.recordedPeakReserved = uint64_t(std::max<int64_t>(r_.peak.reserved, r_.initial.reserved));
        in_.recordedFinalReserved = uint64_t(r_.final.reserved);
        in_.capacityAtLeast = in_.recordedPeakReserved;
        return std::move(in_);
    }

  private:
    uint64_t stream(size_t i) const { return streams_[t_.stream[i].value]; }

    void noteStream(uint64_t s) {
        if (std::find(in_.streams.begin(), in_.streams.end(), s) == in_.streams.end())
            in_.streams.push_back(s);
    }

    void loadBaseline() {
        if (!r_.recoveredBaseline) return;
        in_.startsMidRun = true;
        in_.initialState = r_.initialState;
        for (const auto& s : in_.initialState) {
            std::vector<uint32_t> ids;
            uint32_t active = 0;
            for (const auto& b : s.blocks) {
                const bool live = b.state != BlockState::Inactive;
                ids.push_back(live ? in_.idCount : UINT32_MAX);
                if (live) live_[b.address] = in_.idCount++;
                active += live;
            }
            in_.initialIds.push_back(std::move(ids));
            ask(s.size, 0, false);
            if (!s.expandable) segs_.add(s.address, s.size, s.stream, active);
            noteStream(s.stream);
        }
    }

    // Counts a request (or an initial segment) toward the simulator's range check.
    void ask(uint64_t size, uint32_t event, bool request) {
        if (request && size > in_.largestRequest) in_.largestRequest = size, in_.largestRequestEvent = event;
        const uint64_t cost =
            size > UINT64_MAX - kSimOverheadPerRequest ? UINT64_MAX : size + kSimOverheadPerRequest;
        const bool wasIn = in_.demand <= kMaxSimDemand;
        in_.demand = cost > UINT64_MAX - in_.demand ? UINT64_MAX : in_.demand + cost;
        if (wasIn && in_.demand > kMaxSimDemand) in_.demandExceededAt = event;
    }

    void push(SimRequest q) {
        if (q.kind == Kind::Alloc || (q.kind == Kind::Oom && q.size <= kMaxSimBytes))
            ask(q.size, q.event, true);
        in_.requests.push_back(q);
        hintAddr_ = hintSize_ = 0;
    }

    bool idOf(uint64_t addr, uint32_t& id, bool erase) {
        auto it = live_.find(addr);
        if (it == live_.end()) {
            ++in_.unmatchedFrees;
            return false;
        }
        id = it->second;
        if (erase) live_.erase(it);
        return true;
    }

    // Handles event i; returns the last event it consumed.
    size_t step(size_t i) {
        const uint64_t a = t_.addr[i], n = t_.size[i];
        const auto ev = static_cast<uint32_t>(i);
        uint32_t id = 0;
        switch (t_.action[i]) {
        case Action::Alloc:
            noteStream(stream(i));
            live_[a] = in_.idCount;
            segs_.blockAlive(a, +1);
            push({Kind::Alloc, ev, in_.idCount++, n, stream(i), hintAddr_, hintSize_});
            break;
        case Action::FreeRequested:
            if (idOf(a, id, false)) push({Kind::FreeRequested, ev, id, 0, 0, 0, 0});
            break;
        case Action::FreeCompleted:
            if (idOf(a, id, true)) {
                segs_.blockAlive(a, -1);
                push({Kind::FreeCompleted, ev, id, 0, 0, 0, 0});
            }
            break;
        case Action::SegmentAlloc:
            segs_.add(a, n, stream(i), 0);
            [[fallthrough]];
        case Action::SegmentMap:
            if (hintAddr_ == 0) hintAddr_ = a;
            hintSize_ += n;
            break;
        case Action::Oom:
            recordOom(i);
            push({Kind::Oom, ev, 0, n, stream(i), 0, 0});
            break;
        case Action::SegmentFree:
        case Action::SegmentUnmap:
            return releaseRun(i);
        default:
            break;
        }
        return i;
    }

    void recordOom(size_t i) {
        ++in_.recordedOoms;
        // The segment it could not get, or, where the entry says what the device had free (below
        // that segment: not a memory fraction's cap), one byte past what the reserve could reach.
        const uint64_t segment = newSegmentSize(rules_.roundSize(t_.size[i])), free = t_.addr[i];
        const uint64_t below = uint64_t(r_.reserved[i]) + (free > 0 && free < segment ? free + 1 : segment);
        in_.capacityBelow = in_.capacityBelow ? std::min(in_.capacityBelow, below) : below;
    }

    // A run of segment frees/unmaps starting at event i: decide whether it was a flush of the cache
    // (empty_cache, or release_cached_blocks before a retry) or a partial release the allocator made
    // inside a malloc. Returns the run's last event.
    size_t releaseRun(size_t i) {
        size_t j = i;
        bool unmaps = false;
        std::vector<RecordedSegments::Seg> released;
        for (; j < t_.eventCount() &&
               (t_.action[j] == Action::SegmentFree || t_.action[j] == Action::SegmentUnmap);
             ++j) {
            unmaps |= t_.action[j] == Action::SegmentUnmap;
            if (const auto* s = segs_.find(t_.addr[j])) released.push_back(*s);
            segs_.remove(t_.addr[j]);
        }
        size_t k = j;
        while (k < t_.eventCount() &&
               (t_.action[k] == Action::SegmentAlloc || t_.action[k] == Action::SegmentMap))
            ++k;
        // Inside a malloc, a release follows a failed cache lookup: a new segment or the OOM comes next.
        const bool insideMalloc =
            k < t_.eventCount() && ((t_.action[k] == Action::Alloc && k > j) || t_.action[k] == Action::Oom);
        bool flush = true;
        if (insideMalloc && !unmaps && !anyCouldServe(released, k)) {
            flush = segs_.idle() == 0;
            in_.flushesInsideMalloc += flush;
            in_.partialReleases += !flush;
        }
        if (flush) push({Kind::EmptyCache, static_cast<uint32_t>(j - 1), 0, 0, 0, 0, 0});
        return j - 1;
    }

    // Would one of the released segments (each one free block) have served the request at event k?
    // If so the release came before the malloc looked in its cache: the program emptied the cache.
    bool anyCouldServe(const std::vector<RecordedSegments::Seg>& released, size_t k) const {
        const uint64_t size = rules_.roundSize(t_.size[k]);
        const bool small = size <= AllocatorRules::kSmallSize;
        for (const auto& s : released) {
            if (s.stream != stream(k) || (s.size == AllocatorRules::kSmallBuffer) != small || s.size < size)
                continue;
            if (size < rules_.maxSplitSize && s.size >= rules_.maxSplitSize) continue;
            if (size >= rules_.maxSplitSize && s.size >= size + rules_.maxNonSplitRounding) continue;
            return true;
        }
        return false;
    }

    const DeviceTrace& t_;
    std::span<const uint64_t> streams_;
    const ReplayResult& r_;
    AllocatorRules rules_;
    SimInput in_;
    std::unordered_map<uint64_t, uint32_t> live_;
    RecordedSegments segs_;
    uint64_t hintAddr_ = 0, hintSize_ = 0;
};

} // namespace

SimInput SimInput::fromTrace(const DeviceTrace& trace, std::span<const uint64_t> streams,
                             const ReplayResult& replay, const AllocatorSettings& recorded) {
    return Builder(trace, streams, replay, recorded).build();
}

} // namespace vs
