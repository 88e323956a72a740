#include "StringTable.h"

#include <functional>

namespace vs {

StringId StringTable::intern(std::string_view s) {
    const uint64_t h = std::hash<std::string_view>{}(s);
    const uint32_t first = index_.find(h);
    const auto id = static_cast<uint32_t>(texts_.size());
    if (first != FlatMap::kMissing) {
        for (uint32_t i = first; i != UINT32_MAX; i = nextSameHash_[i])
            if (texts_[i] == s) return StringId{i};
        nextSameHash_.push_back(nextSameHash_[first]); // a hash collision: chained after the first
        nextSameHash_[first] = id;
    } else {
        index_.set(h, id);
        nextSameHash_.push_back(UINT32_MAX);
    }
    texts_.emplace_back(s);
    return StringId{id};
}

} // namespace vs
