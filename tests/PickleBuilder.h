#pragma once
// Writes pickle bytes by hand, opcode by opcode, so tests can make exactly the inputs they need:
// snapshots in the shapes Python's pickler and PyTorch's C++ pickler emit, and hostile ones.
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace vs::test {

class PickleBuilder {
  public:
    std::vector<uint8_t> bytes;

    PickleBuilder& op(uint8_t o) { return bytes.push_back(o), *this; }
    PickleBuilder& proto(uint8_t v) { return op(0x80).op(v); }
    PickleBuilder& u32(uint32_t v) { return raw(&v, 4); }
    PickleBuilder& raw(const void* p, size_t n) {
        bytes.insert(bytes.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
        return *this;
    }
    PickleBuilder& str(const std::string& s) { // SHORT_BINUNICODE + MEMOIZE, as protocol 4 writes it
        if (s.size() < 256)
            op(0x8c).op(static_cast<uint8_t>(s.size()));
        else
            op('X').u32(static_cast<uint32_t>(s.size()));
        return raw(s.data(), s.size()).memoize();
    }
    PickleBuilder& integer(int64_t v) {
        if (v >= 0 && v < 256) return op('K').op(static_cast<uint8_t>(v));
        if (v >= INT32_MIN && v <= INT32_MAX) {
            const auto i = static_cast<int32_t>(v);
            return op('J').raw(&i, 4);
        }
        return op(0x8a).op(8).raw(&v, 8); // LONG1, 8 bytes (what the C++ pickler writes)
    }
    PickleBuilder& emptyDict() { return op('}').memoize(); }
    PickleBuilder& emptyList() { return op(']').memoize(); }
    PickleBuilder& mark() { return op('('); }
    PickleBuilder& setitems() { return op('u'); }
    PickleBuilder& appends() { return op('e'); }
    PickleBuilder& get(uint32_t i) { return i < 256 ? op('h').op(static_cast<uint8_t>(i)) : op('j').u32(i); }
    // A string written once and read back from the memo after, as Python's pickler shares repeated
    // keys: keeps large generated inputs small.
    PickleBuilder& key(const std::string& s) {
        const auto it = keys_.find(s);
        if (it != keys_.end()) return get(it->second);
        keys_[s] = memos_;
        return str(s);
    }
    PickleBuilder& stop() { return op('.'); }
    uint32_t memoCount() const { return memos_; } // the slot the next memoized value takes

  private:
    PickleBuilder& memoize() { return ++memos_, op(0x94); } // MEMOIZE: the next memo slot
    uint32_t memos_ = 0;
    std::map<std::string, uint32_t> keys_;
};

} // namespace vs::test
