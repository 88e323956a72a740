#pragma once
// What the live benchmarks share: a capture re-encoded as a stream of small chunks (one event batch
// each, as a recorder flushing a few times a second writes them) and a clock.
#include "io/CaptureFile.h"
#include "io/VscapExport.h"
#include "io/VscapFormat.h"

#include <chrono>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace bench {

inline double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline std::string chunkedStream(const char* capture, size_t eventsPerChunk) {
    vs::vscap::Writer::Options o;
    o.eventsPerRecord = eventsPerChunk, o.chunkBytes = 1; // one record per chunk
    return vs::encodeVscap(*vs::loadCaptureFile(capture, {}), o);
}

// Where each chunk of the stream ends.
inline std::vector<size_t> chunkEnds(const std::string& s) {
    std::vector<size_t> ends;
    for (size_t pos = vs::vscap::kHeaderSize; pos + vs::vscap::kChunkHeaderSize <= s.size();) {
        uint32_t stored;
        std::memcpy(&stored, s.data() + pos + 8, 4);
        pos += vs::vscap::kChunkHeaderSize + stored;
        ends.push_back(pos);
    }
    return ends;
}

inline std::span<const uint8_t> span(const std::string& s, size_t from, size_t to) {
    return {reinterpret_cast<const uint8_t*>(s.data()) + from, to - from};
}

} // namespace bench
