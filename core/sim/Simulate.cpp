#include "Simulate.h"

#include "AsyncAllocatorSim.h"
#include "NativeAllocatorSim.h"
#include "SimRange.h"
#include "util/Cancelled.h"
#include "util/Format.h"

namespace vs {
namespace {

using Kind = SimRequest::Kind;

template <class Engine> class Runner {
  public:
    Runner(Engine& e, const SimInput& in, SimResult& r, bool keepSeries)
        : e_(e), in_(in), r_(r), keep_(keepSeries) {}

    void run(const std::atomic<bool>* cancel) {
        const auto& q = in_.requests;
        if (keep_) {
            r_.event.reserve(q.size() + 1);
            r_.reserved.reserve(q.size() + 1);
            r_.allocated.reserve(q.size() + 1);
        }
        note(in_.startsMidRun ? q.empty() ? 0 : q.front().event : 0);
        for (size_t i = 0; i < q.size(); ++i) {
            if (cancel && (i & 0xffff) == 0 && cancel->load(std::memory_order_relaxed)) throw Cancelled();
            if (!apply(q, i)) {
                note(q[i].event);
                return;
            }
            note(q[i].event);
        }
    }

  private:
    // false when the simulated program stops: an allocation it made could not be served
    bool apply(const std::vector<SimRequest>& q, size_t& i) {
        const SimRequest& r = q[i];
        switch (r.kind) {
        case Kind::Alloc:
            if (e_.malloc(r.id, r.size, r.stream, r.hintAddr, r.hintSize)) return true;
            r_.firstOom = SimOom{r.event, r.size, r.stream, e_.reserved(), e_.allocated()};
            return false;
        case Kind::FreeRequested:
            if (i + 1 < q.size() && q[i + 1].kind == Kind::FreeCompleted && q[i + 1].id == r.id) {
                e_.release(r.id); // the common case: freed at once, nothing pending
                ++i;
            } else {
                e_.freeRequested(r.id);
            }
            return true;
        case Kind::FreeCompleted:
            e_.freeCompleted(r.id);
            return true;
        case Kind::EmptyCache:
            e_.emptyCache();
            return true;
        case Kind::Oom: // the recorded run failed here; the program went on without the memory
            if (r.size > kMaxSimBytes) { // larger than any device: fails under every setting
                ++r_.recordedOomsReproduced;
                return true;
            }
            if (e_.malloc(in_.idCount, r.size, r.stream, 0, 0)) {
                ++r_.recordedOomsAvoided;
                e_.release(in_.idCount);
            } else {
                ++r_.recordedOomsReproduced;
            }
            return true;
        }
        return true;
    }

    void note(uint32_t event) {
        const int64_t res = e_.reserved(), al = e_.allocated();
        if (keep_) {
            r_.event.push_back(event);
            r_.reserved.push_back(res);
            r_.allocated.push_back(al);
        }
        if (res > r_.peakReserved) {
            r_.peakReserved = res;
            r_.peakEvent = event;
            r_.allocatedAtPeak = al;
        }
        r_.peakAllocated = std::max(r_.peakAllocated, al);
        r_.finalReserved = res;
        r_.finalAllocated = al;
    }

    Engine& e_;
    const SimInput& in_;
    SimResult& r_;
    bool keep_;
};

void describe(const SimInput& in, SimResult& r) {
    if (in.startsMidRun)
        r.notes.push_back("the trace starts mid-run: simulated from the recorded state at its first event "
                          "(blocks that predate it kept where they were)");
    if (in.partialReleases)
        r.notes.push_back(std::to_string(in.partialReleases) +
                          " partial cache releases inside a malloc left to the simulated allocator's policy");
    if (in.unmatchedFrees)
        r.notes.push_back(std::to_string(in.unmatchedFrees) + " frees of unknown addresses ignored");
    if (r.approximate)
        r.notes.push_back(
            "cudaMallocAsync is approximate: the driver's pool is modelled as growing in 32 MiB "
            "chunks to the high-water mark of live bytes");
    if (r.firstOom)
        r.notes.push_back("out of memory at event " + std::to_string(r.firstOom->event) + " (a request of " +
                          humanBytes(int64_t(r.firstOom->size)) + "): the simulation stops there");
}

} // namespace

SimResult simulate(const SimInput& in, const SimConfig& config, const SimOptions& o) {
    SimResult r;
    r.notes = checkSimRange(in, o.capacity); // before anything is simulated: throws SimRangeError
    r.config = config;
    r.capacity = o.capacity;
    if (config.backend == SimConfig::Backend::CudaMallocAsync) {
        r.approximate = true;
        AsyncAllocatorSim e(o.capacity, config.memoryFraction);
        Runner<AsyncAllocatorSim>(e, in, r, o.keepSeries).run(o.cancel);
    } else {
        NativeAllocatorSim e(config, o.capacity);
        e.loadInitialState(in);
        Runner<NativeAllocatorSim>(e, in, r, o.keepSeries).run(o.cancel);
        r.finalSegments = e.segments();
        r.segmentsCreated = e.segmentsCreated();
        r.segmentsReleased = e.segmentsReleased();
        r.allocRetries = e.allocRetries();
    }
    describe(in, r);
    return r;
}

} // namespace vs
