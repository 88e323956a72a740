#pragma once
// A capture whose bytes are damaged (a chunk fails its checksum, its size field disagrees with the
// data after it, a chunk header is garbage), as opposed to one that merely ends early. Everything
// before the damaged chunk reads fine, so a caller may offer to open that part
// (LoadOptions::openIntactPart).
#include "LoadError.h"

namespace vs {

class DamagedCapture : public LoadError {
  public:
    // `offset`: where the damaged chunk starts, which is also how many bytes before it are intact.
    DamagedCapture(const std::string& reason, uint64_t offset, uint64_t intactChunks)
        : LoadError("the capture is damaged at byte " + std::to_string(offset) + " (" + reason + "); " +
                    (intactChunks ? "the " + std::to_string(intactChunks) +
                                        " chunks before it are intact and can be opened on their own"
                                  : std::string("no chunk before it is intact"))),
          reason_(reason), offset_(offset), intactChunks_(intactChunks) {}
    const std::string& reason() const { return reason_; }
    uint64_t damagedAt() const { return offset_; }
    uint64_t intactChunks() const { return intactChunks_; }

  private:
    std::string reason_;
    uint64_t offset_;
    uint64_t intactChunks_;
};

} // namespace vs
