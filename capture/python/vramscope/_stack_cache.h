#pragma once
// Raw Python stacks (each frame a code object's address and an instruction offset, as PyTorch's
// CapturedTraceback holds them) -> the file's stack ids: the tracker's drain() symbolizes each
// distinct raw stack once (symbolizing takes the GIL). The code objects of a cached stack must stay
// alive (the caller keeps a reference to each) so that no other code can take their addresses.
// Standard library only (tests/tst_vscap_codec checks it without torch); not thread-safe: the
// tracker guards it with its interner's mutex.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace vramscope_tracker {

struct RawFrame {
    const void* code;
    int lasti;
    bool operator==(const RawFrame& o) const { return code == o.code && lasti == o.lasti; }
};

class StackCache {
  public:
    static constexpr uint64_t missing = UINT64_MAX; // find()'s answer for frames never added

    // The key of these frames for find() and add(), computed before taking the cache's lock.
    // `at(i)` gives frame i of n. It is computed at every allocator event on the program's thread
    // (_own_stacks.h), so it is a multiply-add and a rotation (which carries high bits down) per
    // frame in two independent lanes (even and odd frames: the lanes' multiplies overlap) and only the
    // result gets the full finalizer. bench_stack_cache, 30 frames: 23 ns; one lane of two
    // multiplies and a shift per frame (until 2026-12-03): 59 ns; a finalizer per field: 184 ns.
    // Equal keys are always confirmed frame by frame, so the hash only spreads the buckets.
    template <class At> static uint64_t hash(size_t n, At at) {
        uint64_t even = 0x9e3779b97f4a7c15ull ^ n, odd = 0xc2b2ae3d27d4eb4full;
        size_t i = 0;
        for (; i + 1 < n; i += 2) {
            even = std::rotl((even + fold(at(i))) * 0x9e3779b97f4a7c15ull, 29);
            odd = std::rotl((odd + fold(at(i + 1))) * 0xd6e8feb86659fd93ull, 29);
        }
        if (i < n) even = std::rotl((even + fold(at(i))) * 0x9e3779b97f4a7c15ull, 29);
        return mix(even ^ (odd >> 32 | odd << 32));
    }
    // The id these frames were added with, or `missing`.
    template <class At> uint64_t find(uint64_t key, size_t n, At at) const {
        const auto it = byHash_.find(key);
        if (it == byHash_.end()) return missing;
        for (const Entry& e : it->second)
            if (same(e.frames, n, at)) return e.id;
        return missing;
    }
    // Remembers the frames' id; false (and nothing changes) when they were there already.
    template <class At> bool add(uint64_t key, size_t n, At at, uint64_t id) {
        auto& bucket = byHash_[key];
        for (const Entry& e : bucket)
            if (same(e.frames, n, at)) return false;
        Entry e{{}, id};
        e.frames.reserve(n);
        for (size_t i = 0; i < n; ++i) e.frames.push_back(at(i));
        bucket.push_back(std::move(e));
        ++size_;
        return true;
    }
    size_t size() const { return size_; }
    void clear() { byHash_.clear(), size_ = 0; }

  private:
    // A frame as one word: the code object's address (below 2^47 in user space) above the offset;
    // distinct frames that fold alike only share a bucket.
    static uint64_t fold(RawFrame f) {
        return (reinterpret_cast<uintptr_t>(f.code) << 16) ^ static_cast<uint32_t>(f.lasti);
    }
    struct Entry {
        std::vector<RawFrame> frames;
        uint64_t id;
    };
    static uint64_t mix(uint64_t x) { // splitmix64's finalizer
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        return x ^ (x >> 31);
    }
    template <class At> static bool same(const std::vector<RawFrame>& frames, size_t n, At at) {
        if (frames.size() != n) return false;
        for (size_t i = 0; i < n; ++i)
            if (!(frames[i] == at(i))) return false;
        return true;
    }
    std::unordered_map<uint64_t, std::vector<Entry>> byHash_;
    size_t size_ = 0;
};

} // namespace vramscope_tracker
