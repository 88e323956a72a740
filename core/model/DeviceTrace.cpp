#include "DeviceTrace.h"

#include "util/HugePages.h"

#include <algorithm>
#include <cstring>

#include <sys/mman.h>

namespace vs {

std::string deviceName(int ordinal) {
    return ordinal == kPinnedHostDevice ? "pinned host memory" : "device " + std::to_string(ordinal);
}

size_t DeviceTrace::find(Action a, size_t from) const {
    if (from >= action.size()) return action.size();
    const void* at = std::memchr(action.data() + from, static_cast<int>(a), action.size() - from);
    return at ? size_t(static_cast<const Action*>(at) - action.data()) : action.size();
}

// The room past size() inside the vector's own allocation: no allocator bookkeeping lives there,
// and the pages read back as zeros if touched again.
template <class T> static void releaseSpare(std::vector<T>& v) {
    constexpr uintptr_t kPage = 4096;
    const auto begin = (reinterpret_cast<uintptr_t>(v.data() + v.size()) + kPage - 1) & ~(kPage - 1);
    const auto end = reinterpret_cast<uintptr_t>(v.data() + v.capacity()) & ~(kPage - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

void DeviceTrace::releaseSpareRoom() {
    releaseSpare(action), releaseSpare(stream), releaseSpare(stack);
}

size_t DeviceTrace::columnBytesAt(size_t n) const {
    constexpr size_t kCompact = 3 * sizeof(uint64_t), kVectors = kBytesPerEvent - kCompact;
    const size_t have = action.capacity();
    // std::vector grows to the larger of twice its size and what is asked for.
    const size_t cap = n <= have ? have : std::max(n, 2 * action.size());
    return cap * kVectors + n * kCompact;
}

void DeviceTrace::reserve(size_t n) {
    reserveHuge(action, n), reserveHuge(stream, n), reserveHuge(stack, n);
}

void DeviceTrace::append(const DeviceTrace& from, size_t first, size_t last) {
    timeUs.appendRange(from.timeUs, first, last), addr.appendRange(from.addr, first, last);
    size.appendRange(from.size, first, last);
    const auto take = [&](auto& to, const auto& v) {
        to.insert(to.end(), v.begin() + std::ptrdiff_t(first), v.begin() + std::ptrdiff_t(last));
    };
    take(action, from.action), take(stream, from.stream), take(stack, from.stack);
}

void DeviceTrace::clearEvents() {
    timeUs.clear(), addr.clear(), size.clear();
    action.clear(), stream.clear(), stack.clear();
    compileContext.clear(), userMetadata.clear();
}

} // namespace vs
