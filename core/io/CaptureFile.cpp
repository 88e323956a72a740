#include "CaptureFile.h"

#include "ContentHead.h"
#include "LoadError.h"
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

// What the detection concluded, when the last format it tries does not fit either: which formats it
// ruled out and what the file starts with, instead of only the pickle reader's complaint.
static void checkPickleHead(std::span<const uint8_t> head) {
    if (head.empty() || head[0] == 0x80) return; // empty or unreadable: the reader says so
    char start[32] = {};
    for (size_t i = 0, at = 0; i < std::min<size_t>(head.size(), 4); ++i)
        at += size_t(std::snprintf(start + at, sizeof start - at, " 0x%02x", head[i]));
    throw LoadError(
        "not a capture vramscope reads: it has no .vscap header and is not JSON, so it was read as a "
        "PyTorch snapshot pickle, but it is not a pickle either (it starts with" +
            std::string(start) + ", not the PROTO opcode 0x80)",
        0);
}

std::unique_ptr<Capture> loadCaptureFile(const std::string& path, const LoadOptions& options) {
    if (fileIsVscap(path)) return loadVscapFile(path, options);
    const auto head = contentHead(path);
    if (looksLikeJson(head)) return loadProfilerTraceFile(path, options); // pickles never start so
    checkPickleHead(head);
    return loadSnapshotFile(path, options);
}

std::unique_ptr<Capture> loadCaptureBytes(std::span<const uint8_t> bytes, const LoadOptions& options) {
    if (vscap::looksLikeVscap(bytes)) return loadVscapBytes(bytes, options);
    if (looksLikeJson(bytes.first(std::min<size_t>(bytes.size(), 256))))
        return loadProfilerTraceBytes(bytes, options);
    if (sniffCompression(bytes) == Compression::None)
        checkPickleHead(bytes.first(std::min<size_t>(bytes.size(), 4)));
    return loadSnapshotBytes(bytes, options);
}

} // namespace vs
