#include "Commands.h"

#include "analysis/CaptureAnalysis.h"
#include "load/OpenAnalysis.h"

namespace vs::cli {

std::shared_ptr<const CaptureAnalysis> openCapture(const std::string& path) {
    return openAnalysis(path);
}

size_t chooseDevice(const CaptureAnalysis& a, const CliArgs& args) {
    if (a.deviceCount() == 0) throw UsageError("the capture holds no device");
    if (auto n = args.integer("--device")) {
        const int i = a.indexOfDevice(*n);
        if (i < 0) throw UsageError("the capture has no device " + std::to_string(*n));
        return static_cast<size_t>(i);
    }
    size_t best = 0; // like memory_viz: the device with the longest trace
    for (size_t i = 1; i < a.deviceCount(); ++i)
        if (a.trace(i).eventCount() > a.trace(best).eventCount()) best = i;
    return best;
}

} // namespace vs::cli
