#pragma once
// A series of 64-bit values, one per event (the bytes allocated, active or reserved after each
// event), kept in chunks of 4096 values. A chunk whose values are all equal keeps one number; one
// whose values span less than 4 GiB keeps 32-bit offsets from its minimum; any other keeps its
// values. Allocated bytes rarely move by 4 GiB within 4096 events and reserved bytes change only
// when a segment comes or goes, so a replay's three series take ~4 + 4 + ~0 bytes per event
// instead of 24 (2.4 GB at 100M events: the largest table after the event columns).
//
// Sealed chunks never move or change: appending costs O(1) with no vector doubling (no copy of a
// live session's series at a refresh), a copy shares them, and every chunk's minimum and maximum
// answer range queries over whole chunks without reading their values.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <vector>

namespace vs {

class CompactSeries {
  public:
    static constexpr unsigned kShift = 12;
    static constexpr size_t kChunk = size_t(1) << kShift;

    CompactSeries() = default;
    explicit CompactSeries(std::span<const int64_t> values); // tests and tools

    size_t size() const { return (chunks_.size() << kShift) + tail_.size(); }
    bool empty() const { return chunks_.empty() && tail_.empty(); }
    int64_t operator[](size_t i) const;
    int64_t back() const { return (*this)[size() - 1]; }
    void push_back(int64_t v) {
        tail_.push_back(v);
        if (tail_.size() == kChunk) seal();
    }
    void clear();
    // `longer` holds this series' values and more (the newer snapshot of a live session): takes its
    // values past size(), sharing its sealed chunks.
    void appendTail(const CompactSeries& longer);

    struct MinMax {
        int64_t min, max;
    };
    MinMax range(size_t from, size_t to) const; // over [from, to), to > from
    size_t argMax(size_t from, size_t to) const; // the first index of the largest value in [from, to)
    size_t argMin(size_t from, size_t to) const;
    int64_t max() const { return range(0, size()).max; } // a non-empty series

    // Calls f(first, values) for consecutive pieces of [from, to), each decoded into a buffer: the
    // fast way to read a long stretch.
    template <class F> void forEachSpan(size_t from, size_t to, F&& f) const;

    size_t heapBytes() const; // what the chunks and the tail hold
    bool operator==(const CompactSeries& o) const;

    class const_iterator {
      public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = int64_t;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = int64_t;
        const_iterator() = default;
        const_iterator(const CompactSeries* s, size_t i) : s_(s), i_(i) {}
        int64_t operator*() const { return (*s_)[i_]; }
        const_iterator& operator++() { return ++i_, *this; }
        const_iterator operator++(int) { return {s_, i_++}; }
        const_iterator operator+(difference_type d) const { return {s_, i_ + size_t(d)}; }
        difference_type operator-(const const_iterator& o) const { return difference_type(i_) - difference_type(o.i_); }
        bool operator==(const const_iterator& o) const { return i_ == o.i_; }

      private:
        const CompactSeries* s_ = nullptr;
        size_t i_ = 0;
    };
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

  private:
    enum class Kind : uint8_t { Constant, Narrow, Wide };
    struct Chunk {
        int64_t min, max;
        std::shared_ptr<const void> data; // into a slab; none for a constant chunk
        Kind kind;
    };
    void seal();
    std::shared_ptr<void> room(size_t bytes);
    static void decode(const Chunk& c, size_t from, size_t to, int64_t* out);

    std::vector<Chunk> chunks_;
    std::vector<int64_t> tail_; // the values after the last sealed chunk, fewer than kChunk
    std::shared_ptr<std::byte> slab_; // where the next chunks' values go
    size_t slabSize_ = 0, slabUsed_ = 0;
};

inline int64_t CompactSeries::operator[](size_t i) const {
    const size_t c = i >> kShift;
    if (c >= chunks_.size()) return tail_[i - (chunks_.size() << kShift)];
    const Chunk& k = chunks_[c];
    switch (k.kind) {
    case Kind::Narrow:
        return k.min + int64_t(static_cast<const uint32_t*>(k.data.get())[i & (kChunk - 1)]);
    case Kind::Wide:
        return static_cast<const int64_t*>(k.data.get())[i & (kChunk - 1)];
    default:
        return k.min;
    }
}

template <class F> void CompactSeries::forEachSpan(size_t from, size_t to, F&& f) const {
    int64_t buffer[kChunk];
    while (from < to) {
        const size_t c = from >> kShift, end = std::min(to, (c + 1) << kShift);
        if (c >= chunks_.size()) {
            const size_t base = chunks_.size() << kShift;
            f(from, std::span<const int64_t>(tail_.data() + (from - base), to - from));
            return;
        }
        decode(chunks_[c], from & (kChunk - 1), end - (c << kShift), buffer);
        f(from, std::span<const int64_t>(buffer, end - from));
        from = end;
    }
}

} // namespace vs
