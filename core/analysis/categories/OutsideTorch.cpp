#include "analysis/categories/OutsideTorch.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace vs {

int64_t OwnerSeries::at(int64_t timeUs) const {
    auto it = std::upper_bound(points.begin(), points.end(), timeUs,
                               [](int64_t t, const std::pair<int64_t, int64_t>& p) { return t < p.first; });
    return it == points.begin() ? 0 : std::prev(it)->second;
}

int64_t DeviceOutside::outsideAt(int64_t timeUs) const {
    int64_t sum = 0;
    for (const auto& o : owners) sum += o.at(timeUs);
    return sum;
}

namespace {

constexpr int64_t kMatchWindowUs = 1'000'000;

bool isMake(Action a) {
    return a == Action::SegmentAlloc || a == Action::SegmentMap;
}
bool isUnmake(Action a) {
    return a == Action::SegmentFree || a == Action::SegmentUnmap;
}

// PyTorch's segment creations of one device, by (address, bytes): their times, sorted.
std::map<std::pair<uint64_t, uint64_t>, std::vector<int64_t>> torchSegments(const DeviceTrace* t) {
    std::map<std::pair<uint64_t, uint64_t>, std::vector<int64_t>> out;
    if (!t) return out;
    for (size_t i = 0; i < t->eventCount(); ++i)
        if (isMake(t->action[i])) out[{t->addr[i], t->size[i]}].push_back(t->timeUs[i]);
    return out;
}

// Takes the PyTorch creation closest in time to a driver allocation, once.
bool takeMatch(std::vector<int64_t>& times, int64_t at) {
    auto best = times.end();
    for (auto it = times.begin(); it != times.end(); ++it)
        if (std::llabs(*it - at) <= kMatchWindowUs &&
            (best == times.end() || std::llabs(*it - at) < std::llabs(*best - at)))
            best = it;
    if (best == times.end()) return false;
    times.erase(best);
    return true;
}

void add(OwnerSeries& s, int64_t timeUs, int64_t delta) {
    const int64_t now = (s.points.empty() ? 0 : s.points.back().second) + delta;
    s.points.emplace_back(timeUs, now);
    s.peak = std::max(s.peak, now), s.final = now;
}

std::string ownerName(const Capture& level, StackId stack) {
    const NativeOwner o = nativeOwner(level, stack);
    return o == NativeOwner::User ? "program or extension" : std::string(nativeOwnerName(o));
}

// The CUDA level's allocations of one device, PyTorch's matched and counted apart.
void attribute(const Capture& level, const DeviceTrace& native, const DeviceTrace* torch,
               DeviceOutside& out) {
    out.torchMatched.name = "PyTorch";
    auto pending = torchSegments(torch);
    std::map<std::string, OwnerSeries> owners;
    std::map<uint64_t, std::pair<OwnerSeries*, uint64_t>> open; // address -> (whose, bytes)
    for (size_t i = 0; i < native.eventCount(); ++i) {
        const Action a = native.action[i];
        const int64_t t = native.timeUs[i];
        if (isMake(a)) {
            OwnerSeries* whose;
            auto p = pending.find({native.addr[i], native.size[i]});
            if (p != pending.end() && takeMatch(p->second, t)) {
                whose = &out.torchMatched, ++out.matchedSegments;
            } else {
                const std::string name = ownerName(level, native.stack[i]);
                if (nativeOwner(level, native.stack[i]) == NativeOwner::TorchCache)
                    ++out.unmatchedTorchSegments;
                whose = &owners[name];
                whose->name = name;
            }
            add(*whose, t, int64_t(native.size[i]));
            open[native.addr[i]] = {whose, native.size[i]};
        } else if (isUnmake(a)) {
            auto it = open.find(native.addr[i]);
            if (it == open.end()) continue;
            add(*it->second.first, t, -int64_t(it->second.second));
            open.erase(it);
        }
    }
    for (auto& [name, s] : owners) out.owners.push_back(std::move(s));
    std::sort(out.owners.begin(), out.owners.end(),
              [](const OwnerSeries& x, const OwnerSeries& y) { return x.peak > y.peak; });
}

// The driver's figure at each sample against what the allocators explain then.
void gaps(const Capture& c, const DeviceTrace* torch, const ReplayResult* replay, DeviceOutside& out) {
    for (const auto& s : c.driverSamples) {
        if (s.device != out.device || (!s.processUsed && !s.deviceUsed)) continue;
        GapSample g;
        g.timeUs = s.timeUs;
        g.processFigure = s.processUsed != 0;
        g.driverUsed = int64_t(s.processUsed ? s.processUsed : s.deviceUsed);
        int64_t reserved = 0;
        if (torch && replay && !replay->reserved.empty()) {
            auto e = std::upper_bound(torch->timeUs.begin(), torch->timeUs.end(), s.timeUs);
            if (e != torch->timeUs.begin())
                reserved = replay->reserved[size_t(e - torch->timeUs.begin()) - 1];
        }
        g.explained = reserved + out.outsideAt(s.timeUs);
        out.gap.push_back(g);
    }
}

} // namespace

std::vector<DeviceOutside> outsideTorch(const Capture& c, const std::vector<const ReplayResult*>& replays) {
    // A recording of the CUPTI agent alone is its own CUDA level: everything in it is named by
    // library, and there is no PyTorch level to match (its caching allocator is one of the names).
    const Capture* level = c.cudaLevel ? c.cudaLevel.get() : c.nativeStacks ? &c : nullptr;
    std::vector<int> ordinals;
    if (level)
        for (const DeviceTrace& native : level->devices) ordinals.push_back(native.device);
    for (const auto& s : c.driverSamples)
        if (std::find(ordinals.begin(), ordinals.end(), s.device) == ordinals.end())
            ordinals.push_back(s.device);
    std::vector<DeviceOutside> out;
    for (int ordinal : ordinals) {
        DeviceOutside o;
        o.device = ordinal;
        const DeviceTrace* torch = nullptr;
        const ReplayResult* replay = nullptr;
        for (size_t i = 0; i < c.devices.size() && level != &c; ++i)
            if (c.devices[i].device == ordinal)
                torch = &c.devices[i], replay = i < replays.size() ? replays[i] : nullptr;
        if (level)
            if (const DeviceTrace* native = level->device(ordinal)) attribute(*level, *native, torch, o);
        gaps(c, torch, replay, o);
        out.push_back(std::move(o));
    }
    return out;
}

} // namespace vs
