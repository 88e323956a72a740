#include "analysis/replay/PackedState.h"

#include "util/Varint.h"

namespace vs {
namespace {

// A block's flags byte: its state in the low two bits, then what the fields after it hold.
enum : uint8_t {
    kStateMask = 3,
    kMovedAddress = 1 << 2, // not where the block before ends: a signed step follows
    kSizeIn512 = 1 << 3,    // the size is a multiple of 512, written divided by it
    kNoAllocEvent = 1 << 4, // allocEvent is kNoEvent (before the recording): no step follows
    kNoRequest = 1 << 5,    // requestedSize is 0: no field follows
    kRequestAbove = 1 << 6, // requestedSize exceeds the size: written whole, not as the shortfall
};
enum : uint8_t { kExpandable = 1, kSmallPool = 2 };

} // namespace

PackedState::PackedState(const std::vector<StateSegment>& segments) {
    auto& out = bytes_;
    appendVarint(out, segments.size());
    uint64_t lastSegment = 0;
    int64_t lastEvent = 0;
    for (const auto& s : segments) {
        appendVarint(out, zigzag(static_cast<int64_t>(s.address - lastSegment)));
        lastSegment = s.address;
        appendVarint(out, s.size), appendVarint(out, s.stream);
        out.push_back(
            static_cast<uint8_t>((s.expandable ? kExpandable : 0) | (s.smallPool ? kSmallPool : 0)));
        appendVarint(out, s.blocks.size());
        uint64_t at = s.address;
        for (const auto& b : s.blocks) {
            uint8_t flags = static_cast<uint8_t>(b.state) & kStateMask;
            flags |= b.address != at ? kMovedAddress : 0;
            flags |= b.size % 512 == 0 ? kSizeIn512 : 0;
            flags |= b.allocEvent == kNoEvent ? kNoAllocEvent : 0;
            flags |= b.requestedSize == 0 ? kNoRequest : b.requestedSize > b.size ? kRequestAbove : 0;
            out.push_back(flags);
            if (flags & kMovedAddress) appendVarint(out, zigzag(static_cast<int64_t>(b.address - at)));
            appendVarint(out, flags & kSizeIn512 ? b.size / 512 : b.size);
            if (!(flags & kNoRequest))
                appendVarint(out, flags & kRequestAbove ? b.requestedSize : b.size - b.requestedSize);
            if (!(flags & kNoAllocEvent)) {
                appendVarint(out, zigzag(static_cast<int64_t>(b.allocEvent) - lastEvent));
                lastEvent = b.allocEvent;
            }
            at = b.address + b.size;
        }
    }
    out.shrink_to_fit();
}

std::vector<StateSegment> PackedState::unpack() const {
    std::vector<StateSegment> segments;
    if (bytes_.empty()) return segments;
    const uint8_t* p = bytes_.data();
    segments.resize(readVarint(p));
    uint64_t lastSegment = 0;
    int64_t lastEvent = 0;
    for (auto& s : segments) {
        s.address = lastSegment += static_cast<uint64_t>(unzigzag(readVarint(p)));
        s.size = readVarint(p), s.stream = readVarint(p);
        const uint8_t segmentFlags = *p++;
        s.expandable = segmentFlags & kExpandable, s.smallPool = segmentFlags & kSmallPool;
        s.blocks.resize(readVarint(p));
        uint64_t at = s.address;
        for (auto& b : s.blocks) {
            const uint8_t flags = *p++;
            b.state = static_cast<BlockState>(flags & kStateMask);
            b.address = at + (flags & kMovedAddress ? static_cast<uint64_t>(unzigzag(readVarint(p))) : 0);
            b.size = flags & kSizeIn512 ? readVarint(p) * 512 : readVarint(p);
            if (!(flags & kNoRequest)) {
                const uint64_t r = readVarint(p);
                b.requestedSize = flags & kRequestAbove ? r : b.size - r;
            }
            b.allocEvent = kNoEvent;
            if (!(flags & kNoAllocEvent))
                b.allocEvent = static_cast<uint32_t>(lastEvent += unzigzag(readVarint(p)));
            at = b.address + b.size;
        }
    }
    return segments;
}

} // namespace vs
