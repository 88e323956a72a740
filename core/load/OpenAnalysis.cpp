#include "OpenAnalysis.h"

#include "io/CaptureFile.h"

namespace vs {

std::shared_ptr<const CaptureAnalysis> openAnalysis(const std::string& path, const AnalysisOptions& options) {
    LoadOptions lo;
    if (options.progress || options.cancel)
        lo.progress.report = [&](uint64_t done, uint64_t total) {
            if (options.cancel && options.cancel->load()) return false;
            // reading is most of the time; the replay reports the last fifth
            return !options.progress ||
                   options.progress(0.8 * static_cast<double>(done) / static_cast<double>(total));
        };
    return CaptureAnalysis::analyse(loadCaptureFile(path, lo), options);
}

} // namespace vs
