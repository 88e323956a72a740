#include "CaptureFile.h"

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
    return fileIsVscap(path) ? loadVscapFile(path, options) : loadSnapshotFile(path, options);
}

std::unique_ptr<Capture> loadCaptureBytes(std::span<const uint8_t> bytes, const LoadOptions& options) {
    return vscap::looksLikeVscap(bytes) ? loadVscapBytes(bytes, options) : loadSnapshotBytes(bytes, options);
}

} // namespace vs
