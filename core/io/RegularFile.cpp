#include "RegularFile.h"

#include "LoadError.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace vs {

int openRegularFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw LoadError("cannot open " + path + ": " + std::strerror(errno));
    struct stat st {};
    const bool statted = ::fstat(fd, &st) == 0;
    const int statErrno = errno;
    if (!statted || !S_ISREG(st.st_mode)) {
        ::close(fd);
        if (!statted) throw LoadError("cannot stat " + path + ": " + std::strerror(statErrno));
        if (S_ISDIR(st.st_mode)) throw LoadError(path + " is a directory");
        throw LoadError(path + " is not a regular file (a FIFO, a socket or a device): not read");
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK); // a regular file reads as usual
    return fd;
}

void requireRegularFile(const std::string& path) {
    ::close(openRegularFile(path));
}

} // namespace vs
