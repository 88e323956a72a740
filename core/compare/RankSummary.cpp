#include "RankSummary.h"

#include "DiffSide.h"

#include "analysis/growth/Iterations.h"
#include "analysis/replay/Lifetimes.h"
#include "util/Cancelled.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace vs {

size_t RankSummary::binOf(int64_t us) const {
    if (lastUs <= firstUs || us <= firstUs) return 0;
    const auto b = size_t(double(us - firstUs) / double(lastUs - firstUs) * double(kBins));
    return std::min(b, kBins - 1);
}

int64_t RankSummary::binStartUs(size_t bin) const {
    return firstUs + int64_t(double(lastUs - firstUs) * double(bin) / double(kBins));
}

uint64_t RankSummary::heldBytes() const {
    uint64_t bytes = sizeof(RankSummary) + path.capacity() + error.capacity() + marker.capacity();
    for (const auto* v : {&stepUs, &stepPeak, &stepPeakReserved, &binAllocated, &binReserved})
        bytes += v->capacity() * sizeof(int64_t);
    return bytes;
}

int rankFromPath(const std::string& path) {
    std::string name = std::filesystem::path(path).filename().string();
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return std::tolower(ch); });
    // the last "rank" followed (after an optional separator) by digits
    int found = -1;
    for (size_t at = name.find("rank"); at != std::string::npos; at = name.find("rank", at + 1)) {
        size_t i = at + 4;
        if (i < name.size() && (name[i] == '_' || name[i] == '-' || name[i] == '.')) ++i;
        size_t j = i;
        while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j])) && j - i < 7) ++j;
        if (j > i) found = std::stoi(name.substr(i, j - i));
    }
    return found;
}

namespace {

void fillBins(RankSummary& s, const DeviceTrace& t, const ReplayResult& r) {
    s.binAllocated.assign(RankSummary::kBins, 0), s.binReserved.assign(RankSummary::kBins, 0);
    // a slice with no event holds what the previous event left
    int64_t allocated = r.initial.allocated, reserved = r.initial.reserved;
    size_t e = 0;
    for (size_t b = 0; b < RankSummary::kBins; ++b) {
        int64_t hiA = allocated, hiR = reserved;
        const int64_t end = b + 1 < RankSummary::kBins ? s.binStartUs(b + 1) : INT64_MAX;
        for (; e < t.eventCount() && t.timeUs[e] < end; ++e) {
            allocated = r.allocated[e], reserved = r.reserved[e];
            hiA = std::max(hiA, allocated), hiR = std::max(hiR, reserved);
        }
        s.binAllocated[b] = hiA, s.binReserved[b] = hiR;
    }
}

void fillIterations(RankSummary& s, const CaptureAnalysis& a, size_t d) {
    const auto& t = a.trace(d);
    const auto& r = a.replay(d);
    const Iterations its = findIterations(a.capture(), t, pairAllocations(t, r));
    s.marker = its.marker;
    const auto before = [&](uint32_t e) { return e == 0 ? r.initial.allocated : r.allocated[e - 1]; };
    s.iterations = its.starts.size();
    while (s.iterations > RankSummary::kMaxSlots * s.stepsPerSlot) s.stepsPerSlot *= 2;
    for (size_t i = 0; i < its.starts.size(); ++i) {
        const uint32_t from = its.starts[i];
        const uint32_t to = i + 1 < its.starts.size() ? its.starts[i + 1] : uint32_t(t.eventCount());
        const int64_t peak = r.allocated.range(from, to).max, peakReserved = r.reserved.range(from, to).max;
        if (i % s.stepsPerSlot == 0) {
            s.stepUs.push_back(t.timeUs[from]), s.stepPeak.push_back(peak),
                s.stepPeakReserved.push_back(peakReserved);
        } else {
            s.stepPeak.back() = std::max(s.stepPeak.back(), peak);
            s.stepPeakReserved.back() = std::max(s.stepPeakReserved.back(), peakReserved);
        }
    }
    // from the end of the first iteration (which makes the optimizer's state and other one-time
    // memory) to the start of the last
    const auto& st = its.starts;
    s.growth = st.size() >= 3   ? before(st.back()) - before(st[1])
               : st.size() == 2 ? before(st[1]) - before(st[0])
                                : s.finalAllocated - r.initial.allocated;
}

} // namespace

RankSummary summariseRank(const CaptureAnalysis& a, const std::atomic<bool>* cancel) {
    RankSummary s;
    s.path = a.capture().path;
    s.rank = rankFromPath(s.path);
    if (a.deviceCount() == 0) return s.error = "the capture holds no device", s;
    const size_t d = longestDevice(a);
    const DeviceSummary sum = a.summary(d);
    s.device = sum.device, s.events = sum.events, s.firstUs = sum.firstTimeUs, s.lastUs = sum.lastTimeUs;
    s.peakAllocated = sum.peak.allocated, s.peakReserved = sum.peak.reserved;
    s.finalAllocated = sum.final.allocated, s.finalReserved = sum.final.reserved;
    s.ooms = sum.oomEvents;
    if (cancel && cancel->load()) throw Cancelled();
    if (s.events == 0) return s;
    fillBins(s, a.trace(d), a.replay(d));
    fillIterations(s, a, d);
    return s;
}

} // namespace vs
