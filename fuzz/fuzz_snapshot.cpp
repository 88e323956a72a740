// libFuzzer target for the readers (snapshot pickles and .vscap), the loader and the replay: any
// input must either load or raise LoadError, never crash, hang or trip a sanitizer. An input that
// starts with "RAW!" is fed to the .vscap record decoder as one chunk's payload, past the checksum
// that would otherwise reject nearly every mutation.
#include "analysis/CaptureAnalysis.h"
#include "analysis/Retention.h"
#include "io/CaptureFile.h"
#include "io/LoadError.h"
#include "io/VscapRecords.h"

#include <cstring>
#include <vector>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        if (size >= 4 && std::memcmp(data, "RAW!", 4) == 0) {
            std::vector<uint8_t> padded(data + 4, data + size);
            padded.resize(padded.size() + vs::vscap::Records::kPadding);
            auto capture = std::make_unique<vs::Capture>();
            vs::vscap::Records(*capture).read({padded.data(), size - 4}, 0);
            for (const auto& g : capture->retention) { // hostile graphs: any shape must be analysable
                const auto r = vs::analyseRetention(*capture, g);
                for (const auto& grp : r.groups)
                    (void)vs::retentionPathText(*capture, g, r, grp.blocks.front());
            }
            (void)vs::CaptureAnalysis::analyse(std::move(capture));
            return 0;
        }
        vs::LoadOptions options;
        options.maxMemory = 256 << 20;  // keep decompression bombs inside the fuzzer's memory limit
        auto analysis = vs::CaptureAnalysis::analyse(vs::loadCaptureBytes({data, size}, options));
        for (size_t d = 0; d < analysis->deviceCount(); ++d) {
            (void)analysis->summary(d);
            const auto& t = analysis->trace(d);
            if (t.eventCount()) (void)analysis->stateAt(d, t.timeUs[t.eventCount() / 2]);
        }
    } catch (const vs::LoadError&) {
    }
    return 0;
}
