#include "analysis/replay/Lifetimes.h"

#include "model/FlatMap.h"
#include "util/HugePages.h"

namespace vs {

std::vector<Allocation> pairAllocations(const DeviceTrace& t, const ReplayResult& r,
                                        std::vector<uint32_t>* frees) {
    std::vector<Allocation> out;
    reserveHuge(out, r.allocEvents);
    if (frees) reserveHuge(*frees, r.allocEvents); // at most one per allocation; untouched room costs nothing
    auto freeRequested = [&](uint32_t a, uint32_t e) {
        out[a].freeRequested = e;
        if (frees) frees->push_back(a);
    };
    FlatMap open; // block address -> index into out, while not completely freed
    const auto& unrounded = r.blockSizeExceptions;
    size_t nextSize = 0;
    for (size_t i = 0; i < t.eventCount(); ++i) {
        const auto e = static_cast<uint32_t>(i);
        switch (t.action[i]) {
        case Action::Alloc: {
            while (nextSize < unrounded.size() && unrounded[nextSize].first < e) ++nextSize;
            const uint64_t bytes = nextSize < unrounded.size() && unrounded[nextSize].first == e
                                       ? unrounded[nextSize].second
                                       : r.rules.roundSize(t.size[i]);
            open.set(t.addr[i], static_cast<uint32_t>(out.size()));
            out.push_back({e, kNoEvent, kNoEvent, t.stack[i], bytes});
            break;
        }
        case Action::FreeRequested:
            if (const uint32_t a = open.find(t.addr[i]);
                a != FlatMap::kMissing && out[a].freeRequested == kNoEvent)
                freeRequested(a, e);
            break;
        case Action::FreeCompleted:
            if (const uint32_t a = open.find(t.addr[i]); a != FlatMap::kMissing) {
                if (out[a].freeRequested == kNoEvent) freeRequested(a, e); // free_requested not recorded
                out[a].freeCompleted = e;
                open.erase(t.addr[i]);
            }
            break;
        default:
            break;
        }
    }
    return out;
}

} // namespace vs
