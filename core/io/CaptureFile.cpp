#include "CaptureFile.h"

#include "ContentHead.h"
#include "ProfilerTrace.h"
#include "SnapshotLoader.h"

#include "VscapReader.h"

#include <cstdio>

namespace vs {

static bool fileIsVscap(const std::string& path) {
    uint8_t head[sizeof vscap::kMagic] = {};
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false; // the snapshot reader reports the open error
    const size_t n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    return vscap::looksLikeVscap({head, n});
}

std::unique_ptr<Capture> loadCaptureFile(const std::string& path, const LoadOptions& options) {
    if (fileIsVscap(path)) return loadVscapFile(path, options);
    if (looksLikeJson(contentHead(path))) return loadProfilerTraceFile(path, options); // pickles never start so
    return loadSnapshotFile(path, options);
}

std::unique_ptr<Capture> loadCaptureBytes(std::span<const uint8_t> bytes, const LoadOptions& options) {
    if (vscap::looksLikeVscap(bytes)) return loadVscapBytes(bytes, options);
    if (looksLikeJson(bytes.first(std::min<size_t>(bytes.size(), 256)))) return loadProfilerTraceBytes(bytes, options);
    return loadSnapshotBytes(bytes, options);
}

} // namespace vs
