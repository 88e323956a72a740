#pragma once
// A label put on a live allocation after the fact: an 'annotate' trace entry, written by
// torch.cuda.memory._annotate_memory / _annotate_tensor (the block's base address, the text as the
// entry's user_metadata, the annotating site's stack). Not an allocator event: it changes no memory.
#include "Ids.h"

#include <cstdint>

namespace vs {

struct BlockAnnotation {
    int device = 0;       // ordinal (kPinnedHostDevice for pinned host memory)
    int64_t timeUs = 0;   // Unix epoch microseconds
    uint64_t address = 0; // the annotated block's base address
    StringId text;
    StackId stack;
};

} // namespace vs
