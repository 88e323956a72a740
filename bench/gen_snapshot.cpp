// Writes a synthetic PyTorch memory snapshot of any size, in the shape real ones have: protocol 4,
// memoised key strings, frame dicts and frame lists shared through the memo, alloc /
// free_requested / free_completed in a training-loop rhythm over small- and large-pool segments,
// a slow leak (one 4 KiB block kept per iteration) and an empty_cache now and then. Its history is
// consistent by construction (bump allocation from free segments, LIFO frees), so a correct replay
// reproduces its final block list exactly.
//   gen_snapshot OUT.pickle ENTRIES [SEED] [DEVICES]   (ENTRIES per device)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr uint64_t kMiB = 1 << 20;
constexpr uint64_t kSmallBase = 0x7f0000000000, kLargeBase = 0x7f1000000000, kLeakBase = 0x7f2000000000;

class Writer {
  public:
    explicit Writer(FILE* f) : f_(f) {}
    ~Writer() { flush(); }
    void op(uint8_t o) {
        buf_.push_back(o);
        if (buf_.size() > (1 << 20)) flush();
    }
    void put(const void* p, size_t n) {
        for (size_t i = 0; i < n; ++i) op(static_cast<const uint8_t*>(p)[i]);
    }
    uint32_t memoize() { return op(0x94), memo_++; }
    void str(const std::string& s) {
        op(0x8c), op(static_cast<uint8_t>(s.size())), put(s.data(), s.size());
        memoize();
    }
    // A string that is one Python object reused everywhere (interned keys, shared names).
    void shared(uint32_t& slot, const std::string& s) {
        if (slot != UINT32_MAX) return get(slot);
        op(0x8c), op(static_cast<uint8_t>(s.size())), put(s.data(), s.size());
        slot = memoize();
    }
    void get(uint32_t i) {
        if (i < 256)
            op('h'), op(static_cast<uint8_t>(i));
        else
            op('j'), put(&i, 4);
    }
    void integer(int64_t v) {
        if (v >= 0 && v < 256) return op('K'), op(static_cast<uint8_t>(v));
        if (v >= 0 && v < 65536) return op('M'), op(uint8_t(v)), op(uint8_t(v >> 8));
        if (v >= INT32_MIN && v <= INT32_MAX) {
            const auto i = static_cast<int32_t>(v);
            return op('J'), put(&i, 4);
        }
        uint8_t n = 8; // minimal two's complement length, as CPython writes LONG1
        while (n > 1 && (v >> (8 * (n - 1) - 1)) == 0) --n;
        op(0x8a), op(n), put(&v, n);
    }
    void flush() {
        if (!buf_.empty()) std::fwrite(buf_.data(), 1, buf_.size(), f_);
        buf_.clear();
    }

  private:
    FILE* f_;
    std::vector<uint8_t> buf_;
    uint32_t memo_ = 0;
};

enum Key {
    Action,
    Addr,
    Size,
    Stream,
    Time,
    Frames,
    Cc,
    Um,
    Name,
    Filename,
    Line,
    Device,
    Address,
    TotalSize,
    SegType,
    Blocks,
    State,
    Requested,
    KeyCount
};
const char* kKeyText[] = {
    "action",          "addr",          "size",         "stream",   "time_us", "frames",
    "compile_context", "user_metadata", "name",         "filename", "line",    "device",
    "address",         "total_size",    "segment_type", "blocks",   "state",   "requested_size"};

class Generator {
  public:
    Generator(Writer& w, uint64_t seed, int device) : w_(w), rng_(seed), device_(device) {
        keys_.assign(KeyCount, UINT32_MAX);
        names_.assign(kFrames, UINT32_MAX), files_.assign(kFrames, UINT32_MAX),
            frameMemo_.assign(kFrames, UINT32_MAX);
        stackMemo_.assign(kStacks, UINT32_MAX);
        actions_.assign(6, UINT32_MAX);
        for (int s = 0; s < kStacks; ++s)
            for (int d = 0, depth = 3 + int(rng_() % 4); d < depth; ++d)
                stacks_[s].push_back(int(rng_() % kFrames));
        for (int i = 0; i < 36; ++i)
            pattern_.push_back(i % 3 == 2 ? kMiB + 1 + rng_() % (18 * kMiB) : 1 + rng_() % kMiB);
    }

    void run(uint64_t target) {
        while (emitted_ < target) iteration();
    }
    uint64_t emitted() const { return emitted_; }
    void writeFinalSegments();

  private:
    static constexpr int kFrames = 60, kStacks = 200;

    void key(Key k) { w_.shared(keys_[k], kKeyText[k]); }
    void event(int action, uint64_t addr, uint64_t size, int stack);
    void stack(int s);
    void iteration();
    uint64_t smallSegment(size_t i);

    Writer& w_;
    std::mt19937_64 rng_;
    std::vector<uint32_t> keys_, names_, files_, frameMemo_, stackMemo_, actions_;
    std::vector<int> stacks_[kStacks];
    std::vector<uint64_t> pattern_;
    std::vector<bool> smallLive_, largeLive_;
    uint64_t leakCount_ = 0, leakSegments_ = 0, emitted_ = 0, iterations_ = 0;
    int64_t time_ = 1790000000000000;
    int device_ = 0;
};

const char* kActions[] = {"alloc",         "free_requested", "free_completed",
                          "segment_alloc", "segment_free",   "snapshot"};

void Generator::stack(int s) {
    if (stackMemo_[s] != UINT32_MAX) return w_.get(stackMemo_[s]);
    w_.op(']'), stackMemo_[s] = w_.memoize(), w_.op('(');
    for (int f : stacks_[s]) {
        if (frameMemo_[f] != UINT32_MAX) {
            w_.get(frameMemo_[f]);
            continue;
        }
        w_.op('}'), frameMemo_[f] = w_.memoize(), w_.op('(');
        key(Name), w_.shared(names_[f], "function_" + std::to_string(f));
        key(Filename), w_.shared(files_[f], "/home/user/project/module_" + std::to_string(f % 9) + ".py");
        key(Line), w_.integer(10 + 7 * f);
        w_.op('u');
    }
    w_.op('e');
}

void Generator::event(int action, uint64_t addr, uint64_t size, int s) {
    w_.op('}'), w_.memoize(), w_.op('(');
    key(Action), w_.shared(actions_[action], kActions[action]);
    key(Addr), w_.integer(int64_t(addr));
    key(Size), w_.integer(int64_t(size));
    key(Stream), w_.integer(0);
    key(Time), w_.integer(time_ += 1 + int64_t(rng_() % 3));
    key(Cc), w_.str("N/A"); // a new string object per entry, as PyTorch writes it
    key(Um), w_.str("");
    key(Frames), stack(s);
    w_.op('u');
    if (++emitted_ % 1000 == 0) w_.op('e'), w_.op('('); // CPython batches APPENDS by 1000
}

uint64_t Generator::smallSegment(size_t i) {
    if (i >= smallLive_.size()) smallLive_.resize(i + 1, false);
    if (!smallLive_[i]) event(3, kSmallBase + i * 2 * kMiB, 2 * kMiB, 0), smallLive_[i] = true;
    return kSmallBase + i * 2 * kMiB;
}

void Generator::iteration() {
    struct Live {
        uint64_t addr, size;
        int stack;
    };
    std::vector<Live> live;
    size_t smallIdx = 0, largeIdx = 0;
    uint64_t bump = 0;
    for (size_t t = 0; t < pattern_.size(); ++t) {
        const uint64_t req = pattern_[t] + rng_() % 64;
        const int s = int(t * 5 % kStacks);
        if (req <= kMiB) {
            const uint64_t rounded = (req + 511) / 512 * 512;
            if (bump + rounded > 2 * kMiB) ++smallIdx, bump = 0;
            const uint64_t a = smallSegment(smallIdx) + bump;
            bump += rounded;
            event(0, a, req, s);
            live.push_back({a, req, s});
        } else {
            if (largeIdx >= largeLive_.size()) largeLive_.resize(largeIdx + 1, false);
            const uint64_t a = kLargeBase + largeIdx * 20 * kMiB;
            if (!largeLive_[largeIdx]) event(3, a, 20 * kMiB, 1), largeLive_[largeIdx] = true;
            ++largeIdx;
            event(0, a, req, s);
            live.push_back({a, req, s});
        }
    }
    // The leak: 4 KiB kept every iteration in its own segments.
    const uint64_t perSegment = 2 * kMiB / 4096;
    if (leakCount_ % perSegment == 0) event(3, kLeakBase + leakSegments_++ * 2 * kMiB, 2 * kMiB, 2);
    event(0, kLeakBase + (leakSegments_ - 1) * 2 * kMiB + (leakCount_ % perSegment) * 4096, 4000, 3);
    ++leakCount_;
    for (auto it = live.rbegin(); it != live.rend(); ++it)
        event(1, it->addr, it->size, it->stack), event(2, it->addr, it->size, it->stack);
    if (++iterations_ % 500 == 0) { // empty_cache: every whole free segment goes back to the driver
        for (size_t i = 0; i < smallLive_.size(); ++i)
            if (smallLive_[i]) event(4, kSmallBase + i * 2 * kMiB, 2 * kMiB, 4), smallLive_[i] = false;
        for (size_t i = 0; i < largeLive_.size(); ++i)
            if (largeLive_[i]) event(4, kLargeBase + i * 20 * kMiB, 20 * kMiB, 4), largeLive_[i] = false;
    }
}

void Generator::writeFinalSegments() {
    auto segment = [&](uint64_t addr, uint64_t size, bool small,
                       const std::vector<std::pair<uint64_t, bool>>& blocks) {
        w_.op('}'), w_.memoize(), w_.op('(');
        key(Device), w_.integer(device_);
        key(Address), w_.integer(int64_t(addr));
        key(TotalSize), w_.integer(int64_t(size));
        key(Stream), w_.integer(0);
        key(SegType), w_.str(small ? "small" : "large");
        key(Blocks), w_.op(']'), w_.memoize(), w_.op('(');
        uint64_t at = addr;
        for (auto [bsize, used] : blocks) {
            w_.op('}'), w_.memoize(), w_.op('(');
            key(Address), w_.integer(int64_t(at));
            key(Size), w_.integer(int64_t(bsize));
            key(Requested), w_.integer(used ? 4000 : 0);
            key(State), w_.str(used ? "active_allocated" : "inactive");
            w_.op('u');
            at += bsize;
        }
        w_.op('e'), w_.op('u');
    };
    const uint64_t perSegment = 2 * kMiB / 4096;
    for (size_t i = 0; i < smallLive_.size(); ++i)
        if (smallLive_[i]) segment(kSmallBase + i * 2 * kMiB, 2 * kMiB, true, {{2 * kMiB, false}});
    for (size_t i = 0; i < largeLive_.size(); ++i)
        if (largeLive_[i]) segment(kLargeBase + i * 20 * kMiB, 20 * kMiB, false, {{20 * kMiB, false}});
    for (uint64_t s = 0; s < leakSegments_; ++s) {
        const uint64_t used = std::min<uint64_t>(perSegment, leakCount_ - s * perSegment);
        std::vector<std::pair<uint64_t, bool>> blocks(used, {4096, true});
        if (used < perSegment) blocks.push_back({(perSegment - used) * 4096, false});
        segment(kLeakBase + s * 2 * kMiB, 2 * kMiB, true, blocks);
    }
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: gen_snapshot OUT.pickle ENTRIES [SEED]\n");
        return 2;
    }
    FILE* f = std::fopen(argv[1], "wb");
    if (!f) return std::perror(argv[1]), 2;
    {
        Writer w(f);
        const int devices = argc > 4 ? std::atoi(argv[4]) : 1;
        const uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
        std::vector<std::unique_ptr<Generator>> gens;
        w.op(0x80), w.op(4);
        w.op('}'), w.memoize(), w.op('(');
        w.str("device_traces"), w.op(']'), w.memoize(), w.op('(');
        for (int d = 0; d < devices; ++d) {
            gens.push_back(std::make_unique<Generator>(w, seed + uint64_t(d), d));
            w.op(']'), w.memoize(), w.op('(');
            gens.back()->run(std::strtoull(argv[2], nullptr, 10));
            w.op('e'); // the entries into this device's list
        }
        w.op('e'); // the device lists into device_traces
        w.str("segments"), w.op(']'), w.memoize(), w.op('(');
        for (auto& g : gens) g->writeFinalSegments();
        w.op('e');
        w.op('u'), w.op('.');
        for (int d = 0; d < devices; ++d)
            std::printf("%s: device %d, %llu entries\n", argv[1], d,
                        static_cast<unsigned long long>(gens[size_t(d)]->emitted()));
    }
    std::fclose(f);
    return 0;
}
