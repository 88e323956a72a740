#pragma once
#include <cstdint>
#include <string_view>

namespace vs {

// A block's state as PyTorch's snapshot names it.
enum class BlockState : uint8_t { Inactive, ActiveAllocated, ActivePendingFree };

constexpr std::string_view blockStateName(BlockState s) {
    switch (s) {
    case BlockState::ActiveAllocated:
        return "active_allocated";
    case BlockState::ActivePendingFree:
        return "active_pending_free";
    case BlockState::Inactive:
        break;
    }
    return "inactive";
}

} // namespace vs
