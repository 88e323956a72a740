// `ranks FILES...|FOLDER`: one capture per rank of a distributed job, side by side: peak, final,
// growth and OOMs per rank and the ranks that stand out, each in a sentence. Rank summaries
// (`summarize`'s .vsrank files) are read in place of their captures; stale ones are warned of.
#include "Commands.h"
#include "RemoteFetch.h"

#include "compare/RankSet.h"
#include "util/Format.h"
#include "util/JsonWriter.h"
#include "util/SshTarget.h"
#include "util/TerminalText.h"

#include <cstdio>
#include <filesystem>

namespace vs::cli {
namespace {

const RankOutlier* outlierOf(const RankSet& set, size_t i) {
    for (const auto& o : set.outliers)
        if (o.index == i) return &o;
    return nullptr;
}

void writeJson(const RankSet& set, std::ostream& out) {
    JsonWriter j(out);
    j.beginObject().key("ranks").beginArray();
    for (size_t i = 0; i < set.ranks.size(); ++i) {
        const RankSummary& r = set.ranks[i];
        j.beginObject().field("rank", r.rank).field("file", r.path);
        if (!r.ok()) {
            j.field("error", r.error).endObject();
            continue;
        }
        j.field("device", r.device)
            .field("events", uint64_t(r.events))
            .field("peak_allocated", r.peakAllocated)
            .field("peak_reserved", r.peakReserved)
            .field("final_allocated", r.finalAllocated)
            .field("final_reserved", r.finalReserved)
            .field("growth", r.growth)
            .field("oom_events", r.ooms)
            .field("iterations", uint64_t(r.iterations))
            .field("iteration_marker", r.marker)
            .field("outlier", outlierOf(set, i) != nullptr)
            .endObject();
    }
    j.endArray().field("median_peak_allocated", set.medianPeak).field("median_growth", set.medianGrowth);
    j.key("outliers").beginArray();
    for (const auto& o : set.outliers)
        j.beginObject()
            .field("rank", set.ranks[o.index].rank)
            .field("peak", o.peak)
            .field("growth", o.growth)
            .field("oom", o.oom)
            .field("sentence", o.sentence)
            .endObject();
    j.endArray().key("warnings").beginArray();
    for (const auto& w : set.warnings) j.value(w);
    j.endArray().endObject();
    out << '\n';
}

void writeText(const RankSet& set, std::ostream& out) {
    char line[256];
    std::snprintf(line, sizeof line, "%5s %12s %12s %12s %12s %5s %6s  %s\n", "rank", "peak alloc",
                  "peak reserv", "final alloc", "growth", "OOMs", "iters", "file");
    out << line;
    for (size_t i = 0; i < set.ranks.size(); ++i) {
        const RankSummary& r = set.ranks[i];
        // what a file or a summary says is printed as text, never as control characters
        const std::string file = terminalText(std::filesystem::path(r.path).filename().string());
        if (!r.ok()) {
            std::snprintf(line, sizeof line, "%5d  unreadable: ", r.rank);
            out << line << terminalText(r.error) << "  " << file << "\n";
            continue;
        }
        std::snprintf(line, sizeof line, "%5d %12s %12s %12s %12s %5u %6zu  %s%s\n", r.rank,
                      humanBytes(r.peakAllocated).c_str(), humanBytes(r.peakReserved).c_str(),
                      humanBytes(r.finalAllocated).c_str(), humanBytes(r.growth).c_str(), r.ooms,
                      r.iterations, file.c_str(), outlierOf(set, i) ? "  <- outlier" : "");
        out << line;
    }
    out << "Median of " << set.readable() << " readable ranks: peak " << humanBytes(set.medianPeak)
        << ", growth " << humanBytes(set.medianGrowth) << "\n";
    if (set.outliers.empty()) out << "No rank stands out.\n";
    for (const auto& o : set.outliers) out << "Outlier: " << terminalText(o.sentence) << "\n";
    for (const auto& w : set.warnings) out << "Warning: " << terminalText(w) << "\n";
}

} // namespace

// `ranks FILES...|FOLDER [--json] [--threads N]`
int runRanks(const std::vector<std::string>& args, std::ostream& out) {
    CliArgs a(args, {"--json"}, {"--threads"}, SIZE_MAX);
    std::vector<std::string> files, folderWarnings;
    for (const auto& f : a.files()) {
        std::error_code ec;
        if (isSshUrl(f)) {
            files.push_back(localCopyOf(f)); // named by its address in the output (shownPath)
        } else if (std::filesystem::is_directory(f, ec)) {
            RankFolder folder = rankFiles(f);
            files.insert(files.end(), folder.files.begin(), folder.files.end());
            folderWarnings.insert(folderWarnings.end(), folder.warnings.begin(), folder.warnings.end());
        } else {
            files.push_back(f);
        }
    }
    RankLoadOptions o;
    o.threads = unsigned(a.integer("--threads").value_or(0));
    RankSet set = loadRanks(files, o);
    set.warnings.insert(set.warnings.begin(), folderWarnings.begin(), folderWarnings.end());
    for (auto& r : set.ranks) r.path = shownPath(r.path);
    if (set.readable() == 0)
        throw std::runtime_error("none of the " + std::to_string(files.size()) +
                                 " files could be read: " + set.ranks.front().error);
    if (a.has("--json"))
        writeJson(set, out);
    else
        writeText(set, out);
    return 0;
}

} // namespace vs::cli
