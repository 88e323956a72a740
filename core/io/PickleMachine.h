#pragma once
// A safe unpickler for the data-only subset of pickle that PyTorch snapshots use (protocols 2-5).
// It never imports or calls anything: opcodes that would (GLOBAL, REDUCE, BUILD, ...) are refused
// with their byte offset, and so is anything else outside the subset. Schema knowledge (what a trace
// entry or a frame looks like) lives in a ContainerHooks implementation, which may turn a freshly
// filled dict or list into a compact specialised object instead of keeping it generic.
#include "LoadMeter.h"
#include "PickleValue.h"
#include "util/Progress.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

namespace vs::pickle {

enum class Kind : uint8_t { List, Dict, Tuple, Event, Frame, Stack };

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

class PickleMachine {
  public:
    // Everything the machine keeps is charged to `meter`, which stops hostile expansion.
    PickleMachine(std::span<const uint8_t> input, ContainerHooks& hooks, LoadMeter& meter);

    // Runs to STOP and returns the top of the stack. Throws LoadError (with the offset) or Cancelled.
    Value run(const Progress& progress = {}, const std::function<void(uint64_t)>& consumed = {});

    // Accessors for hooks and for the schema walk after run().
    const Container& container(uint32_t i) const { return containers_[i]; }
    const Container* containerOf(Value v) const {
        return v.tag() == Tag::Container ? &containers_[v.payload()] : nullptr;
    }
    std::span<const Value> items(const Container& c) const;
    std::string_view str(Value v) const;
    bool isStr(Value v) const { return v.tag() == Tag::Str || v.tag() == Tag::LongStr; }
    bool toInt(Value v, int64_t& out) const;     // Int/BigInt/Bool
    bool toUInt64(Value v, uint64_t& out) const; // the low 64 bits (addresses, streams)
    bool toDouble(Value v, double& out) const;
    // An integer written as 2^63 or more keeps its low 64 bits, which read as negative in int64: this
    // tells it from a negative one, so that messages print the value as written.
    bool isAbove63(Value v) const { return v.tag() == Tag::BigInt && bigAbove63_[v.payload()]; }
    bool intOverflowed() const { return overflowed_; }
    void specialise(uint32_t container, Kind kind, uint32_t payload) {
        containers_[container] = {kind, payload};
    }
    uint64_t offset() const { return pos_; }
    LoadMeter& meter() { return meter_; }
    void releaseWorkingMemory();

  private:
    [[noreturn]] void fail(const std::string& what) const;
    void need(uint64_t n) const;
    Value pop();
    size_t popMark();
    Value newContainer(Kind k);
    uint32_t newStorage(std::span<const Value> items);
    void charge(uint64_t bytes);
    void chargeWorkingMemory();
    void fillDict(Value dict, std::span<const Value> pairs);
    void extendList(Value list, std::span<const Value> items);
    Value readLong(uint64_t nbytes);
    Value pushString(uint64_t len);
    void memoPut(uint64_t index);
    Value memoGet(uint64_t index) const;
    void refuse(uint8_t op) const;
    void step(uint8_t op);

    std::span<const uint8_t> in_;
    uint64_t pos_ = 0;
    ContainerHooks& hooks_;
    LoadMeter& meter_;
    uint64_t workingCharged_ = 0; // what stack, marks, memo and container table were last charged
    std::vector<Value> stack_;
    std::vector<size_t> marks_;
    std::vector<Value> memo_;
    std::vector<Container> containers_;
    std::vector<std::vector<Value>> storage_;
    std::vector<int64_t> bigInts_;
    std::vector<bool> bigAbove63_;
    std::vector<double> floats_;
    std::vector<std::pair<uint64_t, uint64_t>> longStrs_;
    bool overflowed_ = false;
    bool done_ = false;
};

} // namespace vs::pickle
