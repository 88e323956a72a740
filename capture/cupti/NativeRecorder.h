#pragma once
// The CUPTI agent's recorder, free of CUPTI so that it is tested without a GPU: callbacks hand it
// device-memory operations with raw return addresses; a writer thread interns stacks, symbolizes new
// addresses (deferred: never in the CUDA call), encodes .vscap records and writes zstd chunks
// every 100 ms. The file is readable up to its last chunk if the program dies.
#include "LiveSocket.h"
#include "NativeOp.h"
#include "NativeStacks.h"
#include "PoolLedger.h"
#include "io/VscapWriter.h"
#include "model/Action.h"
#include "model/PoolCache.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace vs::cupti {

// What CUPTI's activity records add to the callbacks: the size of the stream-ordered memory pool an
// allocation came from (MEMORY2), and pool trims and destruction (MEMORY_POOL).
struct PoolSample {
    uint32_t correlation = 0; // the driver call's correlation id (CUpti_CallbackData::correlationId)
    uint64_t pool = 0;        // the pool's base address
    uint64_t poolSize = 0;    // bytes the pool holds from the device after the operation
    bool sized = true;        // false: an imported pool, whose size this process cannot see
};
struct PoolChange {
    int64_t timeUs = 0;
    uint64_t pool = 0, poolSize = 0; // a destroyed pool has size 0
};

// Where the activity walker hands what it found.
class PoolSink {
  public:
    virtual ~PoolSink() = default;
    virtual void poolSample(const PoolSample& s) = 0;
    virtual void poolChanged(const PoolChange& c) = 0;
};

class NativeRecorder final : public PoolSink {
  public:
    static constexpr int kMaxFrames = cupti::kMaxFrames;
    // `live` (optional) receives the same bytes as `out`.
    explicit NativeRecorder(FILE* out, size_t maxBuffered = 1 << 20,
                            std::unique_ptr<LiveSocket> live = nullptr);
    ~NativeRecorder() override;
    NativeRecorder(const NativeRecorder&) = delete;
    NativeRecorder& operator=(const NativeRecorder&) = delete;

    // Called on the CUDA-calling thread: copies and returns. A full buffer drops (and counts).
    // `poolCorrelation` (non-zero) marks a stream-ordered pool operation whose PoolSample is awaited
    // before it is written, so that the pool's size is known at that moment.
    void allocated(uint64_t addr, uint64_t size, uint64_t stream, void* const* pcs, int depth,
                   uint32_t poolCorrelation = 0, int device = 0);
    void freed(uint64_t addr, uint64_t stream, void* const* pcs, int depth, uint32_t poolCorrelation = 0,
               int device = 0);
    void mapped(uint64_t addr, uint64_t size, void* const* pcs, int depth, uint64_t handle = 0,
                int device = 0);
    void unmapped(uint64_t addr, uint64_t size, void* const* pcs, int depth, int device = 0);
    // A device's name and memory, written once (the Device record) when it is first seen.
    void deviceInfo(int device, const std::string& name, uint64_t totalMemory);
    void meta(const std::string& key, const std::string& value);
    // Virtual memory management: physical handles (cuMemCreate/cuMemRelease) and which are mapped.
    void physicalCreated(uint64_t handle, uint64_t size);
    void physicalReleased(uint64_t handle);
    // Address ranges (cuMemAddressReserve/cuMemAddressFree) hold no device memory; what is still
    // reserved at the end is described in a Meta record.
    void addressReserved(uint64_t addr, uint64_t size);
    void addressFreed(uint64_t addr);
    // From the activity walker (any thread).
    void poolSample(const PoolSample& s) override;
    void poolChanged(const PoolChange& c) override;
    // Called before each write (and at close) on the writer thread: the injection flushes CUPTI's
    // activity buffers there, so that the samples for the buffered operations have arrived.
    void setBeforeFlush(std::function<void(bool final)> f) { beforeFlush_ = std::move(f); }
    static constexpr uint64_t kPoolCacheBase = vs::kPoolCacheBase; // model/PoolCache.h

    // A viewer that got no chunk for this long gets an empty one (a sign of life; the file gets
    // nothing): the viewer ends a session silent for VRAMSCOPE_LIVE_IDLE_S (10 min by default).
    void setKeepalive(std::chrono::milliseconds every) { keepalive_ = every; }

    void flush(); // writes what is buffered now (the writer thread does this every 100 ms)
    void close(); // flush, End record, stop the thread; idempotent

  private:
    using Op = NativeOp;
    static constexpr int64_t kPoolSampleWaitUs = 2'000'000;
    static constexpr size_t kMaxUnclaimedSamples = 1 << 16;

    void push(Action a, uint64_t addr, uint64_t size, uint64_t stream, void* const* pcs, int depth,
              uint32_t poolCorrelation, int device);
    void run();
    void write(bool final);
    void keepAlive();
    size_t ready(const std::vector<Op>& ops, bool final) const;
    std::vector<Op> withPoolCaches(const std::vector<Op>& ops, size_t n, std::vector<PoolChange>& changes,
                                   const std::unordered_map<uint32_t, PoolSample>& samples);
    void encode(const std::vector<Op>& ops);
    uint64_t stream(uint64_t raw);
    void writeMeta(const std::string& key, const std::string& value);
    void writeFinalState();
    void writeFinalState(int device, const std::vector<PoolLedger::FreeSegment>& poolFree);
    void writeVirtualMemoryFindings();

    FILE* out_;
    std::unique_ptr<LiveSocket> viewer_;
    vscap::Writer writer_;
    size_t max_;
    std::function<void(bool)> beforeFlush_;
    std::thread thread_;

    // What the callbacks touch, under mutex_.
    std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<Op> buffer_;
    struct Range {
        uint64_t size;
        int device;
    };
    std::unordered_map<uint64_t, Range> live_;                       // by address (frees carry no size)
    std::map<uint64_t, Range> mappedRanges_;                         // cuMemMap'd, by address
    std::unordered_map<uint64_t, uint64_t> mappedHandles_;           // addr -> the handle mapped there
    std::unordered_map<uint64_t, std::pair<uint64_t, int>> handles_; // cuMemCreate'd: size, mappings
    std::unordered_map<uint64_t, uint64_t> addressRanges_;           // cuMemAddressReserve'd: size
    std::unordered_map<uint32_t, PoolSample> samples_;               // by correlation id
    std::vector<PoolChange> poolChanges_;
    uint64_t dropped_ = 0;
    bool stop_ = false;

    // What the writer touches, under writeMutex_ (taken before mutex_ when both are needed).
    std::mutex writeMutex_;
    NativeStacks stacks_{writer_};
    PoolLedger pools_;
    std::unordered_map<uint64_t, uint64_t> streams_;
    std::vector<Op> pending_; // written once their pool samples arrive
    std::vector<PoolChange> pendingChanges_;
    int64_t lastTimeUs_ = 0; // of the last event written: the file's times never go back
    std::set<int> devices_;  // those with events: each gets its final state
    uint64_t droppedWritten_ = 0;
    bool closed_ = false;
    std::chrono::milliseconds keepalive_{60'000};
    std::chrono::steady_clock::time_point lastSent_ = std::chrono::steady_clock::now(); // to the viewer
};

} // namespace vs::cupti
