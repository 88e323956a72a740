#include "RankFolder.h"

#include "RankSummary.h"
#include "RankSummaryFile.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace vs {
namespace {

bool endsWith(const std::string& name, const std::string& suffix) {
    return name.size() > suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool isCaptureName(const std::string& name) {
    return endsWith(name, ".vscap") || endsWith(name, ".pickle") || endsWith(name, ".pickle.gz") ||
           endsWith(name, ".pickle.zst");
}

// Why an entry named like a rank's file is not read, or "" when it is a regular file (links followed).
std::string whyNotRead(const std::filesystem::directory_entry& e) {
    std::error_code ec;
    const auto status = e.status(ec);
    // listed, so there: not found is a link whose target is not (or an entry removed meanwhile)
    if (ec == std::errc::no_such_file_or_directory || status.type() == std::filesystem::file_type::not_found)
        return "a link to nothing";
    if (ec) return ec.message();
    if (status.type() != std::filesystem::file_type::regular) return "not a regular file";
    return "";
}

} // namespace

RankFolder rankFiles(const std::string& folder, RankFolderWants wants) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) throw std::runtime_error(folder + " is not a folder");
    fs::directory_iterator it(folder, ec);
    if (ec) throw std::runtime_error("cannot list " + folder + ": " + ec.message());
    RankFolder out;
    // increment(ec), never ++: an entry that cannot be read ends the listing with a message, not a throw
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const bool summary = wants == RankFolderWants::CapturesAndSummaries && isRankSummaryPath(name);
        if (!summary && !isCaptureName(name)) continue;
        if (const std::string why = whyNotRead(*it); !why.empty())
            out.warnings.push_back(name + " skipped: " + why);
        else
            out.files.push_back(it->path().string());
    }
    std::sort(out.warnings.begin(), out.warnings.end()); // by name, not in the listing's order
    if (ec) out.warnings.push_back("the listing of " + folder + " stopped early: " + ec.message());
    std::sort(out.files.begin(), out.files.end(), [](const std::string& a, const std::string& b) {
        const int ra = rankFromPath(a), rb = rankFromPath(b);
        return ra != rb ? ra < rb : a < b;
    });
    if (out.files.empty())
        throw std::runtime_error(
            std::string("no capture files (.pickle, .pickle.gz, .pickle.zst, .vscap)") +
            (wants == RankFolderWants::Captures ? "" : " or rank summaries (.vsrank)") + " in " + folder +
            (out.warnings.empty() ? "" : " that can be read (" + out.warnings.front() + ")"));
    return out;
}

} // namespace vs
