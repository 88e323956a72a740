#include "OpenCudaLevel.h"

#include "io/CaptureFile.h"
#include "io/LoadError.h"

namespace vs {

std::unique_ptr<Capture> takeCudaLevel(Capture& both) {
    if (!both.cudaLevel) return nullptr;
    // Moving keeps the string table's texts in place (a deque), so its index stays valid.
    auto level = std::make_unique<Capture>(std::move(*both.cudaLevel));
    both.cudaLevel.reset();
    return level;
}

std::shared_ptr<const CaptureAnalysis> openCudaLevel(const std::string& path,
                                                     const AnalysisOptions& options) {
    LoadOptions lo;
    if (options.cancel) lo.progress.report = [&](uint64_t, uint64_t) { return !options.cancel->load(); };
    auto both = loadCaptureFile(path, lo);
    auto level = takeCudaLevel(*both);
    if (!level)
        throw LoadError(
            "this capture holds no CUDA level: record it with `python -m vramscope record --native` "
            "(or open a recording of the CUPTI agent as it is)");
    level->warnings.insert(level->warnings.begin(), both->warnings.begin(), both->warnings.end());
    return CaptureAnalysis::analyse(std::move(level), options);
}

} // namespace vs
