// `run [-o FILE] [--live SOCKET] [--stacks native|none] -- PROGRAM ARGS`: runs any CUDA program with
// the CUPTI agent injected (CUDA_INJECTION64_PATH) and its device memory recorded to FILE (and
// streamed to a viewer listening at SOCKET); exits with the program's status.
#include "Commands.h"

#include "util/AgentPath.h"

#include <filesystem>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace vs::cli {

int runRun(const std::vector<std::string>& args, std::ostream& out) {
    for (size_t k = 0; k < args.size() && args[k] != "--"; ++k)
        if (args[k] == "--remote") return runRemoteRun(args, out); // on another host, through ssh
    std::string output = "vramscope-" + std::to_string(getpid()) + ".vscap", live, stacks = "native";
    size_t i = 0;
    for (; i < args.size() && args[i] != "--"; ++i) {
        const bool value = i + 1 < args.size() && args[i + 1] != "--";
        if ((args[i] == "-o" || args[i] == "--output") && value)
            output = args[++i];
        else if (args[i] == "--live" && value)
            live = args[++i];
        else if (args[i] == "--stacks" && value && (args[i + 1] == "native" || args[i + 1] == "none"))
            stacks = args[++i];
        else
            throw UsageError("bad option " + args[i] +
                             " (run [-o FILE] [--live SOCKET] [--stacks native|none] -- PROGRAM ARGS)");
    }
    if (i + 1 >= args.size()) throw UsageError("run needs a program after --");
    const std::string lib = cuptiAgentPath();
    if (!std::filesystem::exists(lib))
        throw UsageError(lib + " not found: it is built when the CUDA toolkit's CUPTI is installed "
                               "(or set VRAMSCOPE_CUPTI_LIB)");
    if (!cudaDriverPresent()) // say it before the program's own, often cryptic, CUDA error
        std::cerr << "vramscope-cli: warning: no NVIDIA driver (libcuda.so.1) on this machine: the program "
                     "cannot use a GPU and nothing will be recorded\n";
    std::vector<char*> argv;
    for (size_t k = i + 1; k < args.size(); ++k) argv.push_back(const_cast<char*>(args[k].c_str()));
    argv.push_back(nullptr);
    out.flush();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("cannot start the program (fork failed)");
    if (pid == 0) {
        setenv("CUDA_INJECTION64_PATH", std::filesystem::absolute(lib).c_str(), 1);
        setenv("VRAMSCOPE_OUTPUT", output.c_str(), 1);
        if (!live.empty()) setenv("VRAMSCOPE_LIVE", live.c_str(), 1); // Capture > Listen's socket
        setenv("VRAMSCOPE_STACKS", stacks.c_str(), 1);
        execvp(argv[0], argv.data());
        std::cerr << "vramscope-cli: error: cannot run " << argv[0] << '\n';
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (std::filesystem::exists(output))
        std::cerr << "vramscope-cli: recorded " << argv[0] << " to " << output << '\n';
    else
        std::cerr << "vramscope-cli: " << argv[0] << " made no CUDA call: nothing recorded\n";
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

} // namespace vs::cli
