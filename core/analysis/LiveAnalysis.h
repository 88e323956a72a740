#pragma once
// A live session's analysis, grown as the stream arrives instead of recomputed: every publish()
// appends the newly decoded events to the capture and continues the forward replay where it
// stopped, in O(new events), and returns an immutable CaptureAnalysis equal to a one-shot analysis
// of the same stream prefix.
//
// Threads: one thread at a time calls publish() (the live worker); any thread may read the
// snapshots it returned, while publish() runs. Snapshots are copy-on-write by recycling: a snapshot
// is never changed while anyone but this object holds it. Each publish hands out a pointer with a
// control block of its own, whose deleter (run when its last holder, on any thread, lets go) marks
// the snapshot free with a release store. publish() takes a free pooled snapshot (acquire load:
// every read of its holders happened before), appends to it the tail it lacks (copied from the
// newest snapshot, which is only read) and the new events, and hands it out. With the GUI holding
// one snapshot, two alternate, each catching up by the last two refreshes' events.
//
// A recording without a final block list replays from an empty allocator, leniently, exactly as
// CaptureAnalysis does for a killed recording. When the final block list (a Segments record)
// arrives, the one-shot analysis replays backward from it: a publish() then does that full
// analysis, again only when something arrived after it (a stream normally ends right after it).
#include "analysis/CaptureAnalysis.h"
#include "analysis/replay/ColumnRegrow.h"
#include "analysis/replay/ForwardReplay.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace vs {

class LiveAnalysis {
  public:
    explicit LiveAnalysis(uint32_t checkpointEvery = Replay::kCheckpointEvery);

    // `delta`: the decoder's capture. Its event columns hold the events decoded since the last
    // publish and are drained here; everything else in it only grows. `extraWarnings` follow the
    // capture's own. Null while no device has appeared.
    std::shared_ptr<const CaptureAnalysis> publish(Capture& delta,
                                                   const std::vector<std::string>& extraWarnings = {});

    // False once a final block list arrived: every publish is then a full analysis.
    bool incremental() const { return !final_; }
    size_t poolSize() const { return pool_.size(); } // snapshots kept for reuse (tests, benchmarks)
    // Snapshots built from nothing (a copy of everything): 2 or 3 in a session whose window lets
    // go of what it showed; more means someone keeps old snapshots alive.
    size_t snapshotsMade() const { return made_; }

  private:
    struct Slot {
        std::shared_ptr<CaptureAnalysis> snapshot;
        std::shared_ptr<std::atomic<bool>> held;           // a handed-out pointer to it is alive somewhere
        std::shared_ptr<std::vector<ColumnRegrow>> regrow; // per device: its columns' next buffers
    };
    Slot& takeFree();
    static std::shared_ptr<const CaptureAnalysis> handOut(const Slot& slot);
    void prepareGrowth(const Slot& slot, const Capture& delta) const;
    void catchUp(CaptureAnalysis& s) const;
    void append(CaptureAnalysis& s, Capture& delta);
    static void finishSnapshot(CaptureAnalysis& s);
    std::shared_ptr<const CaptureAnalysis> fullAnalysis(const CaptureAnalysis& s);

    uint32_t every_;
    std::vector<Slot> pool_;
    std::shared_ptr<CaptureAnalysis> latest_; // the newest published snapshot (only read from now on)
    std::vector<ForwardReplay> replays_;      // per device: the allocator after latest_'s events
    AllocatorRules rules_;
    bool final_ = false;
    size_t made_ = 0;
    std::shared_ptr<const CaptureAnalysis> full_; // the last full analysis (after the final block list)
};

} // namespace vs
