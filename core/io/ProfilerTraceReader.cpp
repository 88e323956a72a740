// The JSON layer of the torch.profiler reader: one SAX pass (nlohmann::json, no document tree, so
// memory stays at the "[memory]" events kept, whatever else the trace holds) that keeps the memory
// instant events, the spans around them, the record_function ranges and the trace's time base.
#include "ContentHead.h"
#include "DecompressStream.h"
#include "LoadError.h"
#include "ProfilerTrace.h"
#include "TimeRange.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <iterator>
#include <string>
#include <unordered_map>

namespace vs {
namespace {

constexpr size_t kMaxDepth = 256;

// The text the parser reads, a window at a time (the whole input when it is not compressed): the
// iterator below moves a pointer and calls advance() only at a window's end or a progress tick.
// Progress is reported every Progress::every bytes (of the compressed input when it is compressed);
// a false answer cancels.
class Windows {
  public:
    // The longest token (a string, a number, whitespace between two tokens) a trace may hold: the
    // parser keeps the current token whole (and a string twice), so a decompression bomb of one
    // endless token would cost twice its size in memory. Kineto's longest are a few KiB.
    static constexpr uint64_t kMaxToken = 16 << 20;

    // The most trace events, and values (each ',' or ':' between two), a compressed byte may carry
    // past a first few. An event of a real trace takes a dozen compressed bytes or more, whatever
    // repeats in it (samples/profiler's mlp_train.json.gz: 19 with gzip, 12 with zstd -19), a value
    // about half a byte (1.3 values a byte, 2.0 with zstd -19): its timestamp changes from one event
    // to the next. A bomb of tiny tokens ("{}," or "0," hundreds of times a byte) is refused by these
    // counts in a fraction of a second, instead of after seconds of parsing up to the expansion bound.
    static constexpr uint64_t kMaxEventsPerCompressedByte = 2, kFreeEvents = 100000;
    static constexpr uint64_t kMaxValuesPerCompressedByte = 32, kFreeValues = 1 << 20;

    Windows(DecompressStream& s, const Progress& p, const size_t& events)
        : stream_(s), progress_(p), events_(events) {}
    const char* first() { return load(); }
    const char* limit() const { return limit_; }
    // Every byte the parser moves past, to bound the token it is in.
    void see(const char* p) {
        const char c = *p;
        if (inString_) {
            if (escaped_)
                escaped_ = false;
            else if (c == '\\')
                escaped_ = true;
            else if (c == '"')
                inString_ = false;
        } else if (c == '"') {
            inString_ = true, token_ = 0;
        } else if (c == ',' || c == ':') {
            token_ = 0, ++values_;
        } else if (c == '{' || c == '}' || c == '[' || c == ']') {
            token_ = 0;
        }
        if (++token_ > kMaxToken) [[unlikely]]
            throw LoadError(
                "not a torch.profiler trace: a JSON token (a string, a number or whitespace) longer than " +
                    std::to_string(kMaxToken >> 20) + " MiB, which no trace holds",
                offset_ + uint64_t(p - begin_));
    }
    // At limit(): the next window's first byte (nullptr at the end), or p itself after a tick.
    const char* advance(const char* p) {
        if (p == end_) return load();
        tick(p);
        return p;
    }

  private:
    const char* load() {
        offset_ += uint64_t(end_ - begin_);
        const auto w = stream_.next();
        if (w.empty()) return nullptr;
        begin_ = reinterpret_cast<const char*>(w.data()), end_ = begin_ + w.size();
        if (!started_) begin_ += byteOrderMark(w), started_ = true;
        tick(begin_);
        return begin_ == end_ ? load() : begin_;
    }
    void tick(const char* p) {
        if (!stream_.plain()) checkDensity(p);
        const uint64_t done = stream_.plain() ? uint64_t(p - begin_) : stream_.consumed();
        if (progress_.report && !progress_.report(done, stream_.compressedSize())) throw Cancelled();
        const uint64_t every = std::max<uint64_t>(progress_.every, 1);
        limit_ = uint64_t(end_ - p) > every ? p + every : end_;
    }
    void checkDensity(const char* p) const {
        const uint64_t in = stream_.consumed();
        const auto bomb = [&](uint64_t n, const char* what, const char* real) {
            throw LoadError("a decompression bomb, not a torch.profiler trace: " + std::to_string(n) + " " +
                                what + " from " + std::to_string(in) + " compressed bytes (" + real + ")",
                            offset_ + uint64_t(p - begin_));
        };
        if (events_ > kMaxEventsPerCompressedByte * in + kFreeEvents)
            bomb(events_, "trace events", "a real trace's event takes a dozen bytes or more");
        if (values_ > kMaxValuesPerCompressedByte * in + kFreeValues)
            bomb(values_, "JSON values", "a real trace holds about two a byte");
    }
    // The bytes of a UTF-8 byte-order mark (some editors write one; JSON has none) to skip; UTF-16
    // is refused by name.
    static size_t byteOrderMark(std::span<const uint8_t> w) {
        if (looksLikeUtf16(w.first(std::min<size_t>(w.size(), 2))))
            throw LoadError(
                "UTF-16 JSON is not supported: save the trace as UTF-8 (e.g. iconv -f UTF-16 -t UTF-8)", 0);
        return utf8BomLength(w);
    }
    DecompressStream& stream_;
    const Progress& progress_;
    const size_t& events_; // the parser's count so far
    const char *begin_ = nullptr, *end_ = nullptr, *limit_ = nullptr;
    uint64_t offset_ = 0; // of begin_ in the text
    bool started_ = false;
    bool inString_ = false, escaped_ = false;
    uint64_t token_ = 0;  // bytes of the current token so far
    uint64_t values_ = 0; // separators (',' and ':') outside strings so far
};

struct WindowIterator {
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;
    const char* p = nullptr; // nullptr: the end
    Windows* w = nullptr;
    reference operator*() const { return *p; }
    WindowIterator& operator++() {
        w->see(p);
        if (++p == w->limit()) p = w->advance(p);
        return *this;
    }
    WindowIterator operator++(int) {
        WindowIterator before = *this;
        ++*this;
        return before;
    }
    bool operator==(const WindowIterator& o) const { return p == o.p; }
    bool operator!=(const WindowIterator& o) const { return p != o.p; }
};

using json = nlohmann::json;

class TraceSax {
  public:
    enum class Ctx { Top, Events, Event, Args, Other };

    ProfilerTraceEvents out;
    std::vector<ProfilerSpan> spans; // operators, Python functions, record_function ranges
    bool topIsObject = false, sawEvents = false;
    double baseUs = 0;
    std::string error;
    std::string damage; // a value no trace holds: the whole message, not a JSON error
    size_t errorAt = 0;

    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(json::number_integer_t v) { return number(double(v), v); }
    bool number_unsigned(json::number_unsigned_t v) {
        if (v > uint64_t(INT64_MAX) && isBytes()) return impossibleBytes(std::to_string(v));
        return number(double(v), int64_t(v));
    }
    bool number_float(json::number_float_t v, const json::string_t& written) {
        const bool fits = std::isfinite(v) && std::abs(v) < 9e18;
        if (!fits && isBytes()) return impossibleBytes(written);
        return number(v, fits ? int64_t(v) : 0); // no UB on 1e300
    }
    bool binary(json::binary_t&) { return true; }
    bool string(json::string_t& s) {
        const Ctx c = here();
        if (c == Ctx::Event && key_ == "name") memoryEvent_ = s == "[memory]", name_ = s;
        if (c == Ctx::Event && key_ == "ph") ph_ = s;
        if (c == Ctx::Event && key_ == "cat") cat_ = s;
        if (c == Ctx::Event && key_ == "tid") tid_ = int64_t(std::hash<std::string>{}(s) >> 1);
        if (c == Ctx::Args) { // older exports wrote numbers as strings
            int64_t v = 0;
            if (std::from_chars(s.data(), s.data() + s.size(), v).ec == std::errc())
                return number(double(v), v);
        }
        return true;
    }
    bool key(json::string_t& k) {
        key_ = std::move(k);
        return true;
    }
    bool start_object(size_t) {
        const Ctx parent = stack_.empty() ? Ctx::Other : here();
        if (stack_.empty()) topIsObject = true;
        return push(stack_.empty()                           ? Ctx::Top
                    : parent == Ctx::Events                  ? startEvent()
                    : parent == Ctx::Event && key_ == "args" ? Ctx::Args
                                                             : Ctx::Other);
    }
    bool end_object() {
        if (here() == Ctx::Event) endEvent();
        stack_.pop_back();
        return true;
    }
    bool start_array(size_t) {
        const bool events = stack_.empty() || (here() == Ctx::Top && key_ == "traceEvents");
        sawEvents = sawEvents || events;
        return push(events ? Ctx::Events : Ctx::Other);
    }
    bool end_array() {
        stack_.pop_back();
        return true;
    }
    bool parse_error(size_t position, const std::string&, const nlohmann::detail::exception& e) {
        error = e.what(), errorAt = position;
        return false;
    }

  private:
    Ctx here() const {
        return stack_.empty() ? Ctx::Other : stack_.back();
    } // a bare scalar: no container yet
    bool push(Ctx c) {
        if (stack_.size() >= kMaxDepth) {
            error = "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels";
            return false;
        }
        stack_.push_back(c);
        return true;
    }
    Ctx startEvent() {
        event_ = {}, memoryEvent_ = false, tsUs_ = 0, durUs_ = -1, tid_ = 0;
        name_.clear(), ph_.clear(), cat_.clear();
        ++out.traceEvents;
        return Ctx::Event;
    }
    void endEvent() {
        if (memoryEvent_) {
            event_.timeUs = tsUs_, event_.tid = tid_;
            out.memory.push_back(event_);
        } else if (ph_ == "X" && durUs_ >= 0 &&
                   (cat_ == "cpu_op" || cat_ == "python_function" || cat_ == "user_annotation")) {
            const ProfilerSpan span{tsUs_, tsUs_ + durUs_, tid_, nameIndex()};
            const bool range = cat_ == "user_annotation"; // record_function
            if (range) out.marks.push_back(span);
            if (!(range && numbered(name_))) spans.push_back(span);
        }
    }
    // "ProfilerStep#12", "step 3": a step marker, not a site (each step's allocations would be a
    // site of their own, the kept ones of every step no longer one group).
    static bool numbered(const std::string& name) {
        return !name.empty() && name.back() >= '0' && name.back() <= '9';
    }
    uint32_t nameIndex() {
        auto [it, fresh] = names_.emplace(name_, uint32_t(out.names.size()));
        if (fresh) out.names.push_back(name_);
        return it->second;
    }
    bool isBytes() const { return here() == Ctx::Args && key_ == "Bytes"; }
    // A block size past 2^63 (or not an integer in range) as written, not as it would wrap.
    bool impossibleBytes(const std::string& written) {
        damage = "the torch.profiler trace's event " + std::to_string(out.traceEvents - 1) +
                 " (in file order) has an impossible size (" + written + " bytes): the file is damaged";
        return false;
    }
    bool number(double d, int64_t i) {
        const Ctx c = here();
        if (c == Ctx::Top && key_ == "baseTimeNanoseconds") baseUs = d / 1000;
        if (c == Ctx::Event && key_ == "ts") tsUs_ = d;
        if (c == Ctx::Event && key_ == "dur") durUs_ = d;
        if (c == Ctx::Event && key_ == "tid") tid_ = i;
        if (c != Ctx::Args) return true;
        if (key_ == "Addr")
            event_.addr = uint64_t(i);
        else if (key_ == "Bytes")
            event_.bytes = i;
        else if (key_ == "Total Allocated")
            event_.totalAllocated = i;
        else if (key_ == "Total Reserved")
            event_.totalReserved = i;
        else if (key_ == "Device Id")
            event_.device = int(i);
        else if (key_ == "Device Type")
            event_.deviceType = int(i);
        return true;
    }

    std::vector<Ctx> stack_;
    std::string key_;
    ProfilerMemoryEvent event_;
    bool memoryEvent_ = false;
    double tsUs_ = 0, durUs_ = -1;
    int64_t tid_ = 0;
    std::string name_, ph_, cat_;
    std::unordered_map<std::string, uint32_t> names_;
};

// Times outside 1970..2200 once the base time is added (TimeRange.h): a memory event's is an error
// naming it; a span's (an op or a record_function range, which only name sites and steps) is left
// out and counted. Either would also break the sorts below (a NaN orders nothing).
void checkTimes(ProfilerTraceEvents& out, std::vector<ProfilerSpan>& spans, double baseUs) {
    if (!plausibleTimeUs(baseUs))
        throw LoadError("the torch.profiler trace's baseTimeNanoseconds " + implausibleTime(baseUs * 1000));
    for (size_t i = 0; i < out.memory.size(); ++i)
        if (const double ts = out.memory[i].timeUs; !plausibleTimeUs(ts + baseUs))
            throw LoadError("the torch.profiler trace's [memory] event " + std::to_string(i) +
                            " (in file order, ts " + timeText(ts) + "): time_us " +
                            implausibleTime(ts + baseUs) + ", not a time the profiler records");
    auto outside = [&](const ProfilerSpan& sp) {
        return !plausibleTimeUs(sp.startUs + baseUs) || !plausibleTimeUs(sp.endUs + baseUs);
    };
    const size_t before = spans.size() + out.marks.size();
    std::erase_if(spans, outside);
    std::erase_if(out.marks, outside);
    out.spansOutOfRange = before - spans.size() - out.marks.size();
}

} // namespace

ProfilerTraceEvents readProfilerTrace(DecompressStream& text, const LoadOptions& options) {
    TraceSax sax;
    Windows windows(text, options.progress, sax.out.traceEvents);
    const bool ok =
        json::sax_parse(WindowIterator{windows.first(), &windows}, WindowIterator{nullptr, &windows}, &sax);
    if (!sax.damage.empty()) throw LoadError(sax.damage);
    if (!ok)
        throw LoadError("not a torch.profiler trace: " +
                            (sax.error.empty() ? std::string("invalid JSON") : sax.error),
                        sax.errorAt);
    if (!sax.sawEvents) throw LoadError("not a torch.profiler trace: a JSON file without \"traceEvents\"");
    sax.out.textBytes = text.produced();
    checkTimes(sax.out, sax.spans, sax.baseUs);
    attachSites(sax.out, sax.spans); // on the trace's own clock, before the base time is added
    for (ProfilerMemoryEvent& e : sax.out.memory) e.timeUs += sax.baseUs; // ts counts from the base time
    for (ProfilerSpan& s : sax.out.marks) s.startUs += sax.baseUs, s.endUs += sax.baseUs;
    return std::move(sax.out);
}

ProfilerTraceEvents readProfilerTrace(std::span<const uint8_t> json, const LoadOptions& options) {
    DecompressStream text(json, sniffCompression(json), std::min(options.maxMemory, options.maxDecompressed));
    return readProfilerTrace(text, options);
}

} // namespace vs
