#include "Capture.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vs {

StreamId Capture::internStream(uint64_t raw) {
    // Almost every event is on the last stream seen; check it before searching.
    if (!streams.empty() && streams.back() == raw) return StreamId{static_cast<uint16_t>(streams.size() - 1)};
    auto it = std::lower_bound(streamIndex_.begin(), streamIndex_.end(), std::make_pair(raw, uint16_t{0}));
    if (it != streamIndex_.end() && it->first == raw) return StreamId{it->second};
    constexpr size_t kIds = size_t(UINT16_MAX) + 1; // StreamId's range
    if (streams.size() >= kIds)
        throw std::length_error("the capture names more than " + std::to_string(kIds) + " CUDA streams");
    const auto id = static_cast<uint16_t>(streams.size());
    streams.push_back(raw);
    streamIndex_.insert(it, {raw, id});
    return StreamId{id};
}

const DeviceTrace* Capture::device(int ordinal) const {
    for (const auto& d : devices)
        if (d.device == ordinal) return &d;
    return nullptr;
}

} // namespace vs
