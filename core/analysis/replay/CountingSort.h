#pragma once
// Indices 0..n-1 grouped by a small integer key, by counting sort: two passes, no hashing, and
// stable, so each key's indices stay ascending. Key k's indices are indices[offsets[k], offsets[k+1]).
// The index lives on huge pages: a click reads it at strides of kilobytes at 100M events.
#include "util/HugePages.h"

#include <cstdint>
#include <vector>

namespace vs {

template <class KeyOf>
void countingSort(size_t n, size_t keys, KeyOf keyOf, std::vector<uint32_t>& offsets,
                  std::vector<uint32_t>& indices) {
    offsets.assign(keys + 1, 0);
    for (size_t i = 0; i < n; ++i) ++offsets[keyOf(i) + 1];
    for (size_t k = 1; k < offsets.size(); ++k) offsets[k] += offsets[k - 1];
    reserveHuge(indices, n);
    indices.resize(n);
    std::vector<uint32_t> next(offsets.begin(), offsets.end() - 1);
    for (size_t i = 0; i < n; ++i) indices[next[keyOf(i)]++] = static_cast<uint32_t>(i);
}

} // namespace vs
