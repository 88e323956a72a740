#pragma once
// Snapshots whose user_metadata is one object that many trace entries read back through the memo
// (issue 47), as a pickler shares any repeated object (and a compile_context string alike): a dict of many
// items shared by every allocation (the 700 KB case), and 'annotate' entries whose label is a dict whose
// every value is one long string (the 317 KB case). Built by tst_newest_fields (work and size bounded) and by
// bench_shared_metadata (the seconds), from the same recipe.
#include "PickleBuilder.h"

#include <string>
#include <vector>

namespace vs::test {

struct SharedMetadataShape {
    uint32_t dictItems = 0;  // items of the shared dict; 0: the shared value is the long string itself
    uint32_t labelBytes = 0; // >0: every item's value is this long string (one memo slot), else its index
    uint32_t entries = 0;    // trace entries naming the dict
    bool annotate = false;   // 'annotate' entries (labels put on blocks) instead of allocations
    const char* field = "user_metadata"; // or "compile_context" (a string)
};

// {'segments': [], 'device_traces': [[entry, ...]]}; the first entry writes the dict, the others
// read it back with LONG_BINGET.
inline std::vector<uint8_t> sharedMetadataSnapshot(const SharedMetadataShape& s) {
    PickleBuilder p;
    p.proto(4).emptyDict().mark().key("segments").emptyList().key("device_traces").emptyList().mark();
    p.emptyList().mark();
    uint32_t dictSlot = 0;
    for (uint32_t e = 0; e < s.entries; ++e) {
        p.emptyDict().mark().key("action").key(s.annotate ? "annotate" : "alloc");
        p.key("addr").integer(int64_t(0x7f0000000000) + int64_t(e) * 512).key("size").integer(512);
        p.key("time_us").integer(int64_t(1'764'000'000'000'000) + e).key(s.field);
        if (e > 0) {
            p.get(dictSlot).setitems();
            continue;
        }
        dictSlot = p.memoCount();
        if (s.dictItems == 0) {
            p.str(std::string(s.labelBytes, 'x')).setitems();
            continue;
        }
        p.emptyDict().mark();
        uint32_t labelSlot = 0;
        for (uint32_t i = 0; i < s.dictItems; ++i) {
            p.str(std::to_string(i).insert(0, 1, 'k'));
            if (!s.labelBytes)
                p.integer(i);
            else if (i == 0)
                labelSlot = p.memoCount(), p.str(std::string(s.labelBytes, 'x'));
            else
                p.get(labelSlot);
        }
        p.setitems().setitems();
    }
    return p.appends().appends().setitems().stop().bytes;
}

// The shapes of the two files: 700 KB (every entry's text 250 KB), 317 KB (every label 48 MB).
inline SharedMetadataShape sharedDictShape() {
    return {20000, 0, 10000, false};
}
inline SharedMetadataShape sharedLabelShape() {
    return {170, 280000, 1100, true};
}
// A 300 KB compile_context string named by 2,000 allocations (a shared string, not a dict).
inline SharedMetadataShape sharedCompileContextShape() {
    return {0, 300000, 2000, false, "compile_context"};
}

} // namespace vs::test
