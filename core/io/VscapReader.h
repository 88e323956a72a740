#pragma once
// Reads .vscap streams into a Capture. The Decoder is incremental (a live socket feeds it whatever
// arrived); a file is one feed. A stream cut at any byte yields everything up to its last complete
// chunk plus a warning; a damaged chunk (checksum, size field, header) is a DamagedCapture, never read
// as a cut; a record that does not decode is a LoadError.
#include "LoadOptions.h"
#include "VscapFormat.h"
#include "VscapRecords.h"
#include "model/Capture.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace vs::vscap {

bool looksLikeVscap(std::span<const uint8_t> bytes); // the magic, nothing more

class Decoder {
  public:
    explicit Decoder(Capture& capture);
    ~Decoder();
    Decoder(const Decoder&) = delete;
    Decoder& operator=(const Decoder&) = delete;

    // Decodes the header and every complete chunk at the front of `bytes` (which starts at stream
    // offset `offset`). Returns how many bytes were used; the rest must be fed again with more.
    size_t consume(std::span<const uint8_t> bytes, uint64_t offset);
    // The stream ended with `leftover` bytes (at stream offset `offset`) that hold no complete chunk:
    // records warnings for a cut/unclosed stream, or throws DamagedCapture when those bytes show that
    // a chunk's size field is wrong rather than the stream short.
    void finish(std::span<const uint8_t> leftover, uint64_t offset);
    // The stream was damaged at `offset` and is read only up to there (LoadOptions::openIntactPart).
    void finishBeforeDamage(uint64_t offset, const std::string& what);
    // Bounds for one load: the decoded model's memory and the bytes decompressed in all.
    void setLimits(uint64_t maxMemory, uint64_t maxDecompressed);

    // The whole stream's size, when known (a file): lets the decoder trust event-count hints up to
    // a bound that size implies. Unknown (live) streams ignore the hints.
    void setStreamSize(uint64_t bytes);

    bool headerSeen() const { return headerSeen_; }
    bool ended() const { return ended_; }
    uint64_t chunks() const { return chunks_; }
    uint64_t dropped() const { return dropped_; }

  private:
    bool readHeader(std::span<const uint8_t> bytes);
    void readChunk(std::span<const uint8_t> stored, uint8_t codec, uint32_t rawSize, uint64_t offset);
    [[noreturn]] void damaged(const std::string& what, uint64_t offset) const;
    void warnIncomplete();
    void readRecords(std::span<const uint8_t> raw, uint64_t offset);
    void startCudaLevel();
    void budgetRecords(uint64_t left, uint64_t used);
    static constexpr uint64_t kExpansion = 4096;
    static constexpr uint64_t kSlack = 64ull << 20;

    Capture& c_;
    std::unique_ptr<Records> records_;
    std::vector<uint8_t> scratch_;
    bool headerSeen_ = false;
    bool ended_ = false;
    uint64_t chunks_ = 0;
    uint64_t dropped_ = 0;
    uint64_t droppedBefore_ = 0;   // the current Records' count already added to dropped_
    uint64_t linesOutOfRange_ = 0; // of the Records before the current one
    uint64_t budget_ = UINT64_MAX, reserveLimit_ = 0;
    uint64_t streamSize_ = 0; // 0: unknown (a live stream)
    uint64_t decompressed_ = 0;
    uint64_t maxDecompressed_ = UINT64_MAX;
};

} // namespace vs::vscap

namespace vs {

std::unique_ptr<Capture> loadVscapFile(const std::string& path, const LoadOptions& options);
std::unique_ptr<Capture> loadVscapBytes(std::span<const uint8_t> bytes, const LoadOptions& options = {});

} // namespace vs
