#include "RemoteFetch.h"

#include "Interrupts.h"
#include "SshProcess.h"

#include "io/MemoryBudget.h"
#include "util/Format.h"
#include "util/PrivatePath.h"
#include "util/RemoteAnswer.h"
#include "util/RemoteScripts.h"
#include "util/SshCommand.h"
#include "util/SshFailure.h"
#include "util/TerminalText.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <sys/statvfs.h>
#include <unistd.h>

namespace vs::cli {

namespace {
constexpr size_t kMaxPreamble = 64 << 10; // what a chatty login script may print before our marker
constexpr long kSilenceSeconds = 60;      // the default of VRAMSCOPE_SSH_TIMEOUT

// How long the host may stay silent (before its size line: the login; then between two pieces of
// the file): $VRAMSCOPE_SSH_TIMEOUT seconds (1 to 86400), else kSilenceSeconds.
std::chrono::seconds silenceLimit() {
    const char* text = std::getenv("VRAMSCOPE_SSH_TIMEOUT");
    const auto seconds = text ? parseRemoteNumber(text, 86400) : std::nullopt;
    return std::chrono::seconds(seconds && *seconds > 0 ? *seconds : kSilenceSeconds);
}
constexpr uint64_t kMaxRemoteFile = uint64_t(1) << 40; // a larger "size" is no capture: refused

// The copies made in this process, removed at exit (their directories are private: mkdtemp).
struct Copies {
    std::map<std::string, std::string> urlOf; // local path -> ssh:// address
    static void removeDirOf(const std::string& path) {
        std::error_code ec;
        std::filesystem::remove_all(std::filesystem::path(path).parent_path(), ec); // links not followed
    }
    void removeAll() {
        for (const auto& [path, url] : urlOf) removeDirOf(path);
        urlOf.clear();
    }
    ~Copies() { removeAll(); }
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

// ssh's stdout into the local copy: the marker line "size=N" first (anything before it is a login
// script's chatter, skipped, up to kMaxPreamble), then at most N bytes: the host said how large the
// file is, and a file still being written is read as far as it was then.
struct Receiver {
    int fd;
    std::string host, dir;
    std::string head;
    std::optional<uint64_t> size;
    uint64_t written = 0;

    // False once the declared bytes are all here (whatever more comes is not read).
    bool take(std::string_view data) {
        if (!size) {
            head.append(data);
            if (!findSize()) return true;
            data = head;
        }
        const auto n = size_t(std::min<uint64_t>(data.size(), *size - written));
        writeAll(fd, data.data(), n);
        written += n;
        head.clear();
        return written < *size;
    }

    bool findSize() {
        for (size_t eol; !size && (eol = head.find('\n')) != std::string::npos; head.erase(0, eol + 1)) {
            const auto m = parseRemoteMarker(std::string_view(head).substr(0, eol));
            if (!m || m->first != "size") continue;
            size = parseRemoteSize(m->second, kMaxRemoteFile);
            if (!size)
                throw std::runtime_error(host + " declared an impossible size for the file (" +
                                         terminalText(m->second.substr(0, 40)) + ")");
            checkBudget();
            checkRoom();
        }
        if (!size && head.size() > kMaxPreamble)
            throw std::runtime_error(host + " sent no file (a login script printed too much?)");
        return size.has_value();
    }

    // A file larger than --max-memory is not copied: the host alone decides how large the copy
    // is, and --max-memory is what the user lets one file take (a loaded capture keeps about as
    // much as its file holds, a compressed one several times more).
    void checkBudget() const {
        const uint64_t budget = MemoryBudget::processDefault();
        if (*size > budget)
            throw std::runtime_error(
                host + " declared " + std::to_string(*size) + " bytes (" + humanBytes(int64_t(*size)) +
                ") for the file, more than --max-memory lets a load take (" + MemoryBudget::describe(budget) +
                "): not copied; raise --max-memory " + "if you trust the file");
    }

    void checkRoom() const {
        struct statvfs fs {};
        if (::statvfs(dir.c_str(), &fs) == 0 && uint64_t(fs.f_bavail) * fs.f_frsize < *size)
            throw std::runtime_error("not enough room in " + dir + " for a copy of " + std::to_string(*size) +
                                     " bytes from " + host + " (set TMPDIR)");
    }
};

// Why a copy was given up on after `limit` of silence.
std::string silent(const Receiver& rx, std::chrono::seconds limit) {
    const std::string after = std::to_string(limit.count()) + " s (VRAMSCOPE_SSH_TIMEOUT)";
    if (!rx.size) return rx.host + " sent no file within " + after;
    return rx.host + " stopped sending the file for " + after + ", after " + std::to_string(rx.written) +
           " of its " + std::to_string(*rx.size) + " bytes";
}

// A name for the local copy: the remote file's own, unless it is none ("/", "..").
std::string copyName(const std::string& remotePath) {
    const std::string name = std::filesystem::path(remotePath).filename().string();
    return name.empty() || name == "." || name == ".." ? "remote" : name;
}

// Runs the copy's ssh into `rx`. A signal on the way (Ctrl-C, SIGTERM, SIGHUP) ends ssh and removes
// the copies, then the process, by that signal.
void fetchInto(const SshTarget& target, Receiver& rx) {
    Interrupts interrupts;
    SshProcess ssh(sshArgv(target), remoteInput(readFileScript(target.path, false)), true);
    const auto endIfInterrupted = [&] {
        if (!interrupts.count()) return;
        ssh.stop();
        copies().removeAll();
        Interrupts::endBy(interrupts.last());
    };
    const auto limit = silenceLimit();
    auto heard = std::chrono::steady_clock::now();
    const auto how = ssh.pump(
        [&](std::string_view data) { return heard = std::chrono::steady_clock::now(), rx.take(data); },
        [&] { return interrupts.count() == 0 && std::chrono::steady_clock::now() - heard < limit; });
    endIfInterrupted();
    if (how == SshProcess::Pumped::Stopped && rx.size && rx.written == *rx.size) return; // ssh is ended
    if (how == SshProcess::Pumped::Stopped) throw std::runtime_error(silent(rx, limit));
    const int rc = ssh.wait();
    endIfInterrupted();
    if (rc != 0) throw std::runtime_error(describeSshFailure(target, rc, ssh.errText()).message);
    if (!rx.size) throw std::runtime_error(rx.host + " sent no file (its answer had no size line)");
}
} // namespace

std::string localCopyOf(const std::string& file) {
    if (!isSshUrl(file)) return file;
    std::string error;
    const auto target = parseSshUrl(file, error);
    if (!target) throw std::runtime_error(error);
    const char* tmp = std::getenv("TMPDIR");
    const std::string parent = tmp && *tmp ? tmp : "/tmp";
    const std::string dir = makePrivateTempDir(parent, "vramscope-remote-");
    const std::string local = dir + "/" + copyName(target->path);
    copies().urlOf[local] = file;
    const int fd = createExclusive(local, error);
    if (fd < 0) throw std::runtime_error(error);
    Receiver rx{fd, target->destination(), parent, {}, {}, 0};
    try {
        fetchInto(*target, rx);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);
    return local;
}

void removeLocalCopy(const std::string& path) {
    if (copies().urlOf.erase(path)) Copies::removeDirOf(path);
}

std::string shownPath(const std::string& path) {
    const auto it = copies().urlOf.find(path);
    return it == copies().urlOf.end() ? path : it->second;
}

} // namespace vs::cli
