#pragma once
// Opening a capture only when it is a regular file. The open is non-blocking, so a FIFO, a socket or
// a device named like a capture (rank*.pickle in a shared folder) is refused with a message at once
// instead of hanging the reader until someone writes to it.
#include <string>

namespace vs {

// A read-only descriptor of `path` in blocking mode, or LoadError: it cannot be opened, it is a
// directory, or it is not a regular file.
int openRegularFile(const std::string& path);

// openRegularFile, closed again: the check before readers that open the path themselves.
void requireRegularFile(const std::string& path);

} // namespace vs
