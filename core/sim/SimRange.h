#pragma once
// The sizes the what-if simulator handles, checked once at simulate()'s entry: requests and
// capacities up to 1 PiB each (the readers' own bound on a size, kMaxPlausibleBytes), and at most
// 4 EiB asked for over the whole input (the initial state plus every request, each with a segment's
// rounding), so that no sum the simulator keeps (reserved, allocated, its synthetic addresses) can
// overflow. Past that simulate() throws SimRangeError naming the request; a request larger than any
// device (1 TiB) is simulated (it is an out-of-memory under a known capacity) and noted.
#include "SimInput.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace vs {

constexpr uint64_t kMaxSimBytes = 1ull << 50;   // one request, one segment or the capacity
constexpr uint64_t kMaxSimDemand = 1ull << 62;  // everything the input asks for, together
constexpr uint64_t kLargestDevice = 1ull << 40; // above every GPU made (288 GB in 2025)
// What one request may cost the simulator above its size: a segment's rounding (2 MiB) and the
// expandable page or small-pool buffer it maps (20 MiB), counted generously.
constexpr uint64_t kSimOverheadPerRequest = 64ull << 20;

class SimRangeError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Throws SimRangeError when the input or the capacity is out of range; else the notes to show
// (requests larger than any device).
std::vector<std::string> checkSimRange(const SimInput& in, uint64_t capacity);

} // namespace vs
