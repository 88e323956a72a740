#pragma once
// The one memory budget of a load: decompressed input plus everything a reader builds from it. The
// process-wide default is half of the physical memory unless `--max-memory` (CLI and GUI) sets it; a
// file that would need more is refused with a message that says so, before the memory is taken.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vs {

class MemoryBudget {
  public:
    static uint64_t machineDefault(); // half of the physical memory, in whole GiB when over 1 GiB
    static uint64_t processDefault(); // what a load gets unless its LoadOptions say otherwise
    static void setProcessDefault(uint64_t bytes);
    // "8G", "8GiB", "512M", "512MiB", "1.5g" or plain bytes; nullopt when not a size.
    static std::optional<uint64_t> parse(std::string_view text);
    static std::string describe(uint64_t bytes); // "11 GiB", "64 MiB"
    // The refusal every reader gives when a load would pass `budget`.
    static std::string exceededMessage(uint64_t budget);
};

} // namespace vs
