#include "PrivateSocket.h"

#include "PrivatePath.h"

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace vs {

namespace {
std::string parentOf(const std::string& path) {
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

// A socket left by a crashed session may be replaced; a file, directory or symlink is not ours to remove.
bool removeStale(const std::string& path, std::string& error) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return true; // nothing there
    if (!S_ISSOCK(st.st_mode)) {
        error = path + " exists and is not a socket: not replaced";
        return false;
    }
    if (::unlink(path.c_str()) == 0) return true;
    error = "cannot remove the old socket " + path + ": " + std::strerror(errno);
    return false;
}

int fail(int fd, std::string& error, const std::string& what) {
    error = what + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return -1;
}
} // namespace

int listenPrivately(const std::string& path, std::string& error) {
    sockaddr_un addr{};
    if (path.size() >= sizeof addr.sun_path) return error = "socket path too long: " + path, -1;
    if (error = ensurePrivateDir(parentOf(path)); !error.empty()) return -1;
    if (!removeStale(path, error)) return -1;
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return fail(fd, error, "cannot make a socket");
    // bind() creates the file with the unbound socket's mode (less the umask): 0600 from birth.
    if (::fchmod(fd, 0600) != 0) return fail(fd, error, "cannot restrict the socket");
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
        return fail(fd, error, "cannot bind " + path);
    if (::listen(fd, 4) != 0) return fail(fd, error, "cannot listen at " + path);
    return fd;
}

} // namespace vs
