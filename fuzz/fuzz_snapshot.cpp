// libFuzzer target for the snapshot reader, the loader and the replay: any input must either load
// or raise LoadError, never crash, hang or trip a sanitizer.
#include "analysis/CaptureAnalysis.h"
#include "io/LoadError.h"
#include "io/SnapshotLoader.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        vs::LoadOptions options;
        options.maxDecompressed = 64 << 20; // keep decompression bombs inside the fuzzer's memory limit
        auto analysis = vs::CaptureAnalysis::analyse(vs::loadSnapshotBytes({data, size}, options));
        for (size_t d = 0; d < analysis->deviceCount(); ++d) {
            (void)analysis->summary(d);
            const auto& t = analysis->trace(d);
            if (t.eventCount()) (void)analysis->stateAt(d, t.timeUs[t.eventCount() / 2]);
        }
    } catch (const vs::LoadError&) {
    }
    return 0;
}
