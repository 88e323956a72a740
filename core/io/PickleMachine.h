#pragma once
// A safe unpickler for the data-only subset of pickle that PyTorch snapshots use (protocols 2-5).
// It never imports or calls anything: opcodes that would (GLOBAL, REDUCE, BUILD, ...) are refused
// with their byte offset, and so is anything else outside the subset. Schema knowledge (what a trace
// entry or a frame looks like) lives in a ContainerHooks implementation, which may turn a freshly
// filled dict or list into a compact specialised object instead of keeping it generic.
#include "LoadMeter.h"
#include "PickleMemo.h"
#include "PickleValue.h"
#include "util/Progress.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace vs::pickle {

// Events: a list whose items are consecutive trace entries (a device's trace), kept as a run of
// event indices instead of one Value per item; it reads as a list everywhere.
enum class Kind : uint8_t { List, Dict, Tuple, Event, Frame, Stack, Events };

struct Container {
    Kind kind;
    uint32_t payload; // generic storage index (kNoStorage while empty) or the specialised object's id
};
constexpr uint32_t kNoStorage = UINT32_MAX;

class PickleMachine;

class ContainerHooks {
  public:
    virtual ~ContainerHooks() = default;
    // A dict that was empty receives its first items (k0, v0, k1, v1...). Return true after
    // turning it into a specialised container with machine.specialise().
    virtual bool dictFilled(PickleMachine& m, uint32_t container, std::span<const Value> pairs) = 0;
    // Items are appended to a list that is empty or already specialised. Return true if handled.
    virtual bool listExtended(PickleMachine& m, uint32_t container, std::span<const Value> items) = 0;
};

using Progress = vs::Progress;

// The unpickler's stack: what a std::vector<Value> does here (the same capacity growth, which the
// memory meter charges), plus setSize() so that the hot loop can keep the top in a register.
class ValueStack {
  public:
    bool empty() const { return size_ == 0; }
    size_t size() const { return size_; }
    size_t capacity() const { return cap_; }
    Value* data() { return data_.get(); }
    const Value* data() const { return data_.get(); }
    const Value* end() const { return data_.get() + size_; }
    Value& back() { return data_[size_ - 1]; }
    Value& operator[](size_t i) { return data_[i]; }
    void push_back(Value v) {
        if (size_ == cap_) [[unlikely]]
            reallocate(size_ + std::max<size_t>(size_, 1));
        data_[size_++] = v;
    }
    void pop_back() { --size_; }
    void resize(size_t n) {
        if (n > cap_) reallocate(size_ + std::max(size_, n - size_));
        for (size_t i = size_; i < n; ++i) data_[i] = Value{};
        size_ = n;
    }
    void reserve(size_t n) {
        if (n > cap_) reallocate(n);
    }
    void setSize(size_t n) { size_ = n; } // n <= capacity(), the values below it written

  private:
    struct Free {
        void operator()(Value* p) const { ::operator delete(p); }
    };
    void reallocate(size_t cap) {
        std::unique_ptr<Value[], Free> fresh(static_cast<Value*>(::operator new(cap * sizeof(Value))));
        if (size_) std::memcpy(static_cast<void*>(fresh.get()), data_.get(), size_ * sizeof(Value));
        data_ = std::move(fresh);
        cap_ = cap;
    }
    std::unique_ptr<Value[], Free> data_;
    size_t size_ = 0, cap_ = 0;
};

class PickleMachine {
  public:
    // Everything the machine keeps is charged to `meter`, which stops hostile expansion.
    PickleMachine(std::span<const uint8_t> input, ContainerHooks& hooks, LoadMeter& meter);

    // The memo slots that GETs read back, from a PickleMemo::Scan of the same input; without them
    // run() scans the input first.
    void setMemo(PickleMemo memo) { memo_ = std::move(memo), memoScanned_ = true; }
    // Runs to STOP and returns the top of the stack. Throws LoadError (with the offset) or Cancelled.
    Value run(const Progress& progress = {}, const std::function<void(uint64_t)>& consumed = {});

    // Accessors for hooks and for the schema walk after run().
    const Container& container(uint32_t i) const { return containers_[i]; }
    // The container a value names (an Event value reads as a container of kind Event), or none.
    std::optional<Container> containerOf(Value v) const {
        if (v.tag() == Tag::Container) return containers_[v.payload()];
        if (v.tag() == Tag::Event) return Container{Kind::Event, static_cast<uint32_t>(v.payload())};
        return std::nullopt;
    }
    // The same for the hot paths: kind kNotContainer for any other value.
    static constexpr Kind kNotContainer = static_cast<Kind>(0xff);
    Container peek(Value v) const {
        if (v.tag() == Tag::Container) return containers_[v.payload()];
        return {v.tag() == Tag::Event ? Kind::Event : kNotContainer, static_cast<uint32_t>(v.payload())};
    }
    // Items of a List, Dict or Tuple (none for the other kinds; an Events list: see eventRun).
    std::span<const Value> items(const Container& c) const;
    // An Events list: its first event index and its count.
    std::pair<uint32_t, uint32_t> eventRun(const Container& c) const { return runs_[c.payload]; }
    std::string_view str(Value v) const {
        if (v.tag() == Tag::Str) [[likely]]
            return {reinterpret_cast<const char*>(in_.data() + v.strOffset()),
                    static_cast<size_t>(v.strLength())};
        return longStr(v);
    }
    bool isStr(Value v) const { return v.tag() == Tag::Str || v.tag() == Tag::LongStr; }
    bool toInt(Value v, int64_t& out) const { // Int/BigInt/Bool
        if (v.tag() == Tag::Int) [[likely]]
            return out = v.smallInt(), true;
        return toIntSlow(v, out);
    }
    bool toUInt64(Value v, uint64_t& out) const { // the low 64 bits (addresses, streams)
        int64_t i;
        if (!toInt(v, i)) return false;
        out = static_cast<uint64_t>(i);
        return true;
    }
    bool toDouble(Value v, double& out) const;
    // An integer written as 2^63 or more keeps its low 64 bits, which read as negative in int64: this
    // tells it from a negative one, so that messages print the value as written.
    bool isAbove63(Value v) const { return v.tag() == Tag::BigInt && bigAbove63_[v.payload()]; }
    // Written with more than 64 bits (its low 64 bits are all that is kept): out of any range a
    // reader accepts. isAbove63 tells its sign.
    bool isWide(Value v) const { return v.tag() == Tag::BigInt && bigWide_[v.payload()]; }
    bool intOverflowed() const { return overflowed_; }
    void specialise(uint32_t container, Kind kind, uint32_t payload) {
        containers_[container] = {kind, payload};
    }
    uint64_t offset() const { return pos_; }
    LoadMeter& meter() { return meter_; }
    void releaseWorkingMemory();

  private:
    std::string_view longStr(Value v) const;
    bool toIntSlow(Value v, int64_t& out) const;
    [[noreturn]] void fail(const std::string& what) const;
    void need(uint64_t n) const;
    Value pop();
    size_t popMark();
    Value newContainer(Kind k);
    uint32_t newStorage(std::span<const Value> items);
    void charge(uint64_t bytes);
    void chargeWorkingMemory();
    // `at`: the stack slot holding the dict or list (kNoSlot when it is on no stack slot).
    void fillDict(Value dict, std::span<const Value> pairs, size_t at);
    void extendList(Value list, std::span<const Value> items);
    bool extendEventRun(uint32_t container, std::span<const Value> items);
    void recycleEvent(uint32_t container, size_t at);
    void recycleList(std::span<const Value> pairs);
    static constexpr size_t kNoSlot = SIZE_MAX;
    Value readLong(uint64_t nbytes);
    Value pushString(uint64_t len);
    void memoPut(uint64_t index);
    [[noreturn]] void memoMissing(uint64_t index) const;
    void refuse(uint8_t op) const;
    void step(uint8_t op);

    std::span<const uint8_t> in_;
    uint64_t pos_ = 0;
    ContainerHooks& hooks_;
    LoadMeter& meter_;
    uint64_t workingCharged_ = 0; // what stack, marks, memo and container table were last charged
    ValueStack stack_;
    std::vector<size_t> marks_;
    PickleMemo memo_;
    bool memoScanned_ = false;
    std::vector<Container> containers_;
    // The dict made by the last EMPTY_DICT, while no copy of its value exists but its stack slot
    // and at most one memo slot (trackMemo_): once it becomes an event, both are rewritten to an
    // Event value and its container slot is reused (freeContainers_). kUntracked: none.
    static constexpr uint64_t kUntracked = UINT64_MAX;
    uint64_t trackBits_ = kUntracked;
    // The list made by the last EMPTY_LIST while its value is on one stack slot only (no memo slot
    // that a GET reads, no GET of it): once a dict that becomes an event consumes it (a trace
    // entry's frames, already read into the event's stack), its container slot is reused too.
    uint64_t trackList_ = kUntracked;
    uint64_t trackMemo_ = UINT64_MAX;
    std::vector<uint32_t> freeContainers_;
    // Containers made, reused slots included: the memory meter charges the table as if no slot
    // were reused (containerCapacity_: the capacity a table without reuse would have).
    uint64_t containersMade_ = 0;
    uint64_t containerCapacity_ = 0;
    std::vector<std::pair<uint32_t, uint32_t>> runs_; // Events lists: (first event, count)
    std::vector<std::vector<Value>> storage_;
    std::vector<int64_t> bigInts_;
    std::vector<bool> bigAbove63_;
    std::vector<bool> bigWide_;
    std::vector<double> floats_;
    std::vector<std::pair<uint64_t, uint64_t>> longStrs_;
    bool overflowed_ = false;
    bool done_ = false;
};

} // namespace vs::pickle
