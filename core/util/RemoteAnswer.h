#pragma once
// What a host answered (RemoteScripts' marker values), checked before it is used: the host may be
// hostile or broken, and its answers become an ssh option (-R DIR/live.sock:...), a bound on what
// is copied, or text on the user's terminal. Each parser gives std::nullopt for anything but the
// plain shape it expects.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vs {

// A file size: decimal digits only, at most `max` (a copy is then bounded by it).
std::optional<uint64_t> parseRemoteSize(std::string_view text, uint64_t max);

// The private directory the host made (mktemp -d): absolute, of [A-Za-z0-9._/-] only, no "."
// or ".." component, short enough that DIR/live.sock fits a Unix socket's path. Anything else
// could add an ssh forward of its own, or put the socket elsewhere.
bool isPlainRemoteDir(std::string_view dir);

// A process id or an exit status: decimal, at most `max`.
std::optional<long> parseRemoteNumber(std::string_view text, long max);

// Lower-case hex (two digits a byte) back to bytes: how the host prints a path that may hold any
// byte (run --remote's recording). At most `maxBytes` bytes.
std::optional<std::string> decodeRemoteHex(std::string_view hex, size_t maxBytes = 64 << 10);

} // namespace vs
