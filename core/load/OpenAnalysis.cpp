#include "OpenAnalysis.h"

#include "io/CaptureFile.h"
#include "io/LoadError.h"

#include <stdexcept>

namespace vs {

std::shared_ptr<const CaptureAnalysis> openAnalysis(const std::string& path, const AnalysisOptions& options,
                                                    const OpenOptions& open) {
    LoadOptions lo;
    lo.openIntactPart = open.openIntactPart;
    if (options.progress || options.cancel)
        lo.progress.report = [&](uint64_t done, uint64_t total) {
            if (options.cancel && options.cancel->load()) return false;
            // reading is most of the time; the replay reports the last fifth
            return !options.progress ||
                   options.progress(0.8 * static_cast<double>(done) / static_cast<double>(total));
        };
    auto capture = loadCaptureFile(path, lo);
    if (open.window) try {
            capture = cutWindow(std::move(capture), *open.window, options.cancel);
        } catch (const std::invalid_argument& e) {
            throw LoadError(e.what());
        }
    return CaptureAnalysis::analyse(std::move(capture), options);
}

} // namespace vs
