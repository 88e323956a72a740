#pragma once
// Interned strings: each distinct text is stored once and named by a StringId.
#include "FlatMap.h"
#include "Ids.h"

#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace vs {

class StringTable {
  public:
    StringTable() { intern(""); } // StringId{0} is the empty string
    StringId intern(std::string_view s);
    std::string_view text(StringId id) const { return texts_[id.value]; }
    size_t size() const { return texts_.size(); }

  private:
    std::deque<std::string> texts_; // deque: references stay valid as it grows
    FlatMap index_;                 // hash of the text -> first string with that hash
    std::vector<uint32_t> nextSameHash_;
};

} // namespace vs
