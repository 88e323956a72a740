#include "analysis/growth/LeakKind.h"

namespace vs {

std::string_view leakKindName(LeakKind k) {
    switch (k) {
    case LeakKind::Leak:
        return "leak";
    case LeakKind::Accumulation:
        return "accumulation";
    case LeakKind::Cycle:
        return "cycle";
    case LeakKind::Cache:
        return "cache";
    case LeakKind::Fragmentation:
        return "fragmentation";
    case LeakKind::DeferredFree:
        return "deferred_free";
    case LeakKind::Oom:
        return "oom";
    case LeakKind::Transient:
        return "transient";
    case LeakKind::None:
        break;
    }
    return "none";
}

} // namespace vs
