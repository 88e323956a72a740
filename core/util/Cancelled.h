#pragma once
// Thrown when the caller asked to stop (Cancel in the GUI, a newer request replacing an older one).
// In util so readers and analyses can both stop without depending on each other.
#include <stdexcept>

namespace vs {

class Cancelled : public std::runtime_error {
  public:
    Cancelled() : std::runtime_error("cancelled") {}
};

} // namespace vs
