#pragma once
// Builds small training-loop-shaped captures for tests: one device, a segment per block (so reserved
// follows allocated and no cache shows), a heartbeat temporary every step, allocations kept,
// released or leaked with the stacks given, annotations.
#include "model/Capture.h"

#include <initializer_list>
#include <memory>
#include <tuple>
#include <utility>

namespace vs::test {

class SyntheticLoop {
  public:
    SyntheticLoop() : c_(std::make_unique<Capture>()) {
        c_->internStream(0);
        t().hasFinalSnapshot = false; // replayed from empty
        heartbeat_ = stack({{"train_step", 20}, {"main", 50}});
    }
    // A stack from frames given innermost first: {function, line} in /home/me/train.py.
    StackId stack(std::initializer_list<std::pair<const char*, uint32_t>> frames) {
        std::vector<FrameId> ids;
        for (auto [fn, line] : frames)
            ids.push_back(
                c_->frames.intern({c_->strings.intern(fn), c_->strings.intern("/home/me/train.py"), line}));
        return c_->stacks.intern(ids);
    }
    // A stack of frames in any files, innermost first: {function, file, line}.
    StackId stackIn(std::initializer_list<std::tuple<const char*, const char*, uint32_t>> frames) {
        std::vector<FrameId> ids;
        for (auto [fn, file, line] : frames)
            ids.push_back(c_->frames.intern({c_->strings.intern(fn), c_->strings.intern(file), line}));
        return c_->stacks.intern(ids);
    }
    uint64_t alloc(uint64_t bytes, StackId s) {
        const uint64_t at = next_;
        next_ += bytes;
        event(Action::SegmentAlloc, at, bytes, s);
        event(Action::Alloc, at, bytes, s);
        return at;
    }
    void free(uint64_t addr, uint64_t bytes, StackId s) {
        event(Action::FreeRequested, addr, bytes, s);
        event(Action::FreeCompleted, addr, bytes, s);
        event(Action::SegmentFree, addr, bytes, s);
    }
    // One iteration's heartbeat: a temporary made and freed (the forward pass of a real loop).
    void step(uint64_t bytes = 1 << 20) { free(alloc(bytes, heartbeat_), bytes, heartbeat_); }
    void annotate(const char* name, bool start = true) {
        c_->annotations.push_back({t().device, now_ + 1, start, c_->strings.intern(name)});
        now_ += 2;
    }
    // A failed request; `deviceFree`: what cudaMemGetInfo said then (the OOM entry's address field).
    void idle(int64_t us) { now_ += us; } // nothing happens for a while (data preparation, a sleep)
    void oom(uint64_t bytes, uint64_t deviceFree = 0) { event(Action::Oom, deviceFree, bytes, heartbeat_); }
    // Any event, as the allocator recorded it (a block split out of a segment, a free without its segment's).
    void raw(Action a, uint64_t addr, uint64_t size, StackId s) { event(a, addr, size, s); }
    Capture& capture() { return *c_; }
    // What follows goes to another GPU, whose first event comes at `startUs` (two devices that start
    // at different moments, as two ranks or a model moved to a second GPU later).
    void useDevice(int device, int64_t startUs) {
        t();
        auto& d = c_->devices.emplace_back();
        d.device = device;
        d.hasFinalSnapshot = false;
        current_ = c_->devices.size() - 1;
        now_ = startUs;
    }
    DeviceTrace& t() { return c_->devices.empty() ? c_->devices.emplace_back() : c_->devices[current_]; }
    std::unique_ptr<Capture> take() { return std::move(c_); }

    static constexpr uint64_t kBase = 0x7f0000000000;

  private:
    void event(Action a, uint64_t addr, uint64_t size, StackId s) {
        DeviceTrace& d = t();
        d.timeUs.push_back(now_ += 10), d.addr.push_back(addr), d.size.push_back(size);
        d.action.push_back(a), d.stream.push_back(StreamId{0}), d.stack.push_back(s);
    }

    std::unique_ptr<Capture> c_;
    StackId heartbeat_;
    int64_t now_ = 1'000'000;
    size_t current_ = 0;
    uint64_t next_ = kBase;
};

} // namespace vs::test
