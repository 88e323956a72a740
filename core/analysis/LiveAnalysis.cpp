#include "analysis/LiveAnalysis.h"

#include "analysis/replay/CaptureAppend.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>

namespace vs {
namespace {

constexpr size_t kMaxPool = 3; // the GUI's snapshot, the one being built, one held by a slow job

bool sameRules(const AllocatorRules& a, const AllocatorRules& b) {
    return a.maxSplitSize == b.maxSplitSize && a.maxNonSplitRounding == b.maxNonSplitRounding &&
           a.expandableSegments == b.expandableSegments &&
           a.roundupPower2Divisions == b.roundupPower2Divisions;
}

} // namespace

LiveAnalysis::LiveAnalysis(uint32_t checkpointEvery) : every_(checkpointEvery) {}

LiveAnalysis::Slot& LiveAnalysis::takeFree() {
    for (Slot& p : pool_)
        if (p.snapshot != latest_ && !p.held->load(std::memory_order_acquire)) return p;
    Slot fresh{std::shared_ptr<CaptureAnalysis>(new CaptureAnalysis()),
               std::make_shared<std::atomic<bool>>(false), std::make_shared<std::vector<ColumnRegrow>>()};
    fresh.snapshot->capture_ = std::make_unique<Capture>();
    ++made_;
    if (pool_.size() < kMaxPool) return pool_.emplace_back(std::move(fresh));
    // All held elsewhere: forget one (its holders keep it alive through their pointers' deleter).
    auto old = std::find_if(pool_.begin(), pool_.end(), [&](const Slot& p) { return p.snapshot != latest_; });
    return *old = std::move(fresh);
}

std::shared_ptr<const CaptureAnalysis> LiveAnalysis::handOut(const Slot& slot) {
    slot.held->store(true, std::memory_order_relaxed); // only this thread reads it before the handing out
    return {slot.snapshot.get(), [owner = slot.snapshot, held = slot.held](const CaptureAnalysis*) {
                held->store(false, std::memory_order_release);
            }};
}

// Before the snapshot takes the events it lacks (the newest snapshot's and the new ones).
void LiveAnalysis::prepareGrowth(const Slot& slot, const Capture& delta) const {
    CaptureAnalysis& s = *slot.snapshot;
    slot.regrow->resize(s.capture_->devices.size());
    for (size_t d = 0; d < s.capture_->devices.size() && d < s.replays_.size(); ++d) {
        DeviceTrace& t = s.capture_->devices[d];
        const size_t target = (latest_ ? latest_->trace(d).eventCount() : 0) + delta.devices[d].eventCount();
        (*slot.regrow)[d].prepare(t, s.replays_[d], target - t.eventCount());
    }
}

void LiveAnalysis::catchUp(CaptureAnalysis& s) const {
    if (!latest_ || &s == latest_.get()) return;
    const CaptureAnalysis& from = *latest_;
    appendCaptureParts(*s.capture_, *from.capture_);
    for (size_t d = 0; d < from.capture_->devices.size(); ++d)
        catchUpEvents(s.capture_->devices[d], from.capture_->devices[d]);
    s.replays_.resize(from.replays_.size());
    for (size_t d = 0; d < from.replays_.size(); ++d) appendReplayTail(s.replays_[d], from.replays_[d]);
}

void LiveAnalysis::append(CaptureAnalysis& s, Capture& delta) {
    appendCaptureParts(*s.capture_, delta);
    for (size_t d = 0; d < delta.devices.size(); ++d) {
        appendDelta(s.capture_->devices[d], delta.devices[d]);
        delta.devices[d].clearEvents(); // keeps its capacity for the next chunks
    }
}

void LiveAnalysis::finishSnapshot(CaptureAnalysis& s) {
    { // the events grew: what was classified before no longer covers them
        const std::lock_guard<std::mutex> lock(s.categoriesMutex_);
        s.categories_.clear();
    }
    {
        const std::lock_guard<std::mutex> lock(s.poolsMutex_);
        s.graphPools_.clear();
    }
    bool any = false;
    for (const auto& t : s.capture_->devices)
        if (t.eventCount())
            s.originUs_ = any ? std::min(s.originUs_, t.timeUs.front()) : t.timeUs.front(), any = true;
    s.collectWarnings(); // after the origin: warnings name times
}

namespace {

// Nothing arrived since the last full analysis (the End record follows the block list, often in
// a chunk of its own): it still holds, and it took seconds on a long session.
bool sameCapture(const Capture& a, const Capture& b) {
    if (a.devices.size() != b.devices.size() || a.annotations.size() != b.annotations.size() ||
        a.retention.size() != b.retention.size() || a.meta.size() != b.meta.size() ||
        a.warnings != b.warnings)
        return false;
    for (size_t d = 0; d < a.devices.size(); ++d)
        if (a.devices[d].eventCount() != b.devices[d].eventCount() ||
            a.devices[d].finalSegments != b.devices[d].finalSegments)
            return false;
    return true;
}

} // namespace

std::shared_ptr<const CaptureAnalysis> LiveAnalysis::fullAnalysis(const CaptureAnalysis& s) {
    if (full_ && sameCapture(full_->capture(), *s.capture_)) return full_;
    auto c = std::make_unique<Capture>();
    appendCaptureParts(*c, *s.capture_);
    for (size_t d = 0; d < s.capture_->devices.size(); ++d)
        catchUpEvents(c->devices[d], s.capture_->devices[d]);
    return full_ = CaptureAnalysis::analyse(std::move(c));
}

std::shared_ptr<const CaptureAnalysis> LiveAnalysis::publish(Capture& delta,
                                                             const std::vector<std::string>& extraWarnings) {
    if (delta.devices.empty()) return nullptr; // nothing to draw yet
    const Slot slot = takeFree();              // a copy: the pool may be replaced below
    CaptureAnalysis* s = slot.snapshot.get();
    prepareGrowth(slot, delta);
    catchUp(*s);
    append(*s, delta);
    s->capture_->warnings = delta.warnings;
    s->capture_->warnings.insert(s->capture_->warnings.end(), extraWarnings.begin(), extraWarnings.end());
    const AllocatorRules rules = AllocatorRules::from(s->capture_->settings);
    if (!replays_.empty() && !sameRules(rules, rules_)) {
        // The settings changed after events were replayed (a late Settings record): a one-shot
        // analysis replays everything under the final settings, so start over, once.
        replays_.clear(), s->replays_.clear();
        pool_ = {slot}; // the others' series used the old settings: never catch up from them
    }
    rules_ = s->rules_ = rules;
    const Capture& c = *s->capture_;
    s->replays_.resize(c.devices.size());
    while (replays_.size() < c.devices.size()) replays_.emplace_back(AllocatorState(rules_), every_);
    for (size_t d = 0; d < c.devices.size(); ++d) {
        if (s->replays_[d].eventCount() != replays_[d].applied())
            throw std::logic_error("live analysis: a snapshot is out of step with the replay");
        replays_[d].extend(c.devices[d], c.streams, s->replays_[d], false);
    }
    finishSnapshot(*s);
    latest_ = slot.snapshot;
    final_ = final_ || std::any_of(c.devices.begin(), c.devices.end(),
                                   [](const DeviceTrace& t) { return t.hasFinalSnapshot; });
    return final_ ? fullAnalysis(*s) : handOut(slot);
}

} // namespace vs
