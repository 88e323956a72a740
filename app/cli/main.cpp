// vramscope-cli: the headless side of vramscope, for scripts and CI. Links the Qt-free core only.
#include "Commands.h"

#include "io/LoadError.h"
#include "io/MemoryBudget.h"

#include <cstring>
#include <iostream>

namespace {

const char* kUsage =
    "usage: vramscope-cli COMMAND FILE [OPTIONS]\n"
    "\n"
    "Reads .vscap recordings, PyTorch CUDA memory snapshots (.pickle, .pickle.gz, .pickle.zst) and\n"
    "torch.profiler traces recorded with profile_memory=True (.json, .json.gz: sites are the enclosing "
    "ops).\n"
    "\n"
    "commands:\n"
    "  summary FILE [--json]                    peaks, final values, warnings per device\n"
    "  series FILE [--device N] --csv           time_us,allocated,active,reserved: one row per change\n"
    "  state FILE [--at S] [--device N] --json  segments and blocks after every event up to S seconds\n"
    "                                           after the first event (the end without --at)\n"
    "  leaks FILE [--from S] [--to S] [--device N] [--json]\n"
    "                                           surviving memory by call stack and a diagnosis; without\n"
    "                                           a range, the strongest growth region\n"
    "  check FILE --max-growth SIZE [--device N] [--json] [--junit OUT.xml]\n"
    "                                           CI gate: exit 1 when steady growth (a leak or an\n"
    "                                           accumulation) exceeds SIZE (bytes, or 16M, 1.5G)\n"
    "  check FILE --max-peak-growth PCT [--device N] [--json] [--junit OUT.xml]\n"
    "                                           exit 1 when a phase's peak rises by more than PCT %\n"
    "                                           over the previous phase's\n"
    "  check FILE --baseline BASE --max-peak-regression PCT [--junit OUT.xml]\n"
    "                                           exit 1 when the peak exceeds BASE's by more than PCT %\n"
    "  compare A B [--a-range S:S] [--b-range S:S] [--device N] [--top K] [--json]\n"
    "                                           B against A: setting, peaks per iteration (aligned by\n"
    "                                           iteration), sites that differ, a verdict; A B the same\n"
    "                                           file with two ranges compares two phases of one run\n"
    "  ranks FILES...|FOLDER [--threads N] [--json]\n"
    "                                           one capture per rank: peak, growth, OOMs per rank and\n"
    "                                           the outlier ranks (reads .vsrank summaries too)\n"
    "  summarize FILE|FOLDER... -o DIR          each capture's rank summary as DIR/NAME.vsrank (a few\n"
    "                                           KB; ranks reads it instead of the capture): run it where\n"
    "                                           the captures are, one process per file (docs/ranks.md)\n"
    "  composition FILE [--at S | --at-mark NAME] [--device N] [--json]\n"
    "                                           what the memory is made of: PyTorch's bytes by category\n"
    "                                           (parameter, gradient, optimizer state, input, activation,\n"
    "                                           temporary), its cache, what was allocated outside PyTorch\n"
    "                                           by library (record --native) and the gap to the driver\n"
    "  peak FILE [--device N] [--lines K] [--json]\n"
    "                                           what makes the peak: the moment, what is alive by\n"
    "                                           category and by line, its phase against a typical step,\n"
    "                                           and each phase's (epoch, evaluation) peak\n"
    "  convert IN OUT.vscap [--level N]         rewrite a capture as .vscap (zstd level N, default 3)\n"
    "  retention FILE [--json] [--groups K]     which Python objects keep the blocks alive (.vscap\n"
    "                                           recorded with retention): paths, groups, hints\n"
    "  run [-o FILE] [--live SOCKET] [--stacks native|none] -- PROGRAM ARGS\n"
    "                                           run any CUDA program with the CUPTI agent: its device\n"
    "                                           memory (cudaMalloc, pools, VMM) with native stacks\n"
    "                                           (none: cheaper, without call sites)\n"
    "  run --remote [USER@]HOST[:PORT] [-o LOCAL] [--live SOCKET] [--remote-output PATH] [--cd DIR]\n"
    "      -- PROGRAM ARGS                      record PROGRAM on HOST through your ssh (python: the\n"
    "                                           Python recorder, else the CUPTI agent); the stream comes\n"
    "                                           back live to LOCAL or to a viewer's SOCKET (Listen)\n"
    "  whatif FILE --conf \"key:value,...\" [--capacity BYTES] [--device N] [--json] [--sweep]\n"
    "                                           simulate PyTorch's caching allocator over the capture's\n"
    "                                           requests under other PYTORCH_CUDA_ALLOC_CONF settings\n"
    "                                           (--sweep: 16 common settings ranked by peak reserved)\n"
    "\n"
    "\n"
    "every command: --level cuda        read the CUDA level of a recording with both levels\n"
    "                                   (python -m vramscope record --native): every driver allocation\n"
    "                                   with native stacks, e.g. leaks FILE --level cuda\n"
    "every command: --max-memory SIZE   the most memory one file may take to load (default: half\n"
    "                                   of the RAM; 8G, 512M or bytes)\n"
    "\n"
    "FILE may be ssh://[USER@]HOST[:PORT]/PATH: read through your own ssh (docs/remote.md);\n"
    "a FOLDER must be local\n"
    "\n"
    "summary, series, state and check also take --from S --to S: load only that window of FILE\n"
    "(seconds since the first event; the allocator state at its start is the full capture's)\n"
    "\n"
    "exit status: 0 success, 1 check failed, 2 bad input or usage (one line on stderr)\n";

int fail(const std::string& message) {
    std::string line = message;
    for (char& c : line)
        if (c == '\n') c = ' ';
    std::cerr << "vramscope-cli: error: " << line << '\n';
    return 2;
}

// --max-memory SIZE (or =SIZE) applies to every command: taken out here and set for every load.
// Words after "--" are a program's (run, run --remote): never taken.
void takeMaxMemory(std::vector<std::string>& args) {
    for (size_t i = 0; i < args.size() && args[i] != "--"; ++i) {
        std::string value;
        size_t n = 1;
        if (args[i] == "--max-memory") {
            if (i + 1 >= args.size()) throw vs::cli::UsageError("--max-memory needs a size");
            value = args[i + 1], n = 2;
        } else if (args[i].rfind("--max-memory=", 0) == 0)
            value = args[i].substr(13);
        else
            continue;
        const auto bytes = vs::MemoryBudget::parse(value);
        if (!bytes) throw vs::cli::UsageError("--max-memory needs a size such as 8G, 512M or a byte count");
        vs::MemoryBudget::setProcessDefault(*bytes);
        args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i + n));
        --i;
    }
}

// --level pytorch|cuda applies to every command that reads a capture.
void takeLevel(std::vector<std::string>& args) {
    for (size_t i = 0; i < args.size() && args[i] != "--"; ++i) {
        if (args[i] != "--level" || i + 1 >= args.size() ||
            (args[i + 1] != "cuda" && args[i + 1] != "pytorch"))
            continue;
        vs::cli::openCudaLevelInstead = args[i + 1] == "cuda";
        args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i + 2));
        --i;
    }
}

} // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    if (argc < 2) return fail("no command given (try --help)");
    const std::string cmd = argv[1];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") return std::cout << kUsage, 0;
    if (cmd == "--version") return std::cout << "vramscope-cli " VRAMSCOPE_VERSION "\n", 0;
    std::vector<std::string> args(argv + 2, argv + argc);
    try {
        takeMaxMemory(args);
        if (cmd != "convert") takeLevel(args); // convert's --level is its compression level
        int rc;
        if (cmd == "summary")
            rc = vs::cli::runSummary(args, std::cout);
        else if (cmd == "series")
            rc = vs::cli::runSeries(args, std::cout);
        else if (cmd == "state")
            rc = vs::cli::runState(args, std::cout);
        else if (cmd == "leaks")
            rc = vs::cli::runLeaks(args, std::cout);
        else if (cmd == "check")
            rc = vs::cli::runCheck(args, std::cout);
        else if (cmd == "convert")
            rc = vs::cli::runConvert(args, std::cout);
        else if (cmd == "retention")
            rc = vs::cli::runRetention(args, std::cout);
        else if (cmd == "run")
            rc = vs::cli::runRun(args, std::cout);
        else if (cmd == "compare")
            rc = vs::cli::runCompare(args, std::cout);
        else if (cmd == "ranks")
            rc = vs::cli::runRanks(args, std::cout);
        else if (cmd == "summarize" || cmd == "summarise")
            rc = vs::cli::runSummarize(args, std::cout);
        else if (cmd == "whatif")
            rc = vs::cli::runWhatIf(args, std::cout);
        else if (cmd == "composition")
            rc = vs::cli::runComposition(args, std::cout);
        else if (cmd == "peak")
            rc = vs::cli::runPeak(args, std::cout);
        else
            return fail("unknown command '" + cmd + "' (try --help)");
        std::cout.flush();
        if (!std::cout) return fail("cannot write the output");
        return rc;
    } catch (const vs::cli::UsageError& e) {
        return fail(std::string(e.what()) + " (usage: vramscope-cli " + cmd + " FILE ...; try --help)");
    } catch (const vs::LoadError& e) {
        return fail(e.what());
    } catch (const std::bad_alloc&) {
        return fail(std::string("out of memory while ") + vs::cli::currentStep);
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}
