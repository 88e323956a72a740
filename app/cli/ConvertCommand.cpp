// `convert IN OUT.vscap`: rewrites any capture vramscope reads (IN may be an ssh:// address) as a
// .vscap file here.
#include "Commands.h"
#include "RemoteFetch.h"

#include "io/CaptureFile.h"
#include "io/VscapExport.h"
#include "util/SshTarget.h"

#include <filesystem>

namespace vs::cli {

int runConvert(const std::vector<std::string>& args, std::ostream& out) {
    std::vector<std::string> files, options;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i].rfind("--", 0) != 0) {
            files.push_back(args[i]);
            continue;
        }
        options.push_back(args[i]);
        if (i + 1 < args.size()) options.push_back(args[++i]);
    }
    if (files.size() != 2) throw UsageError("convert needs an input and an output file");
    options.insert(options.begin(), files[0]);
    const CliArgs a(options, {}, {"--level"});
    vscap::Writer::Options wo;
    if (auto level = a.integer("--level")) wo.level = *level;
    if (isSshUrl(files[1]))
        throw UsageError("convert writes its output here: give a local path, not an ssh:// one");
    std::error_code ec;
    if (std::filesystem::equivalent(files[0], files[1], ec))
        throw UsageError("the output would overwrite the input");
    const auto capture = loadCaptureFile(localCopyOf(files[0]), {}); // ssh://host/path: copied here first
    writeVscapFile(*capture, files[1], wo);
    size_t events = 0;
    for (const auto& d : capture->devices) events += d.eventCount();
    out << "wrote " << files[1] << ": " << events << " events, " << std::filesystem::file_size(files[1])
        << " bytes\n";
    return 0;
}

} // namespace vs::cli
