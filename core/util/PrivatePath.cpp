#include "PrivatePath.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace vs {

namespace {
std::string octal(mode_t mode) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", unsigned(mode & 07777));
    return buf;
}
} // namespace

std::string ensurePrivateDir(const std::string& dir, uid_t uid) {
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        return "cannot create " + dir + ": " + std::strerror(errno);
    // Opened without following a symlink, then checked through the descriptor: what is checked is
    // what is there, not what a path resolved to a moment before.
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        struct stat st {};
        if (errno == ELOOP || (::lstat(dir.c_str(), &st) == 0 && S_ISLNK(st.st_mode)))
            return dir + " is a symbolic link, not a private directory: remove it";
        return dir + " is not a usable directory (" + std::strerror(errno) + "): remove it";
    }
    struct stat st {};
    const bool statted = ::fstat(fd, &st) == 0;
    ::close(fd);
    if (!statted) return "cannot check " + dir + ": " + std::strerror(errno);
    if (st.st_uid != uid)
        return dir + " belongs to uid " + std::to_string(st.st_uid) + ", not to this user (uid " +
               std::to_string(uid) + "): another user may have made it; remove it";
    if (st.st_mode & 077)
        return dir + " has mode " + octal(st.st_mode) + ", other users can reach it: chmod 700 it";
    return {};
}

std::string ensurePrivateDir(const std::string& dir) {
    return ensurePrivateDir(dir, ::geteuid());
}

std::string makePrivateTempDir(const std::string& parent, const std::string& prefix) {
    std::string pattern = parent + "/" + prefix + "XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data()))
        throw std::runtime_error("cannot create a private directory in " + parent + ": " +
                                 std::strerror(errno));
    return buf.data();
}

int createExclusive(const std::string& path, std::string& error, mode_t mode) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        error = errno == EEXIST ? path + " already exists (a file or a symbolic link): not overwritten"
                                : "cannot create " + path + ": " + std::strerror(errno);
    return fd;
}

} // namespace vs
