#include "NativeRecorder.h"

#include "io/VscapEvents.h"

#include <chrono>
#include <cxxabi.h>
#include <dlfcn.h>

namespace vs::cupti {

using vscap::Record;

namespace {
int64_t nowUs() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}
uint64_t round512(uint64_t n) {
    return (n + 511) & ~uint64_t(511);
}
} // namespace

NativeFrame symbolize(void* pc) {
    NativeFrame f;
    Dl_info info{};
    // A return address points after the call: look up pc-1 so the call's own function is named.
    void* at = static_cast<char*>(pc) - 1;
    if (!dladdr(at, &info)) return f.function = "??", f;
    f.module = info.dli_fname ? info.dli_fname : "";
    f.offset = reinterpret_cast<uint64_t>(pc) - reinterpret_cast<uint64_t>(info.dli_fbase);
    if (!info.dli_sname) return f.function = "??", f;
    int status = 0;
    char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    f.function = status == 0 && demangled ? demangled : info.dli_sname;
    std::free(demangled);
    return f;
}

NativeRecorder::NativeRecorder(FILE* out, size_t maxBuffered, std::unique_ptr<LiveSocket> live)
    : out_(out), viewer_(std::move(live)), writer_([this](std::string_view s) {
          std::fwrite(s.data(), 1, s.size(), out_), std::fflush(out_);
          if (viewer_) viewer_->send(s);
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
                          int depth) {
    Op op;
    op.timeUs = nowUs(), op.addr = addr, op.size = size, op.stream = stream, op.action = a;
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
void NativeRecorder::allocated(uint64_t addr, uint64_t size, uint64_t stream, void* const* pcs, int depth) {
    {
        std::lock_guard lock(mutex_);
        live_[addr] = size;
    }
    push(Action::SegmentAlloc, addr, round512(size), stream, pcs, depth);
    push(Action::Alloc, addr, size, stream, pcs, depth);
}

void NativeRecorder::freed(uint64_t addr, uint64_t stream, void* const* pcs, int depth) {
    uint64_t size;
    {
        std::lock_guard lock(mutex_);
        auto it = live_.find(addr);
        if (it == live_.end()) return; // allocated before the agent started: nothing to undo
        size = it->second;
        live_.erase(it);
    }
    push(Action::FreeRequested, addr, size, stream, pcs, depth);
    push(Action::FreeCompleted, addr, size, stream, pcs, depth);
    push(Action::SegmentFree, addr, round512(size), stream, pcs, depth);
}

void NativeRecorder::mapped(uint64_t addr, uint64_t size, void* const* pcs, int depth) {
    {
        std::lock_guard lock(mutex_);
        mappedRanges_[addr] = size;
    }
    push(Action::SegmentMap, addr, size, 0, pcs, depth);
}

void NativeRecorder::unmapped(uint64_t addr, uint64_t size, void* const* pcs, int depth) {
    {
        std::lock_guard lock(mutex_);
        mappedRanges_.erase(addr);
    }
    push(Action::SegmentUnmap, addr, size, 0, pcs, depth);
}

void NativeRecorder::meta(const std::string& key, const std::string& value) {
    std::lock_guard lock(writeMutex_);
    auto& b = writer_.beginRecord(Record::Meta);
    b.varint(key.size()), b.bytes(key), b.bytes(value);
    writer_.endRecord();
}

void NativeRecorder::run() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
        wake_.wait_for(lock, std::chrono::milliseconds(100));
        lock.unlock();
        flush();
        lock.lock();
    }
}

uint64_t NativeRecorder::string(const std::string& s) {
    auto [it, fresh] = strings_.emplace(s, strings_.size());
    if (fresh) writer_.beginRecord(Record::String).bytes(s), writer_.endRecord();
    return it->second;
}

// Frames inside the driver, CUPTI, the runtime or this agent say nothing about who allocated.
static bool internalModule(const std::string& module) {
    for (const char* lib : {"libcuda.so", "libcupti", "libcudart", "libvramscope_cupti"})
        if (module.find(lib) != std::string::npos) return true;
    return false;
}

int64_t NativeRecorder::frameOf(void* pc) {
    if (auto it = frames_.find(pc); it != frames_.end()) return it->second;
    const NativeFrame f = symbolize(pc);
    if (internalModule(f.module)) return frames_[pc] = -1;
    if (f.function == "??") unnamed_.insert(uint64_t(nextFrame_));
    char offset[32];
    std::snprintf(offset, sizeof offset, "+0x%llx", static_cast<unsigned long long>(f.offset));
    const uint64_t name = string(f.function), file = string(f.module + offset);
    auto& b = writer_.beginRecord(Record::Frame);
    b.varint(name), b.varint(file), b.varint(0);
    writer_.endRecord();
    return frames_[pc] = int64_t(nextFrame_++);
}

uint64_t NativeRecorder::stackOf(const Op& op) {
    std::vector<uint64_t> ids;
    for (int i = 0; i < op.depth; ++i)
        if (const int64_t f = frameOf(op.pcs[i]); f >= 0) ids.push_back(uint64_t(f));
    // A statically linked CUDA runtime leaves unnamed frames above the caller: drop them.
    size_t lead = 0;
    while (lead + 1 < ids.size() && unnamed_.count(ids[lead])) ++lead;
    ids.erase(ids.begin(), ids.begin() + long(lead));
    auto [it, fresh] = stacks_.emplace(ids, stacks_.size());
    if (fresh) {
        auto& b = writer_.beginRecord(Record::Stack);
        b.varint(ids.size());
        for (uint64_t f : ids) b.varint(f);
        writer_.endRecord();
    }
    return it->second;
}

uint64_t NativeRecorder::stream(uint64_t raw) {
    auto [it, fresh] = streams_.emplace(raw, streams_.size());
    if (fresh) writer_.beginRecord(Record::Stream).varint(raw), writer_.endRecord();
    return it->second;
}

void NativeRecorder::encode(const std::vector<Op>& ops) {
    std::vector<uint64_t> stacks, streams; // interned first: their definitions precede the events
    for (const Op& op : ops) stacks.push_back(stackOf(op)), streams.push_back(stream(op.stream));
    vscap::writeEventsBody(writer_.beginRecord(Record::Events), 0, ops.size(), [&](size_t i) {
        const Op& op = ops[i];
        return vscap::EventFields{op.timeUs, op.addr, op.size, op.action, streams[i], stacks[i]};
    });
    writer_.endRecord();
}

void NativeRecorder::flush() {
    std::vector<Op> ops;
    {
        std::lock_guard lock(mutex_);
        ops.swap(buffer_);
    }
    std::lock_guard lock(writeMutex_);
    if (closed_) return;
    if (!ops.empty()) encode(ops);
    if (dropped_ > droppedWritten_) {
        writer_.beginRecord(Record::Dropped).varint(dropped_ - droppedWritten_), writer_.endRecord();
        droppedWritten_ = dropped_;
    }
    writer_.flush();
}

void NativeRecorder::close() {
    {
        std::lock_guard lock(mutex_);
        if (stop_) return;
        stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    flush();
    std::lock_guard lock(writeMutex_);
    writeFinalState();
    writer_.finish();
    closed_ = true;
}

// The driver keeps no block list: the agent's own book of what is still allocated and mapped is the
// final state the viewer checks its replay against.
void NativeRecorder::writeFinalState() {
    std::lock_guard lock(mutex_);
    // The viewer joins adjacent mappings into one expandable segment, as PyTorch reports them.
    std::vector<std::pair<uint64_t, uint64_t>> joined;
    for (const auto& [addr, size] : mappedRanges_)
        if (!joined.empty() && joined.back().first + joined.back().second == addr)
            joined.back().second += size;
        else
            joined.emplace_back(addr, size);
    auto& b = writer_.beginRecord(Record::Segments);
    b.svarint(0), b.varint(live_.size() + joined.size());
    const std::map<uint64_t, uint64_t> sorted(live_.begin(), live_.end());
    for (const auto& [addr, size] : sorted) { // one allocated block filling its segment
        b.varint(addr), b.varint(round512(size)), b.varint(0), b.u8(0), b.varint(0), b.varint(0), b.varint(0);
        b.varint(1), b.varint(0), b.varint(round512(size)), b.varint(size), b.u8(1), b.varint(0);
    }
    for (const auto& [addr, size] : joined) { // mapped and free, like an idle expandable segment
        b.varint(addr), b.varint(size), b.varint(0), b.u8(1), b.varint(0), b.varint(0), b.varint(0);
        b.varint(1), b.varint(0), b.varint(size), b.varint(size), b.u8(0), b.varint(0);
    }
    writer_.endRecord();
}

} // namespace vs::cupti
