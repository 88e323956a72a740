#pragma once
// What every reader takes: progress (and cancellation) and the bounds on what a load may take. Its own
// header, so the .vscap reader and the snapshot reader use it without including each other.
#include "InputBuffer.h"
#include "util/Progress.h"

namespace vs {

struct LoadOptions {
    Progress progress; // report(done, total) on the decompressed bytes; false cancels
    uint64_t maxDecompressed = InputBuffer::defaultLimit();
    // The memory budget of one load (`--max-memory`): the loaded model (event columns, tables,
    // records) may not grow past it; a reader that would exceed it stops with a LoadError naming the
    // budget instead of taking the machine's memory. Default: half of the physical memory.
    uint64_t maxMemory = InputBuffer::defaultLimit();
    // A damaged capture (DamagedCapture) is read up to its damage, with a warning, instead of refused:
    // what the GUI's "Open the intact part" does.
    bool openIntactPart = false;
};

} // namespace vs
