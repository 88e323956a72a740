#include "Commands.h"
#include "RemoteFetch.h"

#include "analysis/CaptureAnalysis.h"
#include "load/OpenAnalysis.h"
#include "load/OpenCudaLevel.h"

namespace vs::cli {

bool openCudaLevelInstead = false;
const char* currentStep = "reading the input";

std::shared_ptr<const CaptureAnalysis> openCapture(const std::string& path) {
    const std::string local = localCopyOf(path); // ssh://host/path: copied here first
    return openCudaLevelInstead ? openCudaLevel(local) : openAnalysis(local);
}

std::shared_ptr<const CaptureAnalysis> openCapture(const CliArgs& args) {
    const auto from = args.number("--from"), to = args.number("--to");
    if (!from && !to) return openCapture(args.file());
    TimeWindow w;
    if (from) w.fromS = *from;
    if (to) w.toS = *to;
    if (!(w.fromS >= 0) || !(w.toS > w.fromS))
        throw UsageError("--from and --to need seconds since the first event, --to after --from");
    return openAnalysis(localCopyOf(args.file()), {}, {w, false});
}

size_t chooseDevice(const CaptureAnalysis& a, const CliArgs& args) {
    if (a.deviceCount() == 0) throw UsageError("the capture holds no device");
    if (auto n = args.integer("--device")) {
        const int i = a.indexOfDevice(*n);
        if (i < 0) throw UsageError("the capture has no device " + std::to_string(*n));
        return static_cast<size_t>(i);
    }
    return a.defaultDevice();
}

} // namespace vs::cli
