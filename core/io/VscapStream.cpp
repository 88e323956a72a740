#include "VscapStream.h"

namespace vs::vscap {

StreamAssembler::StreamAssembler()
    : scratch_(std::make_unique<Capture>()), decoder_(std::make_unique<Decoder>(*scratch_)) {}

size_t StreamAssembler::feed(std::string_view bytes) {
    pending_.append(bytes);
    const size_t used = decoder_->consume(
        {reinterpret_cast<const uint8_t*>(pending_.data()), pending_.size()}, uint64_t(complete_.size()));
    complete_.append(pending_, 0, used);
    pending_.erase(0, used);
    return used;
}

uint64_t StreamAssembler::events() const {
    uint64_t n = 0;
    for (const auto& d : scratch_->devices) n += d.eventCount();
    return n;
}

} // namespace vs::vscap
