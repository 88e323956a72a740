#pragma once
// Files and directories that no other local user can plant, swap or read: the live socket's
// directory, Capture > Launch Program's output, a writer's temporary file. A shared place such as
// /tmp lets anyone pre-create a name we are about to use (a directory they own, a symlink to one of
// our files), so names there are made with mkdir/mkdtemp/O_EXCL and checked, never followed.
#include <string>
#include <sys/types.h>

namespace vs {

// Makes `dir` (one level, mode 0700) when it is missing, then checks what is there without
// following a symlink: a directory owned by `uid` that gives group and others nothing. Returns an
// empty string when it is private, else one sentence saying why not (and how to fix it).
std::string ensurePrivateDir(const std::string& dir, uid_t uid);
std::string ensurePrivateDir(const std::string& dir); // owned by this process's effective uid

// A new directory under `parent`, named prefix + six random characters, mode 0700 (mkdtemp).
// Throws std::runtime_error naming the directory when it cannot be made.
std::string makePrivateTempDir(const std::string& parent, const std::string& prefix);

// Creates `path` for writing (with `mode`, less the umask) only when nothing is there: an existing
// file, a symlink or a dangling symlink makes it fail (O_EXCL|O_NOFOLLOW). Returns the descriptor,
// or -1 and `error`.
int createExclusive(const std::string& path, std::string& error, mode_t mode = 0600);

} // namespace vs
