#include "AgentPath.h"

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>

namespace vs {

std::string cuptiAgentPath() {
    if (const char* env = std::getenv("VRAMSCOPE_CUPTI_LIB")) return env;
    std::error_code ec;
    const auto bin = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
    const auto beside = bin / "libvramscope_cupti.so";
    const auto installed = bin.parent_path() / "lib" / "vramscope" / "libvramscope_cupti.so";
    return (std::filesystem::exists(beside, ec) || !std::filesystem::exists(installed, ec) ? beside
                                                                                           : installed)
        .string();
}

bool cudaDriverPresent() {
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (driver) dlclose(driver);
    return driver != nullptr;
}

} // namespace vs
