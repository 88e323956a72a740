#include "PickleMemo.h"

#include "PickleOpcodes.h"

#include <algorithm>
#include <cstring>

namespace vs::pickle {
void PickleMemo::Scan::mark(uint64_t i, uint64_t offset) {
    if (i >= size_) return; // the real pass fails there: never stored
    auto& marks = memo_.marks_;
    const uint64_t w = i >> 6;
    if (w >= marks.size()) {
        const uint64_t grow = std::max<uint64_t>(w + 1, marks.size() * 2) - marks.size();
        meter_.charge(grow * 16, offset); // the marks and their rank directory
        marks.resize(marks.size() + grow);
    }
    marks[w] |= uint64_t{1} << (i & 63);
}

// Computed gotos (&&label) are a GNU extension, in GCC and Clang: as in the real pass (see
// PickleMachine::run), each opcode's code jumps to the next one's, which the branch predictor learns.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
uint64_t PickleMemo::Scan::feed(std::span<const uint8_t> window, uint64_t offset) {
    if (finished_) return 0;
    const uint8_t* const base = window.data();
    const uint8_t* const end = base + window.size();
    const bool last = offset + window.size() >= total_;
    const uint8_t* p = base;
    const uint8_t* at = base; // the current opcode
    uint64_t skip = 0;        // string bytes past the window
    // The slot count and the marks in registers, stored back (or reloaded) around a growth of the marks.
    uint64_t size = size_;
    uint64_t* words = memo_.marks_.data();
    uint64_t nwords = memo_.marks_.size();
    const auto markSlot = [&](uint64_t i) {
        if (i < size && (i >> 6) < nwords) [[likely]] {
            words[i >> 6] |= uint64_t{1} << (i & 63);
            return;
        }
        size_ = size;
        mark(i, offset + uint64_t(at - base));
        words = memo_.marks_.data(), nwords = memo_.marks_.size();
    };
    const void* table[256];
    for (auto& t : table) t = &&stop; // STOP, or an opcode the real pass refuses
    for (uint8_t o : {op::MARK, op::EMPTY_TUPLE, op::DICT, op::LIST, op::TUPLE, op::TUPLE1, op::TUPLE2,
                      op::TUPLE3, op::SETITEM, op::SETITEMS, op::APPEND, op::APPENDS, op::NEWTRUE,
                      op::NEWFALSE, op::NONE, op::EMPTY_DICT, op::EMPTY_LIST})
        table[o] = &&arg0;
    table[op::PROTO] = table[op::BININT1] = &&arg1;
    table[op::BININT2] = &&arg2;
    table[op::BININT] = &&arg4;
    table[op::FRAME] = table[op::BINFLOAT] = &&arg8;
    table[op::MEMOIZE] = &&memoize;
    table[op::BINGET] = &&binget;
    table[op::LONG_BINGET] = &&long_binget;
    table[op::BINPUT] = &&binput;
    table[op::LONG_BINPUT] = &&long_binput;
    table[op::LONG1] = table[op::SHORT_BINUNICODE] = &&len1;
    table[op::BINUNICODE] = &&len4;
    table[op::LONG4] = &&long4;
    table[op::BINUNICODE8] = &&len8;
#define VS_NEED(n)                                                                                           \
    do {                                                                                                     \
        if (static_cast<uint64_t>(end - p) < static_cast<uint64_t>(n)) goto short_window;                    \
    } while (0)
#define VS_NEXT()                                                                                            \
    do {                                                                                                     \
        if (p >= end) goto out;                                                                              \
        __builtin_prefetch(p + 512);                                                                         \
        at = p;                                                                                              \
        goto* table[*p++];                                                                                   \
    } while (0)
#define VS_SKIP(n)                                                                                           \
    do {                                                                                                     \
        VS_NEED(n);                                                                                          \
        p += (n);                                                                                            \
        VS_NEXT();                                                                                           \
    } while (0)
    VS_NEXT();
arg0:
    VS_NEXT();
arg1:
    VS_SKIP(1);
arg2:
    VS_SKIP(2);
arg4:
    VS_SKIP(4);
arg8:
    VS_SKIP(8);
memoize:
    ++size;
    VS_NEXT();
binget:
    VS_NEED(1);
    markSlot(*p++);
    VS_NEXT();
long_binget:
    VS_NEED(4);
    markSlot(readLE<uint32_t>(p));
    p += 4;
    VS_NEXT();
binput:
    VS_NEED(1);
    size = std::max<uint64_t>(size, *p++ + 1ull);
    VS_NEXT();
long_binput : {
    VS_NEED(4);
    const uint64_t i = readLE<uint32_t>(p);
    p += 4;
    if (i > size + kSlack) goto stop; // the real pass fails there
    size = std::max(size, i + 1);
    VS_NEXT();
}
len1:
    VS_NEED(1);
    VS_NEED(1 + uint64_t(*p));
    p += 1 + uint64_t(*p);
    VS_NEXT();
len4:
    VS_NEED(4);
    skip = readLE<uint32_t>(p), p += 4;
    goto string;
long4:
    VS_NEED(4);
    if (readLE<int32_t>(p) < 0) goto stop;
    skip = readLE<uint32_t>(p), p += 4;
    goto string;
len8:
    VS_NEED(8);
    skip = readLE<uint64_t>(p), p += 8;
    goto string;
string:
    if (skip <= uint64_t(end - p)) {
        p += skip, skip = 0;
        VS_NEXT();
    }
    skip -= uint64_t(end - p);
    if (skip > total_ - offset - window.size()) goto stop; // past the input's end
    p = end;
    goto out;
short_window: // the opcode at `at` continues in the next window, or the input is cut there
    if (last) goto stop;
    p = at;
    goto out;
stop:
    finished_ = true;
    size_ = size;
    return 0;
out:
    size_ = size;
    return uint64_t(p - base) + skip;
#undef VS_SKIP
#undef VS_NEXT
#undef VS_NEED
}
#pragma GCC diagnostic pop

PickleMemo PickleMemo::Scan::finish() {
    finished_ = true;
    auto& m = memo_;
    m.before_.resize(m.marks_.size());
    uint64_t marked = 0;
    for (size_t w = 0; w < m.marks_.size(); ++w) m.before_[w] = marked, marked += ones(m.marks_[w]);
    meter_.charge(marked * sizeof(Value), total_);
    m.values_.assign(marked, Value{kUnset});
    return std::move(m);
}

} // namespace vs::pickle
