#include "SimRange.h"

#include "util/Format.h"

namespace vs {

std::vector<std::string> checkSimRange(const SimInput& in, uint64_t capacity) {
    const std::string what = "the what-if simulator handles ";
    if (capacity > kMaxSimBytes)
        throw SimRangeError(what + "capacities up to " + humanBytes(int64_t(kMaxSimBytes)) + "; " +
                            humanSize(capacity) + " is more than any device has");
    if (in.largestRequest > kMaxSimBytes)
        throw SimRangeError(what + "requests up to " + humanBytes(int64_t(kMaxSimBytes)) + "; event " +
                            std::to_string(in.largestRequestEvent) + " requests " +
                            humanSize(in.largestRequest));
    if (in.demand > kMaxSimDemand)
        throw SimRangeError(what + "inputs asking for up to " + humanBytes(int64_t(kMaxSimDemand)) +
                            " in all; this trace's requests add up to more (" + humanSize(in.demand) +
                            " by event " + std::to_string(in.demandExceededAt) + ")");
    std::vector<std::string> notes;
    if (in.largestRequest > kLargestDevice && (capacity == 0 || in.largestRequest <= capacity))
        notes.push_back("event " + std::to_string(in.largestRequestEvent) + " requests " +
                        humanBytes(int64_t(in.largestRequest)) +
                        ", more than any GPU has: simulated as if the " +
                        "device were that large (pass --capacity to see where it would fail)");
    return notes;
}

} // namespace vs
