#pragma once
// A column of 64-bit values, one per event, kept in chunks of 4096 values: each value as its offset
// from the chunk's minimum, in as few whole bytes as the chunk's span needs (none when all values
// are equal). Over 4096 events a timestamp moves by milliseconds to seconds (2-3 bytes), block
// addresses and sizes stay within a few GiB or TiB of each other (4-5 bytes), the bytes allocated
// move by less than 4 GiB (4 bytes), and reserved bytes change only when a segment comes or goes
// (mostly none). So the event columns and the replay's series take 2-5 bytes per event instead of
// 8. The general rule, instead of fixed kinds, keeps any input exact: a chunk that spans the whole
// 64-bit range takes 8 bytes per value.
//
// Sealed chunks never move or change: appending costs O(1) with no vector doubling (no copy of a
// live session's columns at a refresh), a copy shares them, and every chunk's minimum and maximum
// answer range queries over whole chunks without reading their values.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace vs {

template <class T> class CompactColumn {
    static_assert(sizeof(T) == 8, "offsets are taken in 64-bit unsigned arithmetic");

  public:
    static constexpr unsigned kShift = 12;
    static constexpr size_t kChunk = size_t(1) << kShift;
    using value_type = T;

    CompactColumn() = default;
    explicit CompactColumn(std::span<const T> values) { append(values); }
    // A copy shares the sealed chunks but seals its own into slabs of its own: two columns writing
    // into one slab would overwrite each other's chunks.
    CompactColumn(const CompactColumn& o) : chunks_(o.chunks_), tail_(o.tail_) {}
    CompactColumn& operator=(const CompactColumn& o) {
        if (this != &o) chunks_ = o.chunks_, tail_ = o.tail_, slab_.reset(), slabSize_ = slabUsed_ = 0;
        return *this;
    }
    CompactColumn(CompactColumn&& o) noexcept { *this = std::move(o); }
    CompactColumn& operator=(CompactColumn&& o) noexcept { // leaves `o` empty and usable
        chunks_ = std::exchange(o.chunks_, {}), tail_ = std::exchange(o.tail_, {});
        slab_ = std::exchange(o.slab_, {});
        slabSize_ = std::exchange(o.slabSize_, 0), slabUsed_ = std::exchange(o.slabUsed_, 0);
        return *this;
    }

    size_t size() const { return (chunks_.size() << kShift) + tail_.size(); }
    bool empty() const { return chunks_.empty() && tail_.empty(); }
    T operator[](size_t i) const;
    T front() const { return (*this)[0]; }
    T back() const { return (*this)[size() - 1]; }
    void push_back(T v) {
        tail_.push_back(v);
        if (tail_.size() == kChunk) seal();
    }
    void append(std::span<const T> values) {
        for (T v : values) push_back(v);
    }
    void appendRange(const CompactColumn& from, size_t first, size_t last); // from[first, last)
    void clear();
    // `longer` holds this column's values and more (the newer snapshot of a live session): takes its
    // values past size(), sharing its sealed chunks.
    void appendTail(const CompactColumn& longer);

    struct MinMax {
        T min, max;
    };
    MinMax range(size_t from, size_t to) const;  // over [from, to), to > from
    size_t argMax(size_t from, size_t to) const; // the first index of the largest value in [from, to)
    size_t argMin(size_t from, size_t to) const;
    T max() const { return range(0, size()).max; } // a non-empty column

    // Calls f(first, values) for consecutive pieces of [from, to), each decoded into a buffer: the
    // fast way to read a long stretch.
    template <class F> void forEachSpan(size_t from, size_t to, F&& f) const;

    size_t heapBytes() const; // what the chunks and the tail hold
    bool operator==(const CompactColumn& o) const;

    class const_iterator {
      public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = T;
        const_iterator() = default;
        const_iterator(const CompactColumn* s, size_t i) : s_(s), i_(i) {}
        T operator*() const { return (*s_)[i_]; }
        T operator[](difference_type d) const { return (*s_)[i_ + size_t(d)]; }
        const_iterator& operator++() { return ++i_, *this; }
        const_iterator operator++(int) { return {s_, i_++}; }
        const_iterator& operator--() { return --i_, *this; }
        const_iterator operator--(int) { return {s_, i_--}; }
        const_iterator& operator+=(difference_type d) { return i_ += size_t(d), *this; }
        const_iterator& operator-=(difference_type d) { return i_ -= size_t(d), *this; }
        const_iterator operator+(difference_type d) const { return {s_, i_ + size_t(d)}; }
        const_iterator operator-(difference_type d) const { return {s_, i_ - size_t(d)}; }
        difference_type operator-(const const_iterator& o) const {
            return difference_type(i_) - difference_type(o.i_);
        }
        bool operator==(const const_iterator& o) const { return i_ == o.i_; }
        auto operator<=>(const const_iterator& o) const { return i_ <=> o.i_; }

      private:
        const CompactColumn* s_ = nullptr;
        size_t i_ = 0;
    };
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

  private:
    struct Chunk {
        T min, max;
        uint64_t mask;                         // the low `width` bytes
        std::shared_ptr<const std::byte> data; // `width` bytes per value in a slab, then 8 of padding
        uint8_t width;                         // 0: every value is `min`
    };
    // An offset stored little-endian in `width` bytes: read as 8 bytes (the padding keeps the last
    // in bounds) and masked. One unaligned load, whatever the width.
    static uint64_t offsetAt(const Chunk& c, size_t j) {
        uint64_t x;
        std::memcpy(&x, c.data.get() + j * c.width, sizeof x);
        return x & c.mask;
    }
    void seal();
    std::shared_ptr<std::byte> room(size_t bytes);
    static void decode(const Chunk& c, size_t from, size_t to, T* out);

    std::vector<Chunk> chunks_;
    std::vector<T> tail_;             // the values after the last sealed chunk, fewer than kChunk
    std::shared_ptr<std::byte> slab_; // where the next chunks' values go
    size_t slabSize_ = 0, slabUsed_ = 0;
};

template <class T> inline T CompactColumn<T>::operator[](size_t i) const {
    const size_t c = i >> kShift;
    if (c >= chunks_.size()) return tail_[i - (chunks_.size() << kShift)];
    const Chunk& k = chunks_[c];
    return k.width ? T(uint64_t(k.min) + offsetAt(k, i & (kChunk - 1))) : k.min;
}

template <class T>
template <class F>
void CompactColumn<T>::forEachSpan(size_t from, size_t to, F&& f) const {
    T buffer[kChunk];
    while (from < to) {
        const size_t c = from >> kShift, end = std::min(to, (c + 1) << kShift);
        if (c >= chunks_.size()) {
            const size_t base = chunks_.size() << kShift;
            f(from, std::span<const T>(tail_.data() + (from - base), to - from));
            return;
        }
        decode(chunks_[c], from & (kChunk - 1), end - (c << kShift), buffer);
        f(from, std::span<const T>(buffer, end - from));
        from = end;
    }
}

extern template class CompactColumn<int64_t>;
extern template class CompactColumn<uint64_t>;

// The replay's series: bytes after each event.
using CompactSeries = CompactColumn<int64_t>;

} // namespace vs
