#pragma once
// Opening the CUDA level of a recording that holds both levels (`record --native`): the CUPTI
// agent's part, analysed on its own like any driver-level recording (native stacks, leaks by
// native site). Throws LoadError when the file has no CUDA level.
#include "analysis/CaptureAnalysis.h"

#include <memory>
#include <string>

namespace vs {

std::shared_ptr<const CaptureAnalysis> openCudaLevel(const std::string& path,
                                                     const AnalysisOptions& options = {});
// The CUDA level taken out of a loaded capture (null when it has none).
std::unique_ptr<Capture> takeCudaLevel(Capture& both);

} // namespace vs
