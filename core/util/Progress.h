#pragma once
// Progress of a long read: report(done, total) every `every` units; returning false cancels.
#include <cstdint>
#include <functional>

namespace vs {

struct Progress {
    Progress() : report(nullptr) {} // user-provided: GCC 12 warns falsely on the aggregate's std::function
    std::function<bool(uint64_t done, uint64_t total)> report; // return false to cancel
    uint64_t every = 8 << 20;
};

} // namespace vs
