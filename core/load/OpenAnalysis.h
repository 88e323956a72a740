#pragma once
// Opening a capture file for analysis: read it (any format CaptureFile knows) and replay it. The one
// place that joins the readers (io) and the analyses, which know nothing of each other.
#include "analysis/CaptureAnalysis.h"
#include "analysis/replay/CaptureWindow.h"

#include <memory>
#include <optional>
#include <string>

namespace vs {

// What to read of the file, beyond progress and cancellation.
struct OpenOptions {
    std::optional<TimeWindow> window; // only this window (`--from/--to`, File > Open Range...)
    bool openIntactPart = false;      // a damaged .vscap: read the chunks before the damage
};

// Loads and replays. Throws LoadError for bad input (DamagedCapture for a damaged .vscap), Cancelled
// when cancelled; progress covers both.
std::shared_ptr<const CaptureAnalysis>
openAnalysis(const std::string& path, const AnalysisOptions& options = {}, const OpenOptions& open = {});

} // namespace vs
