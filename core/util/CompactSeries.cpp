#include "CompactSeries.h"

#include <algorithm>
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

CompactSeries::CompactSeries(std::span<const int64_t> values) {
    for (int64_t v : values) push_back(v);
}

void CompactSeries::clear() {
    chunks_.clear(), tail_.clear();
    slab_.reset(), slabSize_ = slabUsed_ = 0;
}

std::shared_ptr<void> CompactSeries::room(size_t bytes) {
    if (slabUsed_ + bytes > slabSize_) {
        slabSize_ = std::clamp(2 * slabSize_, kFirstSlab, kLastSlab);
        slab_ = newSlab(slabSize_), slabUsed_ = 0;
    }
    std::shared_ptr<void> at(slab_, slab_.get() + slabUsed_); // keeps the slab alive
    slabUsed_ += bytes;
    return at;
}

void CompactSeries::seal() {
    const auto [lo, hi] = std::minmax_element(tail_.begin(), tail_.end());
    Chunk c{*lo, *hi, nullptr, Kind::Constant};
    // In unsigned arithmetic the span is exact even for values of opposite signs near the limits.
    const uint64_t span = uint64_t(c.max) - uint64_t(c.min);
    if (span > std::numeric_limits<uint32_t>::max()) {
        auto at = room(kChunk * sizeof(int64_t));
        std::copy(tail_.begin(), tail_.end(), static_cast<int64_t*>(at.get()));
        c.data = std::move(at), c.kind = Kind::Wide;
    } else if (span > 0) {
        auto at = room(kChunk * sizeof(uint32_t));
        auto* out = static_cast<uint32_t*>(at.get());
        for (size_t i = 0; i < kChunk; ++i) out[i] = uint32_t(uint64_t(tail_[i]) - uint64_t(c.min));
        c.data = std::move(at), c.kind = Kind::Narrow;
    }
    chunks_.push_back(std::move(c));
    tail_.clear();
}

void CompactSeries::appendTail(const CompactSeries& longer) {
    const size_t have = chunks_.size();
    chunks_.insert(chunks_.end(), longer.chunks_.begin() + std::ptrdiff_t(std::min(have, longer.chunks_.size())),
                   longer.chunks_.end());
    tail_ = longer.tail_;
}

void CompactSeries::decode(const Chunk& c, size_t from, size_t to, int64_t* out) {
    switch (c.kind) {
    case Kind::Narrow: {
        const auto* v = static_cast<const uint32_t*>(c.data.get());
        for (size_t i = from; i < to; ++i) *out++ = c.min + int64_t(v[i]);
        return;
    }
    case Kind::Wide: {
        const auto* v = static_cast<const int64_t*>(c.data.get());
        std::copy(v + from, v + to, out);
        return;
    }
    default:
        std::fill(out, out + (to - from), c.min);
    }
}

CompactSeries::MinMax CompactSeries::range(size_t from, size_t to) const {
    MinMax r{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
    auto take = [&r](int64_t lo, int64_t hi) { r.min = std::min(r.min, lo), r.max = std::max(r.max, hi); };
    while (from < to) {
        const size_t c = from >> kShift, end = std::min(to, (c + 1) << kShift);
        if (c < chunks_.size() && end - from == kChunk) { // a whole chunk: its bounds are known
            take(chunks_[c].min, chunks_[c].max);
            from = end;
            continue;
        }
        forEachSpan(from, end, [&](size_t, std::span<const int64_t> v) {
            const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
            take(*lo, *hi);
        });
        from = end;
    }
    return r;
}

namespace {

// The first index in [from, to) holding `want`, a value known to occur there.
template <class Bounds>
size_t firstIndexOf(const CompactSeries& s, size_t from, size_t to, int64_t want, Bounds&& chunkCanHold) {
    while (from < to) {
        const size_t c = from >> CompactSeries::kShift;
        const size_t end = std::min(to, (c + 1) << CompactSeries::kShift);
        if (chunkCanHold(c)) {
            size_t found = end;
            s.forEachSpan(from, end, [&](size_t first, std::span<const int64_t> v) {
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

size_t CompactSeries::argMax(size_t from, size_t to) const {
    const int64_t want = range(from, to).max;
    return firstIndexOf(*this, from, to, want, [&](size_t c) { return c >= chunks_.size() || chunks_[c].max >= want; });
}

size_t CompactSeries::argMin(size_t from, size_t to) const {
    const int64_t want = range(from, to).min;
    return firstIndexOf(*this, from, to, want, [&](size_t c) { return c >= chunks_.size() || chunks_[c].min <= want; });
}

size_t CompactSeries::heapBytes() const {
    size_t bytes = chunks_.capacity() * sizeof(Chunk) + tail_.capacity() * sizeof(int64_t);
    for (const Chunk& c : chunks_)
        bytes += c.kind == Kind::Wide ? kChunk * sizeof(int64_t) : c.kind == Kind::Narrow ? kChunk * sizeof(uint32_t) : 0;
    return bytes;
}

bool CompactSeries::operator==(const CompactSeries& o) const {
    if (size() != o.size()) return false;
    for (size_t i = 0; i < size(); ++i)
        if ((*this)[i] != o[i]) return false;
    return true;
}

} // namespace vs
