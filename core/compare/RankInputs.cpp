#include "RankInputs.h"

#include "util/Format.h"

#include <filesystem>
#include <unordered_map>

namespace vs {
namespace {

std::string nameOf(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

// "rank3.pickle.vsrank is stale: rank3.pickle has changed since it was summarised (412 MiB then, 530 MiB
// now); summarise it again"
std::string staleWarning(const std::string& summary, const std::string& capture, const SourceStamp& then,
                         const SourceStamp& now) {
    const std::string what = then.size != now.size ? " (" + humanBytes(int64_t(then.size)) + " then, " +
                                                         humanBytes(int64_t(now.size)) + " now)"
                                                   : " (modified since)";
    return nameOf(summary) + " is stale: " + capture + " has changed since it was summarised" + what +
           "; its figures are the old file's (summarise it again)";
}

} // namespace

std::vector<std::string> pairSummaries(const RankInputs& in, std::vector<RankSummary>& ranks,
                                       std::vector<bool>& skip) {
    std::unordered_map<std::string, size_t> captures; // by file name; the first of a name
    for (size_t i = 0; i < in.paths.size(); ++i)
        if (!in.summary[i]) captures.emplace(nameOf(in.paths[i]), i);
    std::vector<std::string> warnings;
    for (size_t i = 0; i < in.paths.size(); ++i) {
        if (!in.summary[i]) continue;
        if (!in.source[i]) { // unreadable: its capture (NAME for NAME.vsrank), when given, is read instead
            const std::string name = nameOf(in.paths[i]);
            const auto it =
                captures.find(name.substr(0, name.size() - std::string(RankSummaryFile::kSuffix).size()));
            if (it == captures.end()) continue;
            skip[i] = true;
            warnings.push_back(ranks[i].error + "; " + nameOf(in.paths[it->second]) + " was read instead");
            continue;
        }
        const SourceStamp& then = *in.source[i];
        // its capture, when given along; the path the summary names is never looked at here (issue
        // 47: it was stat()ed, and its size printed): it names a file of the machine that summarised
        const auto it = captures.find(nameOf(then.path));
        if (it == captures.end() || skip[it->second]) continue;
        skip[it->second] = true;
        const std::string& local = ranks[i].path = in.paths[it->second];
        if (const auto now = SourceStamp::of(local); now && !now->sameFileState(then))
            warnings.push_back(staleWarning(in.paths[i], local, then, *now));
    }
    return warnings;
}

} // namespace vs
