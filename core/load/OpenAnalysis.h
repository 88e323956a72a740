#pragma once
// Opening a capture file for analysis: read it (any format CaptureFile knows) and replay it. The one
// place that joins the readers (io) and the analyses, which know nothing of each other.
#include "analysis/CaptureAnalysis.h"

#include <memory>
#include <string>

namespace vs {

// Loads and replays. Throws LoadError for bad input, Cancelled when cancelled; progress covers both.
std::shared_ptr<const CaptureAnalysis> openAnalysis(const std::string& path, const AnalysisOptions& options = {});

} // namespace vs
