#include "analysis/replay/CaptureAppend.h"

namespace vs {
namespace {

template <class T> void appendTail(std::vector<T>& dst, const std::vector<T>& src) {
    if (src.size() > dst.size()) dst.insert(dst.end(), src.begin() + std::ptrdiff_t(dst.size()), src.end());
}

template <class T> void appendFrom(std::vector<T>& dst, const std::vector<T>& src, size_t from) {
    if (src.size() > from) dst.insert(dst.end(), src.begin() + std::ptrdiff_t(from), src.end());
}

// Interning the missing entries in their order gives them the ids they have in `src`.
void appendTables(Capture& dst, const Capture& src) {
    for (size_t i = dst.strings.size(); i < src.strings.size(); ++i)
        dst.strings.intern(src.strings.text(StringId(uint32_t(i))));
    for (size_t i = dst.frames.size(); i < src.frames.size(); ++i)
        dst.frames.intern(src.frames[FrameId(uint32_t(i))]);
    for (size_t i = dst.stacks.size(); i < src.stacks.size(); ++i)
        dst.stacks.intern(src.stacks.frames(StackId(uint32_t(i))));
    for (size_t i = dst.streams.size(); i < src.streams.size(); ++i) dst.internStream(src.streams[i]);
}

} // namespace

void appendCaptureParts(Capture& dst, const Capture& src) {
    appendTables(dst, src);
    dst.path = src.path, dst.format = src.format;
    dst.settings = src.settings;
    dst.nativeStacks = src.nativeStacks;
    dst.warnings = src.warnings;
    appendTail(dst.annotations, src.annotations);
    appendTail(dst.retention, src.retention);
    appendTail(dst.deviceInfo, src.deviceInfo);
    appendTail(dst.meta, src.meta);
    for (size_t d = 0; d < src.devices.size(); ++d) {
        if (d == dst.devices.size()) dst.devices.emplace_back().device = src.devices[d].device;
        DeviceTrace& to = dst.devices[d];
        const DeviceTrace& from = src.devices[d];
        to.hasFinalSnapshot = from.hasFinalSnapshot;
        if (from.hasFinalSnapshot) to.finalSegments = from.finalSegments; // arrives once, at the end
    }
}

void catchUpEvents(DeviceTrace& dst, const DeviceTrace& src) {
    const size_t from =
        dst.eventCount(); // `dst` holds a prefix of `src`: the compact columns share its chunks
    dst.timeUs.appendTail(src.timeUs), dst.addr.appendTail(src.addr), dst.size.appendTail(src.size);
    appendFrom(dst.action, src.action, from), appendFrom(dst.stream, src.stream, from);
    appendFrom(dst.stack, src.stack, from);
    // Texts may name an earlier chunk's event: they are matched by their count, not their index.
    appendTail(dst.compileContext, src.compileContext);
    appendTail(dst.userMetadata, src.userMetadata);
}

void appendDelta(DeviceTrace& dst, const DeviceTrace& delta) {
    dst.append(delta, 0, delta.eventCount());
    appendFrom(dst.compileContext, delta.compileContext, 0);
    appendFrom(dst.userMetadata, delta.userMetadata, 0);
}

void appendReplayTail(ReplayResult& dst, const ReplayResult& src) {
    dst.allocated.appendTail(src.allocated), dst.active.appendTail(src.active);
    dst.reserved.appendTail(src.reserved);
    appendTail(dst.blockSizeExceptions, src.blockSizeExceptions);
    dst.rules = src.rules, dst.allocEvents = src.allocEvents;
    appendTail(dst.checkpoints, src.checkpoints);
    dst.initial = src.initial, dst.peak = src.peak, dst.final = src.final;
    dst.inconsistencies = src.inconsistencies;
}

} // namespace vs
