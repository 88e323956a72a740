#pragma once
// Which files a set of ranks is read from when summaries (NAME.vsrank, RankSummaryFile.h) and
// captures are given together: a summary stands for the capture its source names (the same file
// name), which is then not read at all; a summary whose capture is given along but has changed since
// it was summarised is stale, said in a warning, and used all the same. The source path a summary
// names is never opened nor stat()ed: it is a path of the machine that summarised it.
// An unreadable summary gives way to its capture (NAME for NAME.vsrank) when that is given too.
#include "RankSummaryFile.h"

#include <optional>
#include <string>
#include <vector>

namespace vs {

struct RankInputs {
    std::vector<std::string> paths;                 // as given
    std::vector<bool> summary;                      // paths[i] is a summary file
    std::vector<std::optional<SourceStamp>> source; // a summary read: the capture it was made from
};

// For every summary read, the capture it replaces among the other paths (marked in `skip`, and
// `ranks[i].path` set to it so that opening the rank opens the capture here); an unreadable summary
// whose capture is given is marked in `skip` instead. Returns the warnings (stale, unreadable).
std::vector<std::string> pairSummaries(const RankInputs& in, std::vector<RankSummary>& ranks,
                                       std::vector<bool>& skip);

} // namespace vs
