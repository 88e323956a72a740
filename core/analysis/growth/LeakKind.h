#pragma once
// What kind of memory problem: the kind of a growth region (GrowthRegions) and of a diagnosis
// (LeakDiagnosis), one enum so that a region's kind is its diagnosis's without a translation.
// leakKindName gives the CLI's JSON strings.
#include <cstdint>
#include <string_view>

namespace vs {

enum class LeakKind : uint8_t {
    None,         // nothing grows (a diagnosis only)
    Leak,         // kept to the end of the capture
    Accumulation, // kept while growing, released later
    Cycle,        // the same, held by a reference cycle until a garbage collection
    Cache,        // reserved but free memory (a diagnosis), or a region that stays at its height
    Fragmentation,
    DeferredFree,
    Oom,       // diagnoses only
    Transient, // a region that rises and is released again (regions only)
};

std::string_view leakKindName(LeakKind k);

} // namespace vs
