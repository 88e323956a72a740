#pragma once
// Writes a .vscap stream: the header, then records gathered into compressed, checksummed chunks.
// The caller appends records (the encoders of VscapEncode.h and VscapEvents.h write their bodies);
// a chunk is closed when it holds `chunkBytes` or on flush(). Part of the codec library
// (vramscope_vscap_codec) that the CUPTI agent links too.
#include "VscapEncode.h"

#include <functional>
#include <string_view>

namespace vs::vscap {

class Writer {
  public:
    using Sink = std::function<void(std::string_view)>; // receives whole header/chunks, in order
    struct Options {
        Codec codec = Codec::Zstd;
        int level = 3;
        size_t chunkBytes = 1u << 20;
        size_t eventsPerRecord = 1u << 16; // for writers of event batches
    };
    Writer(Sink sink, Options options);
    explicit Writer(Sink sink) : Writer(std::move(sink), Options{}) {}
    ~Writer() = default;

    // Starts a record: write its body into the returned writer, then call endRecord().
    ByteWriter& beginRecord(Record kind);
    void endRecord();
    // One whole record from an encoder struct of VscapEncode.h / VscapEncodeState.h.
    template <class R> void write(const R& r) {
        r.encode(beginRecord(R::kRecord));
        endRecord();
    }
    void flush();  // closes the current chunk, if any
    void finish(); // writes the End record and flushes

  private:
    Sink sink_;
    Options options_;
    Record kind_{};
    ByteWriter body_;
    ByteWriter chunk_;
};

} // namespace vs::vscap
