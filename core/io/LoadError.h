#pragma once
// The one error type of every reader: a message a user can act on, and where in the input it arose.
#include "util/Cancelled.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace vs {

class LoadError : public std::runtime_error {
  public:
    static constexpr uint64_t kNoOffset = UINT64_MAX;
    explicit LoadError(const std::string& what, uint64_t offset = kNoOffset)
        : std::runtime_error(offset == kNoOffset ? what : what + " at byte " + std::to_string(offset)),
          offset_(offset) {}
    uint64_t offset() const { return offset_; }

  private:
    uint64_t offset_;
};

} // namespace vs
