#include "LiveSocket.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace vs::cupti {

namespace {
// Empty when the process listening at the other end of `fd` runs as `uid`, else why not.
std::string checkListener(int fd, uid_t uid) {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
        return std::string("cannot tell who listens: ") + std::strerror(errno);
    if (cred.uid == uid) return {};
    return "the listener runs as uid " + std::to_string(cred.uid) + ", not as this user (uid " +
           std::to_string(uid) + "): refused, nothing sent";
}
} // namespace

std::unique_ptr<LiveSocket> LiveSocket::connect(const std::string& path, std::string& error,
                                                size_t maxPending, long expectedUid) {
    sockaddr_un addr{};
    if (path.size() >= sizeof addr.sun_path) return error = "socket path too long", nullptr;
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        error = std::strerror(errno);
        if (fd >= 0) ::close(fd);
        return nullptr;
    }
    if (error = checkListener(fd, expectedUid < 0 ? ::geteuid() : uid_t(expectedUid)); !error.empty())
        return ::close(fd), nullptr;
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    return std::unique_ptr<LiveSocket>(new LiveSocket(fd, maxPending));
}

LiveSocket::~LiveSocket() {
    if (fd_ >= 0) ::close(fd_);
}

void LiveSocket::drop(const char* why) {
    std::fprintf(stderr, "vramscope: live view disconnected: %s; recording continues to the file\n", why);
    ::close(fd_), fd_ = -1;
    pending_.clear();
}

void LiveSocket::send(std::string_view bytes) {
    if (fd_ < 0) return;
    pending_.append(bytes);
    size_t sent = 0;
    while (sent < pending_.size()) {
        const ssize_t n =
            ::send(fd_, pending_.data() + sent, pending_.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) {
            sent += size_t(n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break; // the viewer is busy: keep the rest
        return drop(n == 0 ? "connection closed" : std::strerror(errno));
    }
    pending_.erase(0, sent);
    if (pending_.size() > max_) drop("the viewer is not keeping up");
}

} // namespace vs::cupti
