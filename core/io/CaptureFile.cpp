#include "CaptureFile.h"

#include "ContentHead.h"
#include "LoadError.h"
#include "ProfilerTrace.h"
#include "RegularFile.h"
#include "SnapshotLoader.h"

#include "VscapReader.h"

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <optional>

namespace vs {

static bool fileIsVscap(const std::string& path) {
    uint8_t head[sizeof vscap::kMagic] = {};
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false; // the snapshot reader reports the open error
    const size_t n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    return vscap::looksLikeVscap({head, n});
}

// Compressors whose files people pass on but vramscope does not read (it reads gzip and zstd): named
// by their magic bytes, so that the message says what to run instead of which opcode is missing.
struct OtherCompression {
    const char* what;       // what the file is
    const char* advice;     // what to run instead
    bool compressed = true; // a compressed stream (zstd or gzip would do instead), not an archive
};
static std::optional<OtherCompression> otherCompression(std::span<const uint8_t> h) {
    auto starts = [&](std::initializer_list<uint8_t> m) {
        return h.size() >= m.size() && std::equal(m.begin(), m.end(), h.begin());
    };
    // `-dc ... >` rather than `-d`: xz, bzip2 and lz4 refuse a file whose name lacks their suffix
    if (starts({0xfd, 0x37, 0x7a, 0x58}))
        return OtherCompression{"compressed with xz", "decompress it first (xz -dc FILE > run.pickle)"};
    if (starts({0x42, 0x5a, 0x68}))
        return OtherCompression{"compressed with bzip2", "decompress it first (bzip2 -dc FILE > run.pickle)"};
    if (starts({0x04, 0x22, 0x4d, 0x18}))
        return OtherCompression{"compressed with lz4", "decompress it first (lz4 -dc FILE > run.pickle)"};
    if (starts({0x5d, 0x00, 0x00}))
        return OtherCompression{"compressed with lzma",
                                "decompress it first (xz -dc --format=lzma FILE > run.pickle)"};
    if (starts({0x50, 0x4b, 0x03, 0x04}))
        return OtherCompression{
            "a zip archive",
            "a torch.save() file is one, and holds tensors, not a memory snapshot: save the "
            "snapshot with torch.cuda.memory._dump_snapshot(), or extract the archive "
            "(unzip FILE) if it holds one",
            false};
    return std::nullopt;
}

// What the detection concluded, when the last format it tries does not fit either: which formats it
// ruled out and what the file starts with, instead of only the pickle reader's complaint.
static void checkPickleHead(std::span<const uint8_t> head) {
    if (head.empty() || head[0] == 0x80) return; // empty or unreadable: the reader says so
    if (const auto other = otherCompression(head))
        throw LoadError(std::string(other->what) + ", which vramscope does not read: " + other->advice +
                        (other->compressed ? ", or compress it with zstd or gzip, which it reads" : ""));
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
    requireRegularFile(path); // before the sniffing below opens it: a FIFO would block there
    if (fileIsVscap(path)) return loadVscapFile(path, options);
    const auto head = contentHead(path);
    if (looksLikeJson(head)) return loadProfilerTraceFile(path, options); // pickles never start so
    checkPickleHead(head);
    return loadSnapshotFile(path, options);
}

std::unique_ptr<Capture> loadCaptureBytes(std::span<const uint8_t> bytes, const LoadOptions& options) {
    if (vscap::looksLikeVscap(bytes)) return loadVscapBytes(bytes, options);
    const auto head = contentHead(bytes); // as loadCaptureFile: a .json.gz trace is a trace
    if (looksLikeJson(head)) return loadProfilerTraceBytes(bytes, options);
    checkPickleHead(head);
    return loadSnapshotBytes(bytes, options);
}

} // namespace vs
