#pragma once
// The files of a folder of ranks: its captures (.pickle, .pickle.gz, .pickle.zst, .vscap) and rank
// summaries (.vsrank, written by `vramscope-cli summarize`), by rank. An entry named like one that
// cannot be looked at (a symlink loop, a link to nothing, a permission refused) or is no regular
// file (a FIFO, a folder) is skipped with a warning: one bad entry in a shared folder does not stop
// the others being read.
#include <string>
#include <vector>

namespace vs {

struct RankFolder {
    std::vector<std::string> files;    // by rank, then by name
    std::vector<std::string> warnings; // "rank3.pickle skipped: Too many levels of symbolic links"
};

enum class RankFolderWants { CapturesAndSummaries, Captures };

// Throws std::runtime_error when `folder` is not a folder that can be listed, or holds none.
RankFolder rankFiles(const std::string& folder,
                     RankFolderWants wants = RankFolderWants::CapturesAndSummaries);

} // namespace vs
