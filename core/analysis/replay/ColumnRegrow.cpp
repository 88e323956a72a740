#include "analysis/replay/ColumnRegrow.h"

#include <algorithm>

namespace vs {
namespace {

constexpr size_t kSmall = 1 << 16; // below this a plain copy is too quick to matter

// One column `v` and its bigger buffer `next`.
template <class T> void regrow(std::vector<T>& v, std::vector<T>& next, size_t incoming) {
    const size_t cap = v.capacity(), need = v.size() + incoming;
    // Plain pages: MADV_HUGEPAGE made it slower on the development VM (synchronous compaction).
    if (next.capacity() == 0 && cap >= kSmall && need > cap / 2 && need <= 2 * cap) next.reserve(2 * cap);
    if (next.capacity() == 0) return; // small, or a jump past any doubling: let the vector grow
    // Two elements copied per element appended: done by the time the column is full (from half).
    const size_t slice = std::min(v.size() - std::min(next.size(), v.size()), 2 * incoming + kSmall);
    next.insert(next.end(), v.begin() + std::ptrdiff_t(next.size()),
                v.begin() + std::ptrdiff_t(next.size() + slice));
    if (need <= cap) return;
    next.insert(next.end(), v.begin() + std::ptrdiff_t(next.size()), v.end()); // the rest, if any
    v.swap(next);
    std::vector<T>().swap(next); // frees the old buffer
}

} // namespace

template <class F> void ColumnRegrow::forEach(DeviceTrace& t, ReplayResult& r, F&& f) {
    // Times, addresses, sizes and the series are compact columns: chunked, they never move.
    f(t.action, nextTrace_.action), f(t.stream, nextTrace_.stream), f(t.stack, nextTrace_.stack);
    f(r.blockSizeExceptions, nextReplay_.blockSizeExceptions);
}

void ColumnRegrow::prepare(DeviceTrace& trace, ReplayResult& replay, size_t incoming) {
    forEach(trace, replay, [incoming](auto& v, auto& next) { regrow(v, next, incoming); });
}

} // namespace vs
