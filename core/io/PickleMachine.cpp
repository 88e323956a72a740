#include "PickleMachine.h"

#include "LoadError.h"
#include "PickleOpcodes.h"
#include "util/HugePages.h"

#include <algorithm>
#include <cstring>

namespace vs::pickle {

// A vector of items in storage_ costs its header and the allocator's bookkeeping besides its items.
constexpr uint64_t kVectorOverhead = sizeof(std::vector<Value>) + 16;

PickleMachine::PickleMachine(std::span<const uint8_t> input, ContainerHooks& hooks, LoadMeter& meter)
    : in_(input), hooks_(hooks), meter_(meter) {
    stack_.reserve(1024);
}

void PickleMachine::charge(uint64_t bytes) {
    chargeWorkingMemory();
    meter_.charge(bytes, pos_);
}

// The stack, marks, memo and container table grow by at most a few words per opcode in the hot loop,
// which does not count them one by one: their capacity is charged here, at every other charge and
// at every progress report.
void PickleMachine::chargeWorkingMemory() {
    const uint64_t now = stack_.capacity() * sizeof(Value) + marks_.capacity() * sizeof(size_t) +
                         containerCapacity_ * sizeof(Container);
    if (now > workingCharged_) meter_.charge(now - workingCharged_, pos_);
    workingCharged_ = std::max(now, workingCharged_);
}

uint32_t PickleMachine::newStorage(std::span<const Value> items) {
    if (storage_.size() >= kNoStorage) fail("too many containers");
    charge(kVectorOverhead + items.size() * sizeof(Value));
    storage_.emplace_back(items.begin(), items.end());
    return static_cast<uint32_t>(storage_.size() - 1);
}

void PickleMachine::fail(const std::string& what) const {
    throw LoadError(what, pos_);
}

void PickleMachine::need(uint64_t n) const {
    if (n > in_.size() - pos_)
        throw LoadError("truncated pickle: needs " + std::to_string(n) + " more bytes but the input ends",
                        pos_);
}

Value PickleMachine::pop() {
    if (stack_.empty() || (!marks_.empty() && marks_.back() == stack_.size())) fail("stack underflow");
    Value v = stack_.back();
    stack_.pop_back();
    return v;
}

size_t PickleMachine::popMark() {
    if (marks_.empty()) fail("MARK expected but none is open");
    size_t m = marks_.back();
    marks_.pop_back();
    return m;
}

Value PickleMachine::newContainer(Kind k) {
    if (containersMade_ >= (1ull << 32) - 1) fail("too many containers");
    if (containersMade_ == containerCapacity_)
        containerCapacity_ += std::max<uint64_t>(containerCapacity_, 1);
    ++containersMade_;
    if (!freeContainers_.empty()) {
        const uint32_t i = freeContainers_.back();
        freeContainers_.pop_back();
        containers_[i] = {k, kNoStorage};
        return Value::make(Tag::Container, i);
    }
    containers_.push_back({k, kNoStorage});
    return Value::make(Tag::Container, containers_.size() - 1);
}

// The tracked dict became an event: its stack slot and memo slot, the only places its value is,
// now name the event directly, and its container slot is free for the next container.
void PickleMachine::recycleEvent(uint32_t container, size_t at) {
    const uint64_t bits = trackBits_;
    trackBits_ = kUntracked;
    if (at >= stack_.size() || stack_[at].bits != bits) return;
    const Value event = Value::make(Tag::Event, containers_[container].payload);
    stack_[at] = event;
    if (Value* s = trackMemo_ != UINT64_MAX ? memo_.slot(trackMemo_) : nullptr; s && s->bits == bits)
        *s = event;
    freeContainers_.push_back(container);
}

// A dict that became an event consumed these pairs: if the tracked list is among its values, that
// was its only copy, and its container slot is free for the next container.
void PickleMachine::recycleList(std::span<const Value> pairs) {
    for (size_t i = 1; i < pairs.size(); i += 2)
        if (pairs[i].bits == trackList_) {
            freeContainers_.push_back(static_cast<uint32_t>(Value{trackList_}.payload()));
            break;
        }
    trackList_ = kUntracked;
}

static bool eventIndex(const PickleMachine& m, Value v, uint32_t& out) {
    const Container c = m.peek(v);
    out = c.payload;
    return c.kind == Kind::Event;
}

// An empty list receiving consecutive events becomes an Events run; an Events run receiving the
// next events grows. Otherwise an Events run turns into a plain list of its events (and false is
// returned: the caller appends `items`). Charged as the plain list's storage would be.
bool PickleMachine::extendEventRun(uint32_t container, std::span<const Value> items) {
    Container& c = containers_[container];
    uint32_t next = 0;
    if (c.kind == Kind::Events) {
        next = runs_[c.payload].first + runs_[c.payload].second;
    } else if (items.empty() || !eventIndex(*this, items[0], next)) {
        return false;
    }
    bool consecutive = true;
    for (size_t i = 0; i < items.size() && consecutive; ++i) {
        uint32_t e;
        consecutive = eventIndex(*this, items[i], e) && e == next + i && e != UINT32_MAX;
    }
    if (consecutive && c.kind == Kind::Events) {
        charge(items.size() * sizeof(Value));
        runs_[c.payload].second += static_cast<uint32_t>(items.size());
        return true;
    }
    if (consecutive) {
        if (runs_.size() >= kNoStorage) fail("too many containers");
        charge(kVectorOverhead + items.size() * sizeof(Value));
        runs_.push_back({next, static_cast<uint32_t>(items.size())});
        containers_[container] = {Kind::Events, static_cast<uint32_t>(runs_.size() - 1)};
        return true;
    }
    if (c.kind != Kind::Events) return false;
    // Already charged as a list: make the list the run stands for.
    const auto [first, count] = runs_[c.payload];
    if (storage_.size() >= kNoStorage) fail("too many containers");
    auto& s = storage_.emplace_back();
    s.reserve(count);
    for (uint32_t i = 0; i < count; ++i) s.push_back(Value::make(Tag::Event, first + i));
    containers_[container] = {Kind::List, static_cast<uint32_t>(storage_.size() - 1)};
    return false;
}

std::span<const Value> PickleMachine::items(const Container& c) const {
    if (c.kind > Kind::Tuple || c.payload == kNoStorage) return {};
    return storage_[c.payload];
}

std::string_view PickleMachine::longStr(Value v) const {
    if (v.tag() == Tag::LongStr) {
        auto [off, len] = longStrs_[v.payload()];
        return {reinterpret_cast<const char*>(in_.data() + off), static_cast<size_t>(len)};
    }
    return {};
}

bool PickleMachine::toIntSlow(Value v, int64_t& out) const {
    switch (v.tag()) {
    case Tag::Int:
        out = v.smallInt();
        return true;
    case Tag::BigInt:
        out = bigInts_[v.payload()];
        return true;
    case Tag::Bool:
        out = static_cast<int64_t>(v.payload());
        return true;
    default:
        return false;
    }
}

bool PickleMachine::toDouble(Value v, double& out) const {
    if (v.tag() == Tag::Float) return out = floats_[v.payload()], true;
    int64_t i;
    if (!toInt(v, i)) return false;
    out = static_cast<double>(i);
    return true;
}

void PickleMachine::fillDict(Value dict, std::span<const Value> pairs, size_t at) {
    if (pairs.size() % 2) fail("odd number of items for a dict");
    if (dict.tag() == Tag::Event)
        fail("SETITEM(S) on something that is not a dict (or a dict changed after use)");
    if (dict.tag() != Tag::Container) fail("SETITEM(S) on something that is not a dict");
    const uint32_t idx = static_cast<uint32_t>(dict.payload());
    Container& c = containers_[idx];
    if (c.kind != Kind::Dict)
        fail("SETITEM(S) on something that is not a dict (or a dict changed after use)");
    if (c.payload == kNoStorage) {
        const bool tracked = dict.bits == trackBits_;
        if (tracked) trackBits_ = kUntracked;
        if (hooks_.dictFilled(*this, idx, pairs)) {
            if (trackList_ != kUntracked && containers_[idx].kind == Kind::Event) recycleList(pairs);
            if (tracked && containers_[idx].kind == Kind::Event)
                trackBits_ = dict.bits, recycleEvent(idx, at);
            return;
        }
        const uint32_t storage = newStorage(pairs);
        containers_[idx].payload = storage;
        return;
    }
    charge(pairs.size() * sizeof(Value));
    auto& s = storage_[c.payload];
    s.insert(s.end(), pairs.begin(), pairs.end());
}

void PickleMachine::extendList(Value list, std::span<const Value> items) {
    if (list.tag() != Tag::Container) fail("APPEND(S) on something that is not a list");
    const uint32_t idx = static_cast<uint32_t>(list.payload());
    Container& c = containers_[idx];
    if (c.kind == Kind::Stack || (c.kind == Kind::List && c.payload == kNoStorage)) {
        if (hooks_.listExtended(*this, idx, items)) return;
        if (c.kind == Kind::Stack) fail("a list of frames was extended with something that is not a frame");
    }
    if (c.kind == Kind::Events && extendEventRun(idx, items)) return;
    if (c.kind != Kind::List) fail("APPEND(S) on something that is not a list");
    if (c.payload == kNoStorage) {
        if (extendEventRun(idx, items)) return;
        const uint32_t at = newStorage(items);
        containers_[idx].payload = at;
        return;
    }
    charge(items.size() * sizeof(Value));
    auto& s = storage_[c.payload];
    s.insert(s.end(), items.begin(), items.end());
}

Value PickleMachine::readLong(uint64_t n) {
    need(n);
    const uint8_t* p = in_.data() + pos_;
    pos_ += n;
    if (n == 0) return Value::smallIntValue(0);
    const bool negative = p[n - 1] & 0x80;
    bool wide = false;
    if (n > 8) {
        // Wider than 64 bits: keep the low 64 bits only if the rest is pure sign extension.
        for (uint64_t i = 8; i < n; ++i) wide |= p[i] != (negative ? 0xff : 0x00);
        overflowed_ |= wide;
        n = 8;
    }
    uint64_t u = negative ? ~uint64_t{0} : 0;
    std::memcpy(&u, p, n); // little-endian: the low n bytes, sign-filled above
    if (n < 8 && negative) u |= ~uint64_t{0} << (8 * n);
    const auto v = static_cast<int64_t>(u);
    if (Value::fitsSmall(v) && !wide) return Value::smallIntValue(v);
    charge(sizeof v);
    bigInts_.push_back(v);
    bigAbove63_.push_back(!negative && (v < 0 || wide));
    bigWide_.push_back(wide);
    return Value::make(Tag::BigInt, bigInts_.size() - 1);
}

Value PickleMachine::pushString(uint64_t len) {
    need(len);
    const uint64_t off = pos_;
    pos_ += len;
    if (Value::fitsStr(off, len)) return Value::str(off, len);
    charge(sizeof(longStrs_[0]));
    longStrs_.emplace_back(off, len);
    return Value::make(Tag::LongStr, longStrs_.size() - 1);
}

void PickleMachine::memoPut(uint64_t index) {
    if (stack_.empty()) fail("memo store with an empty stack");
    if (stack_.back().bits == trackList_ && memo_.slot(index)) trackList_ = kUntracked;
    if (stack_.back().bits == trackBits_ && memo_.slot(index)) { // a copy that a GET may read back
        if (trackMemo_ == UINT64_MAX)
            trackMemo_ = index;
        else
            trackBits_ = kUntracked;
    }
    if (!memo_.put(index, stack_.back())) fail("memo index " + std::to_string(index) + " is out of range");
}

void PickleMachine::memoMissing(uint64_t index) const {
    fail("memo index " + std::to_string(index) + " was never stored");
}

void PickleMachine::refuse(uint8_t op) const {
    const char* name = opcodeName(op);
    if (isCodeExecutingOpcode(op))
        fail(std::string("refusing opcode ") + name +
             ": it would import or call Python code, which a PyTorch memory snapshot never contains");
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", op);
    fail(std::string("unsupported pickle opcode ") + hex + " (" + name + ") for a PyTorch memory snapshot");
}

void PickleMachine::releaseWorkingMemory() {
    stack_ = {}, marks_ = {}, memo_ = {};
}

// Computed gotos (&&label) are a GNU extension, in GCC and Clang.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
Value PickleMachine::run(const Progress& progress, const std::function<void(uint64_t)>& consumed) {
    // The hot loop keeps the read position in a local pointer and syncs pos_ only before anything
    // that may report an error or call a hook, so the compiler can keep it in a register. Each
    // opcode's code ends in its own jump to the next one's (a computed goto): the branch predictor
    // then learns which opcode follows which, as the regular shape of trace entries makes likely.
    const uint8_t* const base = in_.data();
    const uint8_t* const end = base + in_.size();
    const uint8_t* p = base + pos_;
    // The loop stops every MiB to hand `consumed` the position (a mapped file's pages behind it are
    // released: at most ~2 MiB of the file stay resident), and reports progress every progress.every.
    constexpr uint64_t kConsumedEvery = 1 << 20;
    uint64_t reportAt = pos_ + progress.every;
    const uint8_t* nextStop =
        base + std::min<uint64_t>(in_.size(), pos_ + std::min(progress.every, kConsumedEvery));
    const uint8_t* limit = std::min(nextStop, end); // below it: nothing due and a byte to read
    if (!memoScanned_) {                            // the whole input in one window
        PickleMemo::Scan scan(meter_, in_.size());
        scan.feed(in_, 0);
        setMemo(scan.finish());
    }
    containers_.reserve(in_.size() / 48);
    containerCapacity_ = std::max<uint64_t>(containerCapacity_, containers_.capacity());
    adviseHugePages(containers_);
    const void* table[256];
    for (auto& t : table) t = &&other;
    table[op::BINGET] = &&binget;
    table[op::LONG_BINGET] = &&long_binget;
    table[op::MEMOIZE] = &&memoize;
    table[op::BININT1] = &&binint1;
    table[op::BININT2] = &&binint2;
    table[op::BININT] = &&binint;
    table[op::LONG1] = &&long1;
    table[op::SHORT_BINUNICODE] = &&short_binunicode;
    table[op::MARK] = &&mark;
    table[op::EMPTY_DICT] = &&empty_dict;
    table[op::EMPTY_LIST] = &&empty_list;
    table[op::SETITEMS] = &&setitems;
    table[op::APPENDS] = &&appends;
    // The stack's base, top and capacity end in registers: stored back (or reloaded) around whatever
    // else reads or changes them.
    Value *sbase, *sp, *slimit;
#define VS_STACK_LOAD()                                                                                      \
    (sbase = stack_.data(), sp = sbase + stack_.size(), slimit = sbase + stack_.capacity())
#define VS_STACK_STORE() stack_.setSize(static_cast<size_t>(sp - sbase))
#define VS_PUSH(value)                                                                                       \
    do {                                                                                                     \
        const Value pushed_ = (value);                                                                       \
        if (sp == slimit) [[unlikely]] {                                                                     \
            VS_STACK_STORE();                                                                                \
            stack_.push_back(pushed_);                                                                       \
            VS_STACK_LOAD();                                                                                 \
        } else {                                                                                             \
            *sp++ = pushed_;                                                                                 \
        }                                                                                                    \
    } while (0)
    VS_STACK_LOAD();
#define VS_NEED(n)                                                                                           \
    do {                                                                                                     \
        if (static_cast<uint64_t>(end - p) < static_cast<uint64_t>(n)) pos_ = p - base, need(n);             \
    } while (0)
#define VS_SYNC() (pos_ = static_cast<uint64_t>(p - base))
#define VS_NEXT()                                                                                            \
    do {                                                                                                     \
        if (p >= limit) [[unlikely]]                                                                         \
            goto top;                                                                                        \
        __builtin_prefetch(p + 512); /* the input streams in ahead of the parse */                           \
        goto* table[*p++];                                                                                   \
    } while (0)
top:
    if (p >= nextStop) {
        VS_SYNC();
        VS_STACK_STORE();
        if (pos_ >= reportAt || p >= end) {
            reportAt = pos_ + progress.every;
            constexpr double share = PickleMemo::kScanShare; // the scan's, reported before
            const auto done = uint64_t(double(in_.size()) * share + double(pos_) * (1 - share));
            if (progress.report && !progress.report(done, in_.size())) throw Cancelled();
            chargeWorkingMemory();
        }
        if (consumed) consumed(pos_);
        nextStop = base + std::min<uint64_t>(in_.size(), std::min(reportAt, pos_ + kConsumedEvery));
        if (p >= end) nextStop = end + 1;
        limit = std::min(nextStop, end);
    }
    VS_NEED(1);
    goto* table[*p++];
binget : {
    VS_NEED(1);
    const uint8_t i = *p++;
    Value v;
    if (!memo_.get(i, v)) VS_SYNC(), memoMissing(i);
    if (v.bits == trackBits_) trackBits_ = kUntracked; // a copy: no longer tracked
    if (v.bits == trackList_) trackList_ = kUntracked;
    VS_PUSH(v);
    VS_NEXT();
}
long_binget : {
    VS_NEED(4);
    const uint32_t i = readLE<uint32_t>(p);
    p += 4;
    Value v;
    if (!memo_.get(i, v)) VS_SYNC(), memoMissing(i);
    if (v.bits == trackBits_) trackBits_ = kUntracked; // a copy: no longer tracked
    if (v.bits == trackList_) trackList_ = kUntracked;
    VS_PUSH(v);
    VS_NEXT();
}
memoize : {
    if (sp == sbase) VS_SYNC(), fail("memo store with an empty stack");
    const Value top = sp[-1];
    if (top.bits == trackList_ && memo_.slot(memo_.size())) trackList_ = kUntracked;
    if (top.bits == trackBits_ && memo_.slot(memo_.size())) { // a copy that a GET may read back
        if (trackMemo_ == UINT64_MAX)
            trackMemo_ = memo_.size();
        else
            trackBits_ = kUntracked;
    }
    memo_.push(top);
    VS_NEXT();
}
binint1:
    VS_NEED(1);
    VS_PUSH(Value::smallIntValue(*p++));
    VS_NEXT();
binint2:
    VS_NEED(2);
    VS_PUSH(Value::smallIntValue(readLE<uint16_t>(p)));
    p += 2;
    VS_NEXT();
binint:
    VS_NEED(4);
    VS_PUSH(Value::smallIntValue(readLE<int32_t>(p)));
    p += 4;
    VS_NEXT();
long1 : {
    VS_NEED(1);
    const uint8_t n = *p;
    if (n >= 1 && n <= 7 && end - p >= 9) { // fast path: one 8-byte load, the top bytes dropped
        const unsigned drop = 64 - 8 * n;
        const auto v = static_cast<int64_t>(readLE<uint64_t>(p + 1) << drop) >> drop; // sign-extended
        if (Value::fitsSmall(v)) {
            VS_PUSH(Value::smallIntValue(v));
            p += n + 1;
            VS_NEXT();
        }
    }
    if (n >= 1 && n <= 7 && end - p > n) { // fast path near the end: fits in 56 bits
        uint64_t u = 0;
        std::memcpy(&u, p + 1, n);
        if (p[n] & 0x80) u |= ~uint64_t{0} << (8 * n);
        const auto v = static_cast<int64_t>(u);
        if (Value::fitsSmall(v)) {
            VS_PUSH(Value::smallIntValue(v));
            p += n + 1;
            VS_NEXT();
        }
    }
    ++p;
    VS_SYNC();
    VS_PUSH(readLong(n)); // readLong touches neither the stack nor the memo
    p = base + pos_;
    VS_NEXT();
}
short_binunicode : {
    VS_NEED(1);
    const uint8_t n = *p++;
    VS_NEED(n);
    VS_PUSH(Value::str(static_cast<uint64_t>(p - base), n)); // offsets < 2^40 checked below
    if (static_cast<uint64_t>(p - base) >= (1ull << 40)) VS_SYNC(), sp[-1] = pushString(n);
    p += n;
    VS_NEXT();
}
mark:
    marks_.push_back(static_cast<size_t>(sp - sbase));
    VS_NEXT();
empty_dict : {
    const Value d = newContainer(Kind::Dict);
    VS_PUSH(d);
    trackBits_ = d.bits, trackMemo_ = UINT64_MAX;
    VS_NEXT();
}
empty_list : {
    const Value l = newContainer(Kind::List);
    VS_PUSH(l);
    trackList_ = l.bits;
    VS_NEXT();
}
setitems : {
    VS_SYNC();
    VS_STACK_STORE();
    const size_t m = popMark();
    if (m == 0) fail("SETITEMS without a dict");
    fillDict(stack_[m - 1], std::span<const Value>(stack_.data() + m, stack_.size() - m), m - 1);
    stack_.resize(m);
    VS_STACK_LOAD();
    VS_NEXT();
}
appends : {
    VS_SYNC();
    VS_STACK_STORE();
    const size_t m = popMark();
    if (m == 0) fail("APPENDS without a list");
    extendList(stack_[m - 1], std::span<const Value>(stack_.data() + m, stack_.size() - m));
    stack_.resize(m);
    VS_STACK_LOAD();
    VS_NEXT();
}
other:
    VS_SYNC();
    VS_STACK_STORE();
    step(p[-1]); // the opcode byte just read
    VS_STACK_LOAD();
    p = base + pos_;
    if (done_) return stack_.back();
    VS_NEXT();
#undef VS_PUSH
#undef VS_STACK_STORE
#undef VS_STACK_LOAD
#undef VS_NEXT
#undef VS_NEED
#undef VS_SYNC
}
#pragma GCC diagnostic pop

// The rarer opcodes, out of the hot loop. pos_ is just past the opcode byte.
void PickleMachine::step(uint8_t op) {
    const uint8_t* d = in_.data();
    const uint64_t opPos = pos_ - 1;
    switch (op) {
    case op::PROTO: {
        need(1);
        const uint8_t v = d[pos_++];
        if (v < 2 || v > 5) {
            pos_ = opPos;
            fail("unsupported pickle protocol " + std::to_string(v) + " (PyTorch snapshots use 2 to 5)");
        }
        break;
    }
    case op::FRAME:
        need(8);
        pos_ += 8;
        break;
    case op::STOP:
        if (stack_.empty()) fail("STOP with an empty stack");
        done_ = true;
        break;
    case op::EMPTY_TUPLE:
        stack_.push_back(newContainer(Kind::Tuple));
        break;
    case op::DICT:
    case op::LIST:
    case op::TUPLE: {
        const size_t m = popMark();
        const Kind k = op == op::DICT ? Kind::Dict : op == op::LIST ? Kind::List : Kind::Tuple;
        Value c = newContainer(k);
        std::span<const Value> its(stack_.data() + m, stack_.size() - m);
        if (k == Kind::Dict)
            fillDict(c, its, kNoSlot);
        else if (k == Kind::List)
            extendList(c, its);
        else if (!its.empty()) {
            const uint32_t at = newStorage(its);
            containers_[c.payload()].payload = at;
        }
        stack_.resize(m);
        stack_.push_back(c);
        break;
    }
    case op::TUPLE1:
    case op::TUPLE2:
    case op::TUPLE3: {
        const size_t n = op - op::TUPLE1 + 1;
        if (stack_.size() < n || (!marks_.empty() && stack_.size() - marks_.back() < n))
            fail("stack underflow");
        Value c = newContainer(Kind::Tuple);
        const uint32_t at = newStorage({stack_.end() - static_cast<long>(n), stack_.end()});
        containers_[c.payload()].payload = at;
        stack_.resize(stack_.size() - n);
        stack_.push_back(c);
        break;
    }
    case op::SETITEM: {
        Value v = pop(), k = pop();
        if (stack_.empty()) fail("SETITEM without a dict");
        const Value pair[2] = {k, v};
        fillDict(stack_.back(), pair, stack_.size() - 1);
        break;
    }
    case op::APPEND: {
        Value v = pop();
        if (stack_.empty()) fail("APPEND without a list");
        extendList(stack_.back(), {&v, 1});
        break;
    }
    case op::LONG4: {
        need(4);
        const int32_t n = readLE<int32_t>(d + pos_);
        pos_ += 4;
        if (n < 0) fail("negative LONG4 length");
        stack_.push_back(readLong(static_cast<uint64_t>(n)));
        break;
    }
    case op::BINFLOAT: {
        need(8);
        uint64_t u = readLE<uint64_t>(d + pos_);
        pos_ += 8;
        u = __builtin_bswap64(u); // pickle stores doubles big-endian
        double x;
        std::memcpy(&x, &u, 8);
        charge(sizeof x);
        floats_.push_back(x);
        stack_.push_back(Value::make(Tag::Float, floats_.size() - 1));
        break;
    }
    case op::NEWTRUE:
        stack_.push_back(Value::make(Tag::Bool, 1));
        break;
    case op::NEWFALSE:
        stack_.push_back(Value::make(Tag::Bool, 0));
        break;
    case op::NONE:
        stack_.push_back(Value::make(Tag::None, 0));
        break;
    case op::BINUNICODE: {
        need(4);
        const uint32_t n = readLE<uint32_t>(d + pos_);
        pos_ += 4;
        stack_.push_back(pushString(n));
        break;
    }
    case op::BINUNICODE8: {
        need(8);
        const uint64_t n = readLE<uint64_t>(d + pos_);
        pos_ += 8;
        stack_.push_back(pushString(n));
        break;
    }
    case op::BINPUT:
        need(1);
        memoPut(d[pos_++]);
        break;
    case op::LONG_BINPUT:
        need(4);
        memoPut(readLE<uint32_t>(d + pos_));
        pos_ += 4;
        break;
    default:
        pos_ = opPos;
        refuse(op);
    }
}

} // namespace vs::pickle
