#pragma once
// The text a user pastes into a bug report: file, devices, peaks, final values and warnings, as
// Markdown.
#include "analysis/CaptureAnalysis.h"

#include <string>

namespace vs {

std::string summaryMarkdown(const CaptureAnalysis& a);

} // namespace vs
