#pragma once
// The vramscope-cli commands. Each returns the process exit code; errors are thrown
// (UsageError, LoadError) and turned into one line on stderr and exit code 2 by main().
#include "CliArgs.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

namespace vs {
class CaptureAnalysis;
}

namespace vs::cli {

int runSummary(const std::vector<std::string>& args, std::ostream& out);
int runSeries(const std::vector<std::string>& args, std::ostream& out);
int runState(const std::vector<std::string>& args, std::ostream& out);
int runLeaks(const std::vector<std::string>& args, std::ostream& out);
int runCheck(const std::vector<std::string>& args, std::ostream& out);
int runConvert(const std::vector<std::string>& args, std::ostream& out);
int runRetention(const std::vector<std::string>& args, std::ostream& out);
int runRun(const std::vector<std::string>& args, std::ostream& out);
int runRemoteRun(const std::vector<std::string>& args, std::ostream& out); // run --remote HOST
int runCompare(const std::vector<std::string>& args, std::ostream& out);
int runRanks(const std::vector<std::string>& args, std::ostream& out);
int runSummarize(const std::vector<std::string>& args, std::ostream& out);
int runWhatIf(const std::vector<std::string>& args, std::ostream& out);
int runComposition(const std::vector<std::string>& args, std::ostream& out);
int runPeak(const std::vector<std::string>& args, std::ostream& out);

// --level cuda (any command): open the CUDA level of a recording with both levels instead.
extern bool openCudaLevelInstead;
// What the command is doing, for the one line main() prints when memory runs out ("out of memory
// while comparing the two captures"): a command sets it when it moves past reading its input.
extern const char* currentStep;
// Shared by the commands: open the capture; choose the device (--device N, else the longest trace).
std::shared_ptr<const CaptureAnalysis> openCapture(const std::string& path);
// The capture of the command's FILE, only the window `--from S --to S` when given (seconds since the
// first event; the allocator state at its start is the full capture's).
std::shared_ptr<const CaptureAnalysis> openCapture(const CliArgs& args);
size_t chooseDevice(const CaptureAnalysis& a, const CliArgs& args);
// The moment of a seconds option (--at S): the capture's first event + S, S within the capture.
std::optional<int64_t> momentOption(const CaptureAnalysis& a, const CliArgs& args, const std::string& name);

} // namespace vs::cli
