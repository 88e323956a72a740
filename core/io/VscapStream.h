#pragma once
// Assembles a .vscap stream that arrives in pieces (a socket, a file another process is writing):
// validates every complete chunk as it comes and keeps the bytes of the complete ones, which are
// always a valid .vscap prefix. Throws LoadError on a stream that is not .vscap or is corrupt.
#include "VscapReader.h"

#include <memory>
#include <string>

namespace vs::vscap {

class StreamAssembler {
  public:
    StreamAssembler();
    // Appends `bytes`; returns how many new complete bytes there are (0: a chunk is still partial).
    size_t feed(std::string_view bytes);
    const std::string& complete() const { return complete_; }
    size_t pendingBytes() const { return pending_.size(); }
    bool ended() const { return decoder_->ended(); }
    uint64_t events() const;

  private:
    std::unique_ptr<Capture> scratch_;
    std::unique_ptr<Decoder> decoder_;
    std::string pending_, complete_;
};

} // namespace vs::vscap
