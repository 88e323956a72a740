#pragma once
// Strong index types: an id of one table cannot be passed where another table's id is expected.
#include <compare>
#include <cstdint>
#include <functional>

namespace vs {

template <class Tag, class Rep = uint32_t> struct StrongId {
    Rep value{};
    constexpr StrongId() = default;
    constexpr explicit StrongId(Rep v) : value(v) {}
    constexpr auto operator<=>(const StrongId&) const = default;
};

using StringId = StrongId<struct StringTag>;
using FrameId = StrongId<struct FrameTag>;
using StackId = StrongId<struct StackTag>; // StackId{0} is the empty stack
// Two bytes: a capture has a handful of streams, and the id is a column of every event.
using StreamId = StrongId<struct StreamTag, uint16_t>;

} // namespace vs

template <class Tag, class Rep> struct std::hash<vs::StrongId<Tag, Rep>> {
    size_t operator()(const vs::StrongId<Tag, Rep>& id) const noexcept { return std::hash<Rep>{}(id.value); }
};
