// The JSON layer of the torch.profiler reader: one SAX pass (nlohmann::json, no document tree, so
// memory stays at the "[memory]" events kept, whatever else the trace holds) that keeps the memory
// instant events, the spans around them, the record_function ranges and the trace's time base.
#include "LoadError.h"
#include "ProfilerTrace.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <iterator>
#include <string>
#include <unordered_map>

namespace vs {
namespace {

constexpr size_t kMaxDepth = 256;

// Reports progress every Progress::every bytes as the parser reads; a false answer cancels.
struct Meter {
    const char* begin;
    const char* next;
    uint64_t total;
    const Progress& progress;
    void tick(const char* at) {
        next = at + std::max<uint64_t>(progress.every, 1);
        if (progress.report && !progress.report(uint64_t(at - begin), total)) throw Cancelled();
    }
};

struct MeteredIterator {
    using iterator_category = std::forward_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;
    const char* p = nullptr;
    Meter* meter = nullptr;
    reference operator*() const { return *p; }
    MeteredIterator& operator++() {
        if (++p == meter->next) meter->tick(p);
        return *this;
    }
    MeteredIterator operator++(int) {
        MeteredIterator before = *this;
        ++*this;
        return before;
    }
    bool operator==(const MeteredIterator& o) const { return p == o.p; }
    bool operator!=(const MeteredIterator& o) const { return p != o.p; }
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
    size_t errorAt = 0;

    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(json::number_integer_t v) { return number(double(v), v); }
    bool number_unsigned(json::number_unsigned_t v) { return number(double(v), int64_t(v)); }
    bool number_float(json::number_float_t v, const json::string_t&) {
        return number(v, std::isfinite(v) && std::abs(v) < 9e18 ? int64_t(v) : 0); // no UB on 1e300
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
            if (std::from_chars(s.data(), s.data() + s.size(), v).ec == std::errc()) return number(double(v), v);
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
        return push(stack_.empty()            ? Ctx::Top
                    : parent == Ctx::Events   ? startEvent()
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
    Ctx here() const { return stack_.empty() ? Ctx::Other : stack_.back(); } // a bare scalar: no container yet
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
        } else if (ph_ == "X" && durUs_ >= 0 && (cat_ == "cpu_op" || cat_ == "python_function" || cat_ == "user_annotation")) {
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
    bool number(double d, int64_t i) {
        const Ctx c = here();
        if (c == Ctx::Top && key_ == "baseTimeNanoseconds") baseUs = d / 1000;
        if (c == Ctx::Event && key_ == "ts") tsUs_ = d;
        if (c == Ctx::Event && key_ == "dur") durUs_ = d;
        if (c == Ctx::Event && key_ == "tid") tid_ = i;
        if (c != Ctx::Args) return true;
        if (key_ == "Addr") event_.addr = uint64_t(i);
        else if (key_ == "Bytes") event_.bytes = i;
        else if (key_ == "Total Allocated") event_.totalAllocated = i;
        else if (key_ == "Total Reserved") event_.totalReserved = i;
        else if (key_ == "Device Id") event_.device = int(i);
        else if (key_ == "Device Type") event_.deviceType = int(i);
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

} // namespace

ProfilerTraceEvents readProfilerTrace(std::span<const uint8_t> bytes, const LoadOptions& options) {
    const auto* text = reinterpret_cast<const char*>(bytes.data());
    Meter meter{text, text + std::max<uint64_t>(options.progress.every, 1), bytes.size(), options.progress};
    TraceSax sax;
    const bool ok = json::sax_parse(MeteredIterator{text, &meter}, MeteredIterator{text + bytes.size(), &meter}, &sax);
    if (!ok)
        throw LoadError("not a torch.profiler trace: " + (sax.error.empty() ? std::string("invalid JSON") : sax.error),
                        sax.errorAt);
    if (!sax.sawEvents)
        throw LoadError("not a torch.profiler trace: a JSON file without \"traceEvents\"");
    attachSites(sax.out, sax.spans); // on the trace's own clock, before the base time is added
    for (ProfilerMemoryEvent& e : sax.out.memory) e.timeUs += sax.baseUs; // ts counts from the base time
    for (ProfilerSpan& s : sax.out.marks) s.startUs += sax.baseUs, s.endUs += sax.baseUs;
    return std::move(sax.out);
}

} // namespace vs
