#pragma once
// The listening Unix socket of Capture > Listen and of `vramscope-cli run --remote`, made so that
// only our user can connect: its directory must be private (PrivatePath), and the socket is born
// with mode 0600 (the mode is set on the unbound socket, so there is no moment with wider access
// and no chmod that a symlink swapped in at the path could redirect).
#include <string>

namespace vs {

// Binds and listens at `path`, replacing a stale socket of a crashed session (anything else there
// is refused). Returns the listening descriptor, or -1 with one sentence in `error`.
int listenPrivately(const std::string& path, std::string& error);

} // namespace vs
