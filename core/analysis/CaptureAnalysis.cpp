#include "analysis/CaptureAnalysis.h"

#include "analysis/categories/Categories.h"

#include "util/Cancelled.h"
#include "util/Format.h"

#include <algorithm>
#include <cstdio>

namespace vs {

std::shared_ptr<const CaptureAnalysis> CaptureAnalysis::analyse(std::unique_ptr<Capture> capture,
                                                                const Options& options) {
    std::shared_ptr<CaptureAnalysis> a(new CaptureAnalysis());
    a->capture_ = std::move(capture);
    a->rules_ = AllocatorRules::from(a->capture_->settings);
    for (size_t i = 0; i < a->capture_->devices.size(); ++i) {
        if (options.progress && !options.progress(0.8 + 0.2 * static_cast<double>(i) /
                                                            static_cast<double>(a->capture_->devices.size())))
            throw Cancelled();
        a->replays_.push_back(
            Replay::run(a->capture_->devices[i], a->capture_->streams, a->rules_, options.cancel));
    }
    for (size_t i = 0; i < a->replays_.size(); ++i)
        a->ghosts_.push_back(findGhostBlocks(a->capture_->devices[i], a->replays_[i]));
    bool any = false;
    for (const auto& t : a->capture_->devices)
        if (t.eventCount())
            a->originUs_ = any ? std::min(a->originUs_, t.timeUs.front()) : t.timeUs.front(), any = true;
    if (a->capture_->window.cut) a->originUs_ = a->capture_->window.originUs; // the whole capture's clock
    a->collectWarnings(); // after the origin: warnings name times
    return a;
}

const GhostBlocks& CaptureAnalysis::ghosts(size_t i) const {
    static const GhostBlocks none;
    return i < ghosts_.size() ? ghosts_[i] : none;
}

size_t CaptureAnalysis::defaultDevice() const {
    auto weight = [this](size_t i) {
        const DeviceTrace& t = trace(i);
        return t.device == kPinnedHostDevice ? 0 : t.eventCount() + 1;
    };
    size_t best = 0;
    for (size_t i = 1; i < deviceCount(); ++i)
        if (weight(i) > weight(best)) best = i;
    return best;
}

int CaptureAnalysis::indexOfDevice(int ordinal) const {
    for (size_t i = 0; i < capture_->devices.size(); ++i)
        if (capture_->devices[i].device == ordinal) return static_cast<int>(i);
    return -1;
}

DeviceSummary CaptureAnalysis::summary(size_t i) const {
    const DeviceTrace& t = trace(i);
    const ReplayResult& r = replay(i);
    DeviceSummary s;
    s.device = t.device;
    s.events = t.eventCount();
    if (s.events) s.firstTimeUs = t.timeUs.front(), s.lastTimeUs = t.timeUs.back();
    for (size_t at = t.find(Action::Oom); at < s.events; at = t.find(Action::Oom, at + 1)) ++s.oomEvents;
    s.segments = t.finalSegments.size();
    if (!t.hasFinalSnapshot && s.events) { // a killed recording: the replay's end is all there is
        s.final = r.after(s.events - 1);
        s.segments = stateAt(i, t.timeUs.back()).size();
    }
    // The snapshot's own block list is the ground truth of the end state.
    for (const auto& g : t.finalSegments) {
        s.final.reserved += static_cast<int64_t>(g.totalSize);
        for (const auto& b : g.blocks) {
            if (b.state == BlockState::ActiveAllocated) s.final.allocated += static_cast<int64_t>(b.size);
            if (b.state != BlockState::Inactive) s.final.active += static_cast<int64_t>(b.size);
        }
    }
    s.peak.allocated = std::max(r.peak.allocated, s.final.allocated);
    s.peak.active = std::max(r.peak.active, s.final.active);
    s.peak.reserved = std::max(r.peak.reserved, s.final.reserved);
    s.baselineBlocks = r.baselineBlocks;
    s.baselineBytes = r.baselineBytes;
    return s;
}

std::vector<StateSegment> CaptureAnalysis::stateAt(size_t device, int64_t timeUs) const {
    const DeviceTrace& t = trace(device);
    const auto applied =
        static_cast<size_t>(std::upper_bound(t.timeUs.begin(), t.timeUs.end(), timeUs) - t.timeUs.begin());
    return Replay::stateAfter(t, capture_->streams, replay(device), rules_, applied);
}

std::shared_ptr<const DeviceCategories> CaptureAnalysis::categories(size_t device) const {
    // one lock for all devices: classifying is seconds at most and a second device is rare
    const std::lock_guard<std::mutex> lock(categoriesMutex_);
    if (categories_.size() < deviceCount()) categories_.resize(deviceCount());
    auto& slot = categories_[device];
    if (!slot)
        slot = std::make_shared<const DeviceCategories>(classifyDevice(*capture_, device, replays_[device]));
    return slot;
}

std::shared_ptr<const GraphPools> CaptureAnalysis::graphPools(size_t device) const {
    const std::lock_guard<std::mutex> lock(poolsMutex_);
    if (graphPools_.size() < deviceCount()) graphPools_.resize(deviceCount());
    auto& slot = graphPools_[device];
    if (!slot) slot = std::make_shared<const GraphPools>(trace(device));
    return slot;
}

void CaptureAnalysis::collectWarnings() {
    // once each: a converted file carries its source reader's warnings, which its own reader may repeat
    warnings_.clear();
    for (const auto& w : capture_->warnings)
        if (std::find(warnings_.begin(), warnings_.end(), w) == warnings_.end()) warnings_.push_back(w);
    const bool many = capture_->devices.size() > 1;
    for (size_t i = 0; i < capture_->devices.size(); ++i) {
        const DeviceTrace& t = trace(i);
        const ReplayResult& r = replay(i);
        const std::string dev = many || t.device == kPinnedHostDevice ? deviceName(t.device) + ": " : "";
        if (t.eventCount() == 0)
            warnings_.push_back(dev +
                                "no allocator history was recorded (only the final block list is known); "
                                "record with torch.cuda.memory._record_memory_history(enabled='all')");
        if (capture_->window.cut) {
            if (r.baselineBlocks)
                warnings_.push_back(
                    dev + std::to_string(r.baselineBlocks) + " blocks (" +
                    humanBytes(int64_t(r.baselineBytes)) +
                    ") were allocated before the window starts; they are shown as a baseline");
        } else if (r.baselineBlocks || (r.recoveredBaseline && !r.initialState.empty()) ||
                   t.ringBuffer == RingBuffer::Overflowed)
            warnings_.push_back(dev + baselineWarning(i));
        if (r.pendingFreeAtStart)
            warnings_.push_back(
                dev + std::to_string(r.pendingFreeAtStart) +
                " blocks were already waiting for their free to complete when the trace starts");
        if (t.eventCount() &&
            std::all_of(t.stack.begin(), t.stack.end(), [](StackId s) { return s.value == 0; }))
            warnings_.push_back(
                dev + "no call stacks were recorded (record with context='all' to see who allocates)");
        if (r.inconsistencies)
            warnings_.push_back(
                dev + std::to_string(r.inconsistencies) +
                " events contradict the replayed allocator state; figures near them may be off");
        if (!r.finalMatchesSnapshot)
            warnings_.push_back(dev + "the replay does not reproduce the snapshot's final block list (" +
                                r.finalMismatch + ")");
    }
}

// What came before the first recorded entry, by what the snapshot says about its ring buffer: entries
// lost to it (at least one per block and segment alive then, and per free already requested), a late
// start (nothing was overwritten), or either (an older snapshot, which does not say).
std::string CaptureAnalysis::baselineWarning(size_t device) const {
    const DeviceTrace& t = trace(device);
    const ReplayResult& r = replay(device);
    const std::string baseline = std::to_string(r.baselineBlocks) + " blocks (" +
                                 humanBytes(int64_t(r.baselineBytes)) + ") in " +
                                 std::to_string(r.initialState.size()) + " segments";
    if (t.ringBuffer == RingBuffer::Overflowed) {
        char at[48] = "its start";
        if (t.eventCount()) std::snprintf(at, sizeof at, "t = %.3f s", secondsOf(t.timeUs.front()));
        const uint64_t lost = uint64_t(r.baselineBlocks) + r.initialState.size() + r.pendingFreeAtStart;
        const uint64_t size = capture_->settings.traceMaxEntries;
        const std::string kept =
            size ? " (it keeps the last " + std::to_string(size) + " entries: raise max_entries)"
                 : " (raise max_entries)";
        return (lost ? "at least " + std::to_string(lost) +
                           " trace entries were lost to the ring buffer before " + at
                     : "trace entries were lost to the ring buffer before " + std::string(at)) +
               kept + "; the " + baseline + " alive then are shown as a baseline";
    }
    if (t.ringBuffer == RingBuffer::Kept)
        return baseline + " were allocated before the first recorded event: recording started late (the ring "
                          "buffer kept every entry); they are shown as a baseline";
    return baseline +
           " were allocated before the first recorded event: recording started late or "
           "the ring buffer (max_entries) dropped the oldest entries; they are shown as a baseline";
}

} // namespace vs
