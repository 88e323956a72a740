#pragma once
// Writing a whole file so that a reader sees either the old file or the new one, never a part: the
// bytes go to a new temporary file beside it (a random name created with O_EXCL|O_NOFOLLOW, so that
// nothing planted there is followed and two processes writing into one folder never share one), are
// flushed to the disk, then renamed over the target. Many processes may write into one folder at once
// (one per rank of a job array): they share nothing but the folder.
#include <string>
#include <string_view>

namespace vs {

// Throws std::runtime_error naming `path` (and why) when it cannot be written; leaves no temporary.
void writeFileAtomically(const std::string& path, std::string_view bytes);

} // namespace vs
