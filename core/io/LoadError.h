#pragma once
// The one error type of every reader: a message a user can act on, and where in the input it arose.
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

// Thrown when the caller asked to stop (Cancel in the GUI).
class Cancelled : public std::runtime_error {
  public:
    Cancelled() : std::runtime_error("cancelled") {}
};

} // namespace vs
