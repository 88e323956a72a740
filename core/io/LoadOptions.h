#pragma once
// What every reader takes: progress (and cancellation) and the bound on decompressed bytes. Its own
// header, so the .vscap reader and the snapshot reader use it without including each other.
#include "InputBuffer.h"
#include "util/Progress.h"

namespace vs {

struct LoadOptions {
    Progress progress; // report(done, total) on the decompressed bytes; false cancels
    uint64_t maxDecompressed = InputBuffer::defaultLimit();
};

} // namespace vs
