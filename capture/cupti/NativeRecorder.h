#pragma once
// The CUPTI agent's recorder, free of CUPTI so that it is tested without a GPU: callbacks hand it
// device-memory operations with raw return addresses; a writer thread interns stacks, symbolizes new
// addresses (deferred: never in the CUDA call), encodes .vscap records and writes zstd chunks
// every 100 ms. The file is readable up to its last chunk if the program dies.
#include "LiveSocket.h"
#include "io/VscapWriter.h"
#include "model/Action.h"

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace vs::cupti {

class NativeRecorder {
  public:
    static constexpr int kMaxFrames = 32;
    // `live` (optional) receives the same bytes as `out`.
    explicit NativeRecorder(FILE* out, size_t maxBuffered = 1 << 20,
                            std::unique_ptr<LiveSocket> live = nullptr);
    ~NativeRecorder();
    NativeRecorder(const NativeRecorder&) = delete;
    NativeRecorder& operator=(const NativeRecorder&) = delete;

    // Called on the CUDA-calling thread: copies and returns. A full buffer drops (and counts).
    void allocated(uint64_t addr, uint64_t size, uint64_t stream, void* const* pcs, int depth);
    void freed(uint64_t addr, uint64_t stream, void* const* pcs, int depth);
    void mapped(uint64_t addr, uint64_t size, void* const* pcs, int depth);
    void unmapped(uint64_t addr, uint64_t size, void* const* pcs, int depth);
    void meta(const std::string& key, const std::string& value);

    void flush(); // writes what is buffered now (the writer thread does this every 100 ms)
    void close(); // flush, End record, stop the thread; idempotent
    uint64_t dropped() const { return dropped_; }

  private:
    struct Op {
        int64_t timeUs;
        uint64_t addr, size, stream;
        Action action;
        int depth;
        void* pcs[kMaxFrames];
    };
    void push(Action a, uint64_t addr, uint64_t size, uint64_t stream, void* const* pcs, int depth);
    void run();
    uint64_t stackOf(const Op& op);
    int64_t frameOf(void* pc);
    uint64_t string(const std::string& s);
    uint64_t stream(uint64_t raw);
    void encode(const std::vector<Op>& ops);

    FILE* out_;
    std::unique_ptr<LiveSocket> viewer_;
    vscap::Writer writer_;
    size_t max_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<Op> buffer_;
    std::unordered_map<uint64_t, uint64_t> live_; // addr -> size (frees carry no size)
    std::map<uint64_t, uint64_t> mappedRanges_;   // addr -> size of cuMemMap'd ranges
    void writeFinalState();
    std::mutex writeMutex_; // the tables below and the writer
    std::unordered_map<std::string, uint64_t> strings_{{"", 0}};
    std::unordered_map<void*, int64_t> frames_; // -1: a frame of CUDA or the agent itself, left out
    std::map<std::vector<uint64_t>, uint64_t> stacks_{{{}, 0}};
    std::unordered_map<uint64_t, uint64_t> streams_;
    uint64_t nextFrame_ = 0;
    std::set<uint64_t> unnamed_; // frames dladdr could not name
    uint64_t droppedWritten_ = 0;
    uint64_t dropped_ = 0;
    bool stop_ = false;
    bool closed_ = false;
    std::thread thread_;
};

// "function (module+0xoffset)" for a return address, from the dynamic symbol table (dladdr);
// functions need to be exported (-rdynamic) or in a shared library to be named.
struct NativeFrame {
    std::string function; // demangled; "??" when unknown
    std::string module;   // path of the shared object or executable
    uint64_t offset = 0;  // pc - module base
};
NativeFrame symbolize(void* pc);

} // namespace vs::cupti
