#include "RemoteFetch.h"

#include "SshProcess.h"

#include "util/PrivatePath.h"
#include "util/RemoteScripts.h"
#include "util/SshCommand.h"
#include "util/SshFailure.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <unistd.h>

namespace vs::cli {

namespace {
constexpr size_t kMaxPreamble = 64 << 10; // what a chatty login script may print before our marker

// The copies made in this process, removed at exit (their directories are private: mkdtemp).
struct Copies {
    std::map<std::string, std::string> urlOf; // local path -> ssh:// address
    ~Copies() {
        std::error_code ec;
        for (const auto& [path, url] : urlOf)
            std::filesystem::remove_all(std::filesystem::path(path).parent_path(), ec);
    }
};
Copies& copies() {
    static Copies c;
    return c;
}

void writeAll(int fd, const char* data, size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, data, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            throw std::runtime_error(std::string("cannot write the local copy: ") + std::strerror(errno));
        data += w, n -= size_t(w);
    }
}

// Reads ssh's stdout into `fd`: the marker line "size=N" first (anything before it is a login
// script's chatter, skipped), then the file's bytes. Returns the bytes written.
uint64_t receive(SshProcess& ssh, int fd) {
    std::string head;
    bool started = false;
    uint64_t written = 0;
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(ssh.out(), buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return written;
        if (started) {
            writeAll(fd, buf, size_t(n)), written += uint64_t(n);
            continue;
        }
        head.append(buf, size_t(n));
        for (size_t eol; !started && (eol = head.find('\n')) != std::string::npos;) {
            started = parseRemoteMarker(std::string_view(head).substr(0, eol)).has_value();
            head.erase(0, eol + 1);
        }
        if (started && !head.empty()) writeAll(fd, head.data(), head.size()), written += head.size();
        if (!started && head.size() > kMaxPreamble) return 0;
    }
}
} // namespace

std::string localCopyOf(const std::string& file) {
    if (!isSshUrl(file)) return file;
    std::string error;
    const auto target = parseSshUrl(file, error);
    if (!target) throw std::runtime_error(error);
    const char* tmp = std::getenv("TMPDIR");
    const std::string dir = makePrivateTempDir(tmp && *tmp ? tmp : "/tmp", "vramscope-remote-");
    std::string name = std::filesystem::path(target->path).filename().string();
    const std::string local = dir + "/" + (name.empty() ? "remote" : name);
    copies().urlOf[local] = file;
    const int fd = createExclusive(local, error);
    if (fd < 0) throw std::runtime_error(error);
    SshProcess ssh(sshArgv(*target, readFileScript(target->path, false)));
    ssh.closeIn();
    try {
        receive(ssh, fd);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);
    const int rc = ssh.wait();
    if (rc != 0)
        throw std::runtime_error(describeSshFailure(target->destination(), rc, ssh.errText()).message);
    return local;
}

std::string shownPath(const std::string& path) {
    const auto it = copies().urlOf.find(path);
    return it == copies().urlOf.end() ? path : it->second;
}

} // namespace vs::cli
