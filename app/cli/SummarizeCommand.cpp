// `summarize FILE|FOLDER... -o DIR`: each capture's rank summary (what the Ranks window and `ranks` keep of
// it) as DIR/NAME.vsrank, so that the heavy reading runs where the captures are, one process per file
// under any batch engine (docs/ranks.md), and `ranks` or the Ranks window read a few KB per rank.
// Processes share nothing: each writes its own files atomically (a temporary beside it, renamed).
// A file that cannot be read is said in one line on stderr; the others are summarised all the same.
#include "Commands.h"
#include "RemoteFetch.h"

#include "analysis/CaptureAnalysis.h"
#include "compare/RankFolder.h"
#include "compare/RankSummaryFile.h"
#include "io/LoadError.h"
#include "util/AtomicFile.h"
#include "util/SshTarget.h"
#include "util/TerminalText.h"

#include <filesystem>
#include <iostream>
#include <map>

namespace vs::cli {
namespace {

// Summarises one capture (a path, or an ssh:// address copied here as `local`) into `dir`; returns
// the summary's path. Throws on bad input.
std::string summarizeLocal(const std::string& file, const std::string& local, const std::string& dir) {
    // stamped before reading: a capture still being written then reads as stale later, not as current
    auto stamp = SourceStamp::of(local);
    if (!stamp) throw LoadError("cannot open " + file);
    if (local != file) stamp->path = file; // the address it was read from, not the copy's
    RankSummary s = summariseRank(*openCapture(local));
    if (!s.ok()) throw LoadError(s.error);
    s.path = stamp->path;
    const std::string out = (std::filesystem::path(dir) / rankSummaryName(file)).string();
    writeFileAtomically(out, encodeRankSummary(s, *stamp));
    return out;
}

// The copy of a remote capture is removed once summarised (or refused): one on disk at a time.
std::string summarizeOne(const std::string& file, const std::string& dir) {
    struct RemovedAfter {
        std::string path;
        ~RemovedAfter() { removeLocalCopy(path); }
    } local{localCopyOf(file)};
    return summarizeLocal(file, local.path, dir);
}

// The captures to summarise: the files given, and the captures in the folders given (what `ranks`
// would read there; an entry that cannot be looked at is skipped with a warning on stderr).
std::vector<std::string> capturesOf(const std::vector<std::string>& given) {
    std::vector<std::string> files;
    for (const auto& f : given) {
        std::error_code ec;
        if (isSshUrl(f) || !std::filesystem::is_directory(f, ec)) {
            files.push_back(f);
            continue;
        }
        const RankFolder folder = rankFiles(f, RankFolderWants::Captures);
        for (const auto& w : folder.warnings)
            std::cerr << "vramscope-cli: warning: " << terminalText(w) << '\n';
        files.insert(files.end(), folder.files.begin(), folder.files.end());
    }
    return files;
}

// `-o DIR` is taken as `--output DIR` (CliArgs knows long options only).
std::vector<std::string> withLongOutput(std::vector<std::string> args) {
    for (auto& a : args)
        if (a == "-o") a = "--output";
    return args;
}

} // namespace

int runSummarize(const std::vector<std::string>& args, std::ostream& out) {
    CliArgs a(withLongOutput(args), {}, {"--output"}, SIZE_MAX);
    const auto dir = a.option("--output");
    if (!dir) throw UsageError("summarize needs -o DIR, the folder to write the summaries into");
    std::error_code ec;
    std::filesystem::create_directories(*dir, ec); // many processes may race to make it: that is fine
    if (!std::filesystem::is_directory(*dir, ec)) throw std::runtime_error("cannot make the folder " + *dir);
    size_t failed = 0;
    std::map<std::string, std::string> written; // summary name -> the capture it was made from
    const std::vector<std::string> files = capturesOf(a.files());
    for (const auto& file : files) {
        try {
            // two captures of one name (in two folders) would write one summary: the second is refused
            const auto [it, fresh] = written.emplace(rankSummaryName(file), file);
            if (!fresh)
                throw std::runtime_error(
                    "has the file name of " + it->second +
                    ": its summary would replace that one (give the captures distinct names)");
            out << summarizeOne(file, *dir) << '\n';
        } catch (const std::bad_alloc&) {
            ++failed, std::cerr << "vramscope-cli: error: " << file << ": out of memory while reading it\n";
        } catch (const std::exception& e) {
            std::string line = e.what();
            for (char& c : line)
                if (c == '\n') c = ' ';
            ++failed, std::cerr << "vramscope-cli: error: " << file << ": " << line << '\n';
        }
    }
    if (failed == 0) return 0;
    if (files.size() > 1)
        std::cerr << "vramscope-cli: error: " << failed << " of " << files.size()
                  << " files could not be summarised\n";
    return 2;
}

} // namespace vs::cli
