#include "NativeRecorder.h"

#include "io/VscapEncodeState.h"
#include "io/VscapEvents.h"
#include "io/VscapFormat.h"

#include <algorithm>
#include <chrono>
#include <optional>

namespace vs::cupti {

using vscap::Record;

namespace {
uint64_t round512(uint64_t n) {
    return (n + 511) & ~uint64_t(511);
}
} // namespace

NativeRecorder::NativeRecorder(FILE* out, size_t maxBuffered, std::unique_ptr<LiveSocket> live)
    : out_(out), viewer_(std::move(live)), writer_([this](std::string_view s) {
          std::fwrite(s.data(), 1, s.size(), out_), std::fflush(out_);
          if (viewer_) viewer_->send(s), lastSent_ = std::chrono::steady_clock::now();
      }),
      max_(maxBuffered) {
    buffer_.reserve(1024);
    meta("recorder", "vramscope-cupti"); // tells the viewer these are native allocations, not tensors
    thread_ = std::thread([this] { run(); });
}

NativeRecorder::~NativeRecorder() {
    close();
}

void NativeRecorder::push(Action a, uint64_t addr, uint64_t size, uint64_t stream, void* const* pcs,
                          int depth, uint32_t poolCorrelation, int device) {
    Op op;
    op.timeUs = nowUs(), op.addr = addr, op.size = size, op.stream = stream, op.action = a;
    op.poolCorrelation = poolCorrelation, op.device = device;
    op.depth = std::min(depth, kMaxFrames);
    for (int i = 0; i < op.depth; ++i) op.pcs[i] = pcs[i];
    std::lock_guard lock(mutex_);
    if (buffer_.size() >= max_) {
        ++dropped_;
        return;
    }
    buffer_.push_back(op);
}

// A raw allocation is its own segment holding one block: reserved and allocated move together.
void NativeRecorder::allocated(uint64_t addr, uint64_t size, uint64_t stream, void* const* pcs, int depth,
                               uint32_t poolCorrelation, int device) {
    {
        std::lock_guard lock(mutex_);
        live_[addr] = {size, device};
    }
    push(Action::SegmentAlloc, addr, round512(size), stream, pcs, depth, poolCorrelation, device);
    push(Action::Alloc, addr, size, stream, pcs, depth, 0, device);
}

void NativeRecorder::freed(uint64_t addr, uint64_t stream, void* const* pcs, int depth,
                           uint32_t poolCorrelation, int device) {
    uint64_t size;
    {
        std::lock_guard lock(mutex_);
        auto it = live_.find(addr);
        if (it == live_.end()) return; // allocated before the agent started: nothing to undo
        size = it->second.size;
        live_.erase(it);
    }
    push(Action::FreeRequested, addr, size, stream, pcs, depth, 0, device);
    push(Action::FreeCompleted, addr, size, stream, pcs, depth, 0, device);
    push(Action::SegmentFree, addr, round512(size), stream, pcs, depth, poolCorrelation, device);
}

void NativeRecorder::mapped(uint64_t addr, uint64_t size, void* const* pcs, int depth, uint64_t handle,
                            int device) {
    {
        std::lock_guard lock(mutex_);
        mappedRanges_[addr] = {size, device};
        mappedHandles_[addr] = handle;
        if (auto it = handles_.find(handle); it != handles_.end()) ++it->second.second;
    }
    push(Action::SegmentMap, addr, size, 0, pcs, depth, 0, device);
}

void NativeRecorder::unmapped(uint64_t addr, uint64_t size, void* const* pcs, int depth, int device) {
    {
        std::lock_guard lock(mutex_);
        mappedRanges_.erase(addr);
        if (auto m = mappedHandles_.find(addr); m != mappedHandles_.end()) {
            if (auto it = handles_.find(m->second); it != handles_.end()) --it->second.second;
            mappedHandles_.erase(m);
        }
    }
    push(Action::SegmentUnmap, addr, size, 0, pcs, depth, 0, device);
}

void NativeRecorder::deviceInfo(int device, const std::string& name, uint64_t totalMemory) {
    std::lock_guard lock(writeMutex_);
    writer_.write(vscap::DeviceRecord{device, totalMemory, name});
}

void NativeRecorder::physicalCreated(uint64_t handle, uint64_t size) {
    std::lock_guard lock(mutex_);
    handles_[handle] = {size, 0};
}

void NativeRecorder::physicalReleased(uint64_t handle) {
    std::lock_guard lock(mutex_);
    handles_.erase(handle);
}

void NativeRecorder::addressReserved(uint64_t addr, uint64_t size) {
    std::lock_guard lock(mutex_);
    addressRanges_[addr] = size;
}

void NativeRecorder::addressFreed(uint64_t addr) {
    std::lock_guard lock(mutex_);
    addressRanges_.erase(addr);
}

void NativeRecorder::poolSample(const PoolSample& s) {
    std::lock_guard lock(mutex_);
    samples_[s.correlation] = s;
}

void NativeRecorder::poolChanged(const PoolChange& c) {
    std::lock_guard lock(mutex_);
    poolChanges_.push_back(c);
}

void NativeRecorder::meta(const std::string& key, const std::string& value) {
    std::lock_guard lock(writeMutex_);
    writeMeta(key, value);
}

void NativeRecorder::writeMeta(const std::string& key, const std::string& value) {
    stacks_.meta(key, value);
}

void NativeRecorder::run() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
        wake_.wait_for(lock, std::chrono::milliseconds(100));
        lock.unlock();
        if (beforeFlush_) beforeFlush_(false);
        flush();
        keepAlive();
        lock.lock();
    }
}

uint64_t NativeRecorder::stream(uint64_t raw) {
    auto [it, fresh] = streams_.emplace(raw, streams_.size());
    if (fresh) writer_.write(vscap::StreamRecord{raw});
    return it->second;
}

// One Events record per device, each with its operations in order.
void NativeRecorder::encode(const std::vector<Op>& ops) {
    // Threads stamp their operations before taking the lock, and pool records come late: times are
    // clamped so that they never go back.
    std::vector<int64_t> times;
    times.reserve(ops.size());
    for (const Op& op : ops) times.push_back(lastTimeUs_ = std::max(lastTimeUs_, op.timeUs));
    std::set<int> devices;
    for (const Op& op : ops) devices.insert(op.device);
    for (int device : devices) {
        devices_.insert(device);
        std::vector<size_t> mine;
        std::vector<uint64_t> stacks, streams; // interned first: their definitions precede the events
        for (size_t i = 0; i < ops.size(); ++i)
            if (ops[i].device == device)
                mine.push_back(i), stacks.push_back(stacks_.stackOf(ops[i])),
                    streams.push_back(stream(ops[i].stream));
        vscap::writeEventsBody(writer_.beginRecord(Record::Events), device, mine.size(), [&](size_t k) {
            const Op& op = ops[mine[k]];
            return vscap::EventFields{times[mine[k]], op.addr, op.size, op.action, streams[k], stacks[k]};
        });
        writer_.endRecord();
    }
}

// How many of `ops` can be written now: those before the first pool operation whose activity record
// has not arrived (CUPTI delivers it with a later buffer), unless it has been awaited too long (the
// record was lost) or this is the last write. Called with mutex_ held.
size_t NativeRecorder::ready(const std::vector<Op>& ops, bool final) const {
    if (final) return ops.size();
    const int64_t givenUp = nowUs() - kPoolSampleWaitUs;
    for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i].poolCorrelation && !samples_.count(ops[i].poolCorrelation) && ops[i].timeUs > givenUp)
            return i;
    return ops.size();
}

// The first `n` ops, with the pool-cache segments' changes woven in at their moments.
std::vector<NativeRecorder::Op>
NativeRecorder::withPoolCaches(const std::vector<Op>& ops, size_t n, std::vector<PoolChange>& changes,
                               const std::unordered_map<uint32_t, PoolSample>& samples) {
    std::stable_sort(changes.begin(), changes.end(),
                     [](const PoolChange& a, const PoolChange& b) { return a.timeUs < b.timeUs; });
    std::vector<Op> out;
    out.reserve(n);
    size_t c = 0;
    for (size_t i = 0; i < n; ++i) {
        for (; c < changes.size() && changes[c].timeUs <= ops[i].timeUs; ++c) pools_.change(changes[c], out);
        const auto s = ops[i].poolCorrelation ? samples.find(ops[i].poolCorrelation) : samples.end();
        pools_.apply(ops[i], s == samples.end() ? nullptr : &s->second, out);
    }
    // Later changes wait for the ops they follow, unless nothing is waiting.
    for (; c < changes.size() && (n == ops.size() || changes[c].timeUs <= ops[n].timeUs); ++c)
        pools_.change(changes[c], out);
    changes.erase(changes.begin(), changes.begin() + long(c));
    return out;
}

void NativeRecorder::flush() {
    write(false);
}

void NativeRecorder::write(bool final) {
    std::lock_guard writeLock(writeMutex_);
    if (closed_) return;
    std::vector<Op> ops;
    std::vector<PoolChange> changes;
    std::unordered_map<uint32_t, PoolSample> samples;
    size_t n;
    uint64_t dropped;
    {
        std::lock_guard lock(mutex_);
        dropped = dropped_;
        ops.swap(pending_);
        ops.insert(ops.end(), buffer_.begin(), buffer_.end());
        buffer_.clear();
        changes.swap(pendingChanges_);
        changes.insert(changes.end(), poolChanges_.begin(), poolChanges_.end());
        poolChanges_.clear();
        n = ready(ops, final);
        pending_.assign(ops.begin() + long(n), ops.end());
        for (size_t i = 0; i < n; ++i)
            if (auto s = samples_.find(ops[i].poolCorrelation); ops[i].poolCorrelation && s != samples_.end())
                samples.insert(samples_.extract(s));
        if (samples_.size() > kMaxUnclaimedSamples) samples_.clear(); // records of dropped operations
    }
    const std::vector<Op> out = withPoolCaches(ops, n, changes, samples);
    pendingChanges_ = std::move(changes);
    if (!out.empty()) encode(out);
    if (dropped > droppedWritten_) {
        writer_.write(vscap::DroppedRecord{dropped - droppedWritten_});
        droppedWritten_ = dropped;
    }
    writer_.flush();
}

void NativeRecorder::keepAlive() {
    std::lock_guard writeLock(writeMutex_); // between whole chunks, never inside one
    if (closed_ || !viewer_ || std::chrono::steady_clock::now() - lastSent_ < keepalive_) return;
    std::string empty(vscap::kChunkHeaderSize, '\0'); // codec none, no bytes, CRC-32 of nothing = 0
    std::copy(std::begin(vscap::kChunkMagic), std::end(vscap::kChunkMagic), empty.begin());
    viewer_->send(empty);
    lastSent_ = std::chrono::steady_clock::now();
}

void NativeRecorder::close() {
    {
        std::lock_guard lock(mutex_);
        if (stop_) return;
        stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (beforeFlush_) beforeFlush_(true);
    write(true);
    std::lock_guard lock(writeMutex_);
    writeFinalState();
    writeVirtualMemoryFindings();
    writer_.finish();
    closed_ = true;
}

// The driver keeps no block list: the agent's own book of what is still allocated and mapped is the
// final state the viewer checks its replay against, one Segments record per device.
void NativeRecorder::writeFinalState() {
    std::lock_guard lock(mutex_);
    const auto poolFree = pools_.freeSegments(); // kept allocations and pool caches
    for (int device : devices_) writeFinalState(device, poolFree);
}

void NativeRecorder::writeFinalState(int device, const std::vector<PoolLedger::FreeSegment>& poolFree) {
    // The viewer joins adjacent mappings into one expandable segment, as PyTorch reports them.
    std::vector<std::pair<uint64_t, uint64_t>> joined;
    for (const auto& [addr, r] : mappedRanges_)
        if (r.device != device)
            continue;
        else if (!joined.empty() && joined.back().first + joined.back().second == addr)
            joined.back().second += r.size;
        else
            joined.emplace_back(addr, r.size);
    std::map<uint64_t, uint64_t> live; // sorted
    for (const auto& [addr, r] : live_)
        if (r.device == device) live.emplace(addr, r.size);
    // Each segment holds one block: an allocation fills its segment; a mapping or a pool's kept
    // memory is one free block.
    std::vector<vscap::BlockFields> blocks;
    std::vector<vscap::SegmentFields> segments;
    auto add = [&](uint64_t addr, uint64_t size, uint64_t requested, bool expandable, uint8_t state) {
        blocks.push_back({0, size, requested, state, 0});
        segments.push_back({addr, size, 0, expandable, false, 0, 0, 0, {}});
    };
    for (const auto& [addr, size] : live) add(addr, round512(size), size, false, 1);
    for (const auto& [addr, size] : joined) add(addr, size, size, true, 0); // like idle expandable segments
    for (const auto& f : poolFree)
        if (f.device == device) add(f.addr, f.size, f.size, f.expandable, 0);
    for (size_t i = 0; i < segments.size(); ++i) segments[i].blocks = {&blocks[i], 1}; // blocks is complete
    writer_.write(vscap::SegmentsRecord{device, segments});
}

// Physical memory created with cuMemCreate but mapped nowhere is device memory no segment shows;
// address ranges still reserved are address space only.
void NativeRecorder::writeVirtualMemoryFindings() {
    uint64_t bytes = 0, count = 0, reserved = 0;
    size_t ranges = 0;
    {
        std::lock_guard lock(mutex_);
        for (const auto& [handle, h] : handles_)
            if (h.second <= 0) bytes += h.first, ++count;
        for (const auto& [addr, size] : addressRanges_) reserved += size;
        ranges = addressRanges_.size();
    }
    if (bytes)
        writeMeta("warning", std::to_string(bytes) + " bytes of physical memory in " + std::to_string(count) +
                                 " cuMemCreate handle(s) were neither mapped nor released at the end: "
                                 "not counted as reserved");
    if (ranges)
        writeMeta("address_space_reserved", std::to_string(reserved) + " bytes in " + std::to_string(ranges) +
                                                " range(s) (cuMemAddressReserve; no device memory)");
}

} // namespace vs::cupti
