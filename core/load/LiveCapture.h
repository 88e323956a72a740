#pragma once
// A live stream decoded and analysed as it arrives: the decoder keeps its state between pieces and
// fills a capture with only the events new since the last snapshot; LiveAnalysis appends them to
// the growing snapshots and continues the replay. Use from one thread at a time; the snapshots it
// returns may be read from any thread meanwhile.
#include "analysis/LiveAnalysis.h"
#include "io/VscapReader.h"

#include <memory>
#include <span>
#include <string>

namespace vs {

class LiveCapture {
  public:
    explicit LiveCapture(uint32_t checkpointEvery = Replay::kCheckpointEvery);

    // Decodes the next bytes of the stream (any split: an incomplete chunk waits for the rest) and
    // returns a snapshot of everything so far; null while no device has appeared. Throws LoadError
    // on a corrupt stream.
    std::shared_ptr<const CaptureAnalysis> append(std::span<const uint8_t> bytes);
    // A snapshot without new bytes (the same data: cheap).
    std::shared_ptr<const CaptureAnalysis> snapshot() { return append({}); }

    uint64_t bytesUsed() const { return used_; } // header and complete chunks decoded
    bool ended() const { return decoder_.ended(); }
    const LiveAnalysis& analysis() const { return analysis_; }

  private:
    Capture delta_; // the decoder's target: tables grow, event columns are drained by every append
    vscap::Decoder decoder_;
    LiveAnalysis analysis_;
    std::string pending_; // bytes of a chunk that has not fully arrived
    uint64_t used_ = 0;
};

} // namespace vs
