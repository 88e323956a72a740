#include "AtomicFile.h"

#include "PrivatePath.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <unistd.h>

namespace vs {
namespace {

// ".NAME.1a2b3c4d5e6f7a8b.part" in the target's folder: hidden, and on the same file system (rename(2)
// is atomic only there). NAME is cut so that the whole stays within NAME_MAX: a target named with
// 233 bytes or more had no temporary name the system would take (issue 47).
std::string temporaryName(const std::string& path) {
    namespace fs = std::filesystem;
    constexpr size_t kNameMax = 255, kAdded = 1 + 1 + 16 + 5; // ".", ".", the suffix, ".part"
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(rng()));
    const fs::path p(path);
    std::string name = ".";
    name.append(p.filename().string().substr(0, kNameMax - kAdded))
        .append(".")
        .append(suffix)
        .append(".part");
    return (p.parent_path() / name).string();
}

bool writeAll(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        bytes.remove_prefix(size_t(n));
    }
    return true;
}

} // namespace

void writeFileAtomically(const std::string& path, std::string_view bytes) {
    std::string tmp, error;
    int fd = -1;
    for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) { // a name taken already: another one
        error.clear();
        tmp = temporaryName(path);
        fd = createExclusive(tmp, error, 0666); // readable as the umask allows, like any output
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) throw std::runtime_error("cannot write " + path + ": " + error);
    const bool ok = writeAll(fd, bytes) && ::fsync(fd) == 0;
    const int saved = errno;
    ::close(fd);
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(ok ? errno : saved);
        ::unlink(tmp.c_str());
        throw std::runtime_error("cannot write " + path + ": " + why);
    }
}

} // namespace vs
