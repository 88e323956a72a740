#include "analysis/growth/GrowthRegion.h"

namespace vs {

std::string_view regionScaleName(RegionScale s) {
    switch (s) {
    case RegionScale::Run:
        return "run";
    case RegionScale::Phase:
        return "phase";
    case RegionScale::Iteration:
        break;
    }
    return "iteration";
}

} // namespace vs
