#pragma once
// A rank's summary as a small file of its own (NAME.vsrank, a few KB): what `vramscope-cli summarize`
// writes where the captures are (one process per capture, on the cluster's own scheduler) and what
// `ranks`, File → Open Ranks Folder… and the heatmap read instead of the capture. It names the capture
// it was made from (path, size, modification time) so that a reader can tell a stale one. The format
// is versioned and documented in docs/ranks.md; the reader trusts nothing in it (sizes, counts,
// values are bounded and checked) and throws RankSummaryError.
#include "RankSummary.h"

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

namespace vs {

// What is wrong with a summary file, in a sentence naming the file.
struct RankSummaryError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The capture a summary was made from, as it was then.
struct SourceStamp {
    std::string path;    // absolute, on the machine that summarised it
    uint64_t size = 0;   // bytes
    int64_t mtimeNs = 0; // modification time, nanoseconds since 1970
    // The file's stamp now (its path as given), or nothing when it cannot be stat'ed.
    static std::optional<SourceStamp> of(const std::string& path);
    bool sameFileState(const SourceStamp& o) const { return size == o.size && mtimeNs == o.mtimeNs; }
};

struct RankSummaryFile {
    static constexpr char kMagic[8] = {'\x89', 'V', 'S', 'R', 'A', 'N', 'K', '\n'};
    static constexpr uint16_t kMajor = 1, kMinor = 0; // a reader takes its major, any minor
    static constexpr uint32_t kMaxPayload = 1 << 20;  // bytes, decompressed (a real one: < 200 KB)
    static constexpr uint64_t kMaxFile = 4 << 20;     // bytes on disk
    static constexpr const char* kSuffix = ".vsrank";

    RankSummary summary; // its path is the source's
    SourceStamp source;
    uint16_t minor = kMinor; // of the file read
};

// The file's bytes (header and one zstd frame). The summary must be readable (ok()).
std::string encodeRankSummary(const RankSummary& summary, const SourceStamp& source);
// Throws RankSummaryError (a bad magic, a newer major version, a cut or corrupt file, counts or values out
// of bounds) naming what is wrong.
RankSummaryFile decodeRankSummary(std::span<const uint8_t> bytes);
RankSummaryFile readRankSummaryFile(const std::string& path);

// "rank3.pickle" -> "rank3.pickle.vsrank": the summary's file name for a capture.
std::string rankSummaryName(const std::string& capturePath);
bool isRankSummaryPath(const std::string& path);

} // namespace vs
