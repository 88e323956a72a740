#include "LiveCapture.h"

namespace vs {

LiveCapture::LiveCapture(uint32_t checkpointEvery) : decoder_(delta_), analysis_(checkpointEvery) {
    delta_.path = "live";
    delta_.format = "vscap";
}

std::shared_ptr<const CaptureAnalysis> LiveCapture::append(std::span<const uint8_t> bytes) {
    // Whole chunks are decoded straight from `bytes`; only an incomplete tail is copied.
    std::span<const uint8_t> in = bytes;
    if (!pending_.empty()) {
        pending_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        in = {reinterpret_cast<const uint8_t*>(pending_.data()), pending_.size()};
    }
    const size_t used = in.empty() ? 0 : decoder_.consume(in, used_);
    used_ += used;
    std::string rest(reinterpret_cast<const char*>(in.data()) + used, in.size() - used);
    pending_.swap(rest);
    // A live stream is unfinished by nature: no end-of-file remarks ("cut off", "not closed");
    // only drops are worth a warning here.
    std::vector<std::string> extra;
    if (decoder_.dropped())
        extra.push_back("the recorder dropped " + std::to_string(decoder_.dropped()) +
                        " events (its buffer was full)");
    return analysis_.publish(delta_, extra);
}

} // namespace vs
