#pragma once
// What every reader takes: progress (and cancellation) and the bounds on what a load may take. Its own
// header, so the .vscap reader and the snapshot reader use it without including each other.
#include "InputBuffer.h" // readers open their input with the budget below
#include "MemoryBudget.h"
#include "util/Progress.h"

namespace vs {

struct LoadOptions {
    Progress progress; // report(done, total) on the decompressed bytes; false cancels
    // The memory budget of one load (`--max-memory`): the loaded model (event columns, tables,
    // records) may not grow past it; a reader that would exceed it stops with a LoadError naming the
    // budget instead of taking the machine's memory. Decompressed input counts against it too.
    // Default: MemoryBudget::processDefault() (half of the physical memory unless --max-memory).
    uint64_t maxMemory = MemoryBudget::processDefault();
    // A separate bound on decompressed bytes alone; the budget above bounds them in any case.
    uint64_t maxDecompressed = MemoryBudget::processDefault();
    // A damaged capture (DamagedCapture) is read up to its damage, with a warning, instead of refused:
    // what the GUI's "Open the intact part" does.
    bool openIntactPart = false;
};

} // namespace vs
