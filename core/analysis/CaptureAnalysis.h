#pragma once
// A loaded capture together with its replayed allocator timelines, one per device: the unit the
// CLI commands and the GUI work on. Immutable once built.
#include "analysis/replay/AllocatorRules.h"
#include "analysis/replay/GhostBlocks.h"
#include "analysis/replay/GraphPools.h"
#include "analysis/replay/Replay.h"
#include "model/Capture.h"
#include "util/TimeOrigin.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace vs {

struct DeviceCategories; // Categories.h

struct DeviceSummary {
    int device = 0;
    size_t events = 0;
    int64_t firstTimeUs = 0, lastTimeUs = 0;
    Totals peak, final;
    uint32_t oomEvents = 0;
    size_t segments = 0;
    uint32_t baselineBlocks = 0;
    uint64_t baselineBytes = 0;
};

struct AnalysisOptions {
    std::function<bool(double fraction)> progress; // 0..1 over loading and replay; false cancels
    const std::atomic<bool>* cancel = nullptr;
};

class CaptureAnalysis {
  public:
    using Options = AnalysisOptions;
    // Replays a loaded capture (load/OpenAnalysis.h reads a file and calls this). Throws Cancelled.
    static std::shared_ptr<const CaptureAnalysis> analyse(std::unique_ptr<Capture> capture,
                                                          const Options& options = {});

    const Capture& capture() const { return *capture_; }
    const AllocatorRules& rules() const { return rules_; }
    size_t deviceCount() const { return capture_->devices.size(); }
    const DeviceTrace& trace(size_t i) const { return capture_->devices[i]; }
    const ReplayResult& replay(size_t i) const { return replays_[i]; }
    // The device's blocks seen only being freed (GhostBlocks.h); none for a live capture's growth.
    const GhostBlocks& ghosts(size_t i) const;
    // Where a view or command starts: the GPU with the longest trace (as memory_viz), the first on a tie;
    // pinned host memory only when it is alone.
    size_t defaultDevice() const;
    // Index into devices for an ordinal, or -1.
    int indexOfDevice(int ordinal) const;
    DeviceSummary summary(size_t i) const;
    const std::vector<std::string>& warnings() const { return warnings_; }
    // The one time origin of every view and sentence: the earliest first event of any device (devices
    // of one capture start at different moments; times on all of them are seconds since this).
    int64_t originUs() const { return originUs_; }
    double secondsAt(size_t device, uint32_t event) const {
        return secondsSince(originUs_, trace(device).timeUs[event]);
    }
    double secondsOf(int64_t timeUs) const { return secondsSince(originUs_, timeUs); }
    // The segments and blocks after every event at or before `timeUs` (all events when INT64_MAX).
    std::vector<StateSegment> stateAt(size_t device, int64_t timeUs) const;
    // What the device's allocations are (Categories.h, docs/categories.md): classified on first use,
    // once per device, and shared by everyone who reads them (leak inputs, composition, block map,
    // allocation bands), so a capture is never classified twice. Safe from any thread: a second
    // caller waits for the first one's result.
    std::shared_ptr<const DeviceCategories> categories(size_t device) const;
    // The device's CUDA graph private pools (GraphPools.h), read once on first use and shared by the
    // block map, the bands, composition, growth regions and the CLI. Safe from any thread.
    std::shared_ptr<const GraphPools> graphPools(size_t device) const;

  private:
    friend class LiveAnalysis; // grows snapshots that nobody else holds yet (see LiveAnalysis.h)
    CaptureAnalysis() = default;
    void collectWarnings();
    std::string baselineWarning(size_t device) const;

    std::unique_ptr<Capture> capture_;
    AllocatorRules rules_;
    std::vector<ReplayResult> replays_;
    std::vector<GhostBlocks> ghosts_;
    std::vector<std::string> warnings_;
    int64_t originUs_ = 0;
    // categories(): filled on demand (LiveAnalysis clears it when it grows a snapshot in place)
    mutable std::mutex categoriesMutex_;
    mutable std::vector<std::shared_ptr<const DeviceCategories>> categories_;
    mutable std::mutex poolsMutex_; // graphPools(): likewise, cleared with the categories
    mutable std::vector<std::shared_ptr<const GraphPools>> graphPools_;
};

} // namespace vs
