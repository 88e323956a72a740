#include "CompactColumn.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <limits>

#include <sys/mman.h>

namespace vs {
namespace {

// Slabs start small (a device of a few thousand events should not hold megabytes) and double up to
// 4 MiB, aligned so that transparent huge pages can back them: 4 KiB pages would cost a page fault
// per 1024 events, and on the development VM faults cost as much as filling the page.
constexpr size_t kFirstSlab = 64 << 10, kLastSlab = 4 << 20, kHuge = 2 << 20;

std::shared_ptr<std::byte> newSlab(size_t bytes) {
    void* p = std::aligned_alloc(bytes >= kHuge ? kHuge : 64, bytes);
    if (!p) throw std::bad_alloc();
    if (bytes >= kHuge) madvise(p, bytes, MADV_HUGEPAGE);
    return {static_cast<std::byte*>(p), [](std::byte* q) { std::free(q); }};
}

} // namespace

template <class T> void CompactColumn<T>::clear() {
    chunks_.clear(), tail_.clear();
    slab_.reset(), slabSize_ = slabUsed_ = 0;
}

template <class T> std::shared_ptr<std::byte> CompactColumn<T>::room(size_t bytes) {
    if (slabUsed_ + bytes > slabSize_) {
        slabSize_ = std::clamp(2 * slabSize_, kFirstSlab, kLastSlab);
        slab_ = newSlab(slabSize_), slabUsed_ = 0;
    }
    std::shared_ptr<std::byte> at(slab_, slab_.get() + slabUsed_); // keeps the slab alive
    slabUsed_ += bytes;
    return at;
}

template <class T> void CompactColumn<T>::seal() {
    const auto [lo, hi] = std::minmax_element(tail_.begin(), tail_.end());
    // In unsigned arithmetic the span is exact even for values of opposite signs near the limits.
    const uint64_t span = uint64_t(*hi) - uint64_t(*lo);
    const auto width = uint8_t((std::bit_width(span) + 7) / 8);
    Chunk c{*lo, *hi, width == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * width)) - 1, nullptr, width};
    if (width) {
        auto at = room(kChunk * width + sizeof(uint64_t));
        std::byte* out = at.get();
        // Each 8-byte store's upper bytes are overwritten by the next value's: stores in order.
        for (size_t i = 0; i < kChunk; ++i) {
            const uint64_t x = uint64_t(tail_[i]) - uint64_t(c.min);
            std::memcpy(out + i * width, &x, sizeof x);
        }
        c.data = std::move(at);
    }
    chunks_.push_back(std::move(c));
    tail_.clear();
}

template <class T> void CompactColumn<T>::appendTail(const CompactColumn& longer) {
    const size_t have = chunks_.size();
    chunks_.insert(chunks_.end(),
                   longer.chunks_.begin() + std::ptrdiff_t(std::min(have, longer.chunks_.size())),
                   longer.chunks_.end());
    tail_ = longer.tail_;
}

template <class T> void CompactColumn<T>::decode(const Chunk& c, size_t from, size_t to, T* out) {
    if (!c.width) return void(std::fill(out, out + (to - from), c.min));
    const uint64_t base = uint64_t(c.min);
    for (size_t i = from; i < to; ++i) *out++ = T(base + offsetAt(c, i));
}

template <class T> typename CompactColumn<T>::MinMax CompactColumn<T>::range(size_t from, size_t to) const {
    MinMax r{std::numeric_limits<T>::max(), std::numeric_limits<T>::min()};
    auto take = [&r](T lo, T hi) { r.min = std::min(r.min, lo), r.max = std::max(r.max, hi); };
    while (from < to) {
        const size_t c = from >> kShift, end = std::min(to, (c + 1) << kShift);
        if (c < chunks_.size() && end - from == kChunk) { // a whole chunk: its bounds are known
            take(chunks_[c].min, chunks_[c].max);
            from = end;
            continue;
        }
        forEachSpan(from, end, [&](size_t, std::span<const T> v) {
            const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
            take(*lo, *hi);
        });
        from = end;
    }
    return r;
}

namespace {

// The first index in [from, to) holding `want`, a value known to occur there.
template <class T, class Bounds>
size_t firstIndexOf(const CompactColumn<T>& s, size_t from, size_t to, T want, Bounds&& chunkCanHold) {
    while (from < to) {
        const size_t c = from >> CompactColumn<T>::kShift;
        const size_t end = std::min(to, (c + 1) << CompactColumn<T>::kShift);
        if (chunkCanHold(c)) {
            size_t found = end;
            s.forEachSpan(from, end, [&](size_t first, std::span<const T> v) {
                const auto it = std::find(v.begin(), v.end(), want);
                if (it != v.end() && found == end) found = first + size_t(it - v.begin());
            });
            if (found < end) return found;
        }
        from = end;
    }
    return to;
}

} // namespace

template <class T> size_t CompactColumn<T>::argMax(size_t from, size_t to) const {
    const T want = range(from, to).max;
    return firstIndexOf(*this, from, to, want,
                        [&](size_t c) { return c >= chunks_.size() || chunks_[c].max >= want; });
}

template <class T> size_t CompactColumn<T>::argMin(size_t from, size_t to) const {
    const T want = range(from, to).min;
    return firstIndexOf(*this, from, to, want,
                        [&](size_t c) { return c >= chunks_.size() || chunks_[c].min <= want; });
}

template <class T> size_t CompactColumn<T>::heapBytes() const {
    size_t bytes = chunks_.capacity() * sizeof(Chunk) + tail_.capacity() * sizeof(T);
    for (const Chunk& c : chunks_) bytes += c.width ? kChunk * c.width + sizeof(uint64_t) : 0;
    return bytes;
}

template <class T> bool CompactColumn<T>::operator==(const CompactColumn& o) const {
    if (size() != o.size()) return false;
    for (size_t i = 0; i < size(); ++i)
        if ((*this)[i] != o[i]) return false;
    return true;
}

template <class T> void CompactColumn<T>::appendRange(const CompactColumn& from, size_t first, size_t last) {
    from.forEachSpan(first, last, [this](size_t, std::span<const T> v) { append(v); });
}

template class CompactColumn<int64_t>;
template class CompactColumn<uint64_t>;

} // namespace vs
