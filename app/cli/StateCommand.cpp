#include "Commands.h"

#include "analysis/CaptureAnalysis.h"
#include "analysis/replay/GraphPools.h"
#include "util/JsonWriter.h"

#include <algorithm>
#include <cmath>

namespace vs::cli {

// `state FILE [--at S] [--device N] --json`: segments and blocks after every event at or before
// first event + S seconds (the end of the capture without --at).
int runState(const std::vector<std::string>& args, std::ostream& out) {
    CliArgs a(args, {"--json"}, {"--at", "--device", "--from", "--to"});
    if (!a.has("--json")) throw UsageError("state writes JSON only: add --json");
    auto capture = openCapture(a);
    const size_t d = chooseDevice(*capture, a);
    const DeviceTrace& t = capture->trace(d);
    int64_t at = t.eventCount() ? t.timeUs.back() : 0;
    if (auto moment = momentOption(*capture, a, "--at")) at = *moment; // from the first event, any device
    const auto segments = a.option("--at") ? capture->stateAt(d, at) : toStateSegments(t.finalSegments);
    const GraphPools& pools = *capture->graphPools(d);
    const auto event = uint32_t(std::upper_bound(t.timeUs.begin(), t.timeUs.end(), at) - t.timeUs.begin());
    JsonWriter j(out);
    j.beginObject().field("device", t.device).field("time_us", at).key("segments").beginArray();
    for (const auto& s : segments) {
        j.beginObject()
            .field("address", s.address)
            .field("size", s.size)
            .field("stream", s.stream)
            .field("expandable", s.expandable)
            .field("pool", s.smallPool ? "small" : "large");
        // a private pool (a CUDA graph's, a MemPool) by its id; [0, 0]: the default pool
        const PoolId pool = pools.poolOf(s.address, event == 0 ? 0 : event - 1);
        j.key("pool_id").beginArray().value(pool.first).value(pool.second).endArray();
        j.field("graph_pool", !pool.isDefault()).key("blocks").beginArray();
        for (const auto& b : s.blocks)
            j.beginObject()
                .field("address", b.address)
                .field("size", b.size)
                .field("requested_size", b.requestedSize)
                .field("state", blockStateName(b.state))
                .endObject();
        j.endArray().endObject();
    }
    j.endArray().endObject();
    return 0;
}

} // namespace vs::cli
