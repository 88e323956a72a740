#include "StringTable.h"

namespace vs {

StringId StringTable::intern(std::string_view s) {
    if (auto it = index_.find(s); it != index_.end()) return StringId{it->second};
    const auto id = static_cast<uint32_t>(texts_.size());
    texts_.emplace_back(s);
    index_.emplace(texts_.back(), id);
    return StringId{id};
}

} // namespace vs
