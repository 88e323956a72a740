// Op-level sites for torch.profiler traces: a "[memory]" event happens on a thread inside the
// operators, Python functions (with_stack=True) and record_function ranges that are open there at
// its moment; those spans, innermost first, are its call stack. One sweep per thread over the spans
// sorted by start and the memory events sorted by time, with the open spans on a stack.
#include "LineRange.h"
#include "ProfilerTrace.h"
#include "model/FlatMap.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <numeric>

namespace vs {

namespace {

// The sites' tree: the child of a site for one more span inside it, made once.
class SiteTree {
  public:
    explicit SiteTree(ProfilerTraceEvents& ev) : ev_(ev) {}
    uint32_t child(uint32_t parent, uint32_t name) {
        const uint64_t key = uint64_t(parent) << 32 | name;
        const uint32_t found = index_.find(key);
        if (found != FlatMap::kMissing) return found;
        ev_.sites.push_back({parent, name, ev_.sites[parent].depth + 1});
        index_.set(key, uint32_t(ev_.sites.size() - 1));
        return uint32_t(ev_.sites.size() - 1);
    }

  private:
    ProfilerTraceEvents& ev_;
    FlatMap index_;
};

struct Open {
    const ProfilerSpan* span;
    uint32_t site; // the site of this span and those around it
    double minEnd; // the earliest end of this span and those around it
};

} // namespace

void attachSites(ProfilerTraceEvents& ev, std::vector<ProfilerSpan>& spans) {
    std::stable_sort(spans.begin(), spans.end(), [](const ProfilerSpan& a, const ProfilerSpan& b) {
        return a.tid != b.tid           ? a.tid < b.tid
               : a.startUs != b.startUs ? a.startUs < b.startUs
                                        : a.endUs > b.endUs;
    });
    std::vector<size_t> order(ev.memory.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const auto &x = ev.memory[a], &y = ev.memory[b];
        return x.tid != y.tid ? x.tid < y.tid : x.timeUs < y.timeUs;
    });
    SiteTree tree(ev);
    std::vector<Open> open; // outermost first
    auto push = [&](const ProfilerSpan* s) {
        const uint32_t parent = open.empty() ? 0 : open.back().site;
        const double below = open.empty() ? s->endUs : std::min(open.back().minEnd, s->endUs);
        open.push_back({s, tree.child(parent, s->name), below});
    };
    size_t next = 0;
    int64_t tid = INT64_MIN;
    for (size_t i : order) {
        ProfilerMemoryEvent& m = ev.memory[i];
        if (m.tid != tid) { // another thread: its spans only
            tid = m.tid, open.clear();
            while (next < spans.size() && spans[next].tid < tid) ++next;
        }
        for (; next < spans.size() && spans[next].tid == tid && spans[next].startUs <= m.timeUs; ++next) {
            while (!open.empty() && open.back().span->endUs < spans[next].startUs) open.pop_back();
            push(&spans[next]);
        }
        while (!open.empty() && open.back().span->endUs < m.timeUs) open.pop_back();
        if (open.empty() || open.back().minEnd >= m.timeUs) { // every open span is still open
            m.site = open.empty() ? 0 : open.back().site;
            continue;
        }
        // Spans that overlap without nesting left one that has ended under one still open: the
        // site is the open ones only (rare: O(depth) here).
        uint32_t site = 0;
        for (const Open& o : open)
            if (o.span->endUs >= m.timeUs) site = tree.child(site, o.span->name);
        m.site = site;
    }
}

namespace {

// "<built-in method mean of Tensor object at 0x7f28...>": the object's address would make every call
// a site of its own.
std::string withoutAddress(std::string name) {
    for (size_t at = name.find(" at 0x"); at != std::string::npos; at = name.find(" at 0x", at)) {
        size_t end = at + 6;
        while (end < name.size() && std::isxdigit(static_cast<unsigned char>(name[end]))) ++end;
        name.erase(at, end - at);
    }
    return name;
}

// "path/file.py(123): function" -> (file, line, function); anything else is an op's name. A line
// of digits out of range (LineRange.h) is read as 0 and counted.
Frame frameOf(Capture& c, const std::string& raw, uint64_t& linesOutOfRange) {
    const std::string name = withoutAddress(raw);
    const size_t open = name.find("("), close = name.find("): ");
    if (open != std::string::npos && close != std::string::npos && close > open) {
        const char *from = name.data() + open + 1, *to = name.data() + close;
        uint64_t line = 0;
        const auto [end, ec] = std::from_chars(from, to, line);
        if (end == to && (ec == std::errc() || ec == std::errc::result_out_of_range))
            return {c.strings.intern(name.substr(close + 3)), c.strings.intern(name.substr(0, open)),
                    lineOrUnknown(ec == std::errc() ? line : UINT64_MAX, linesOutOfRange)};
    }
    return {c.strings.intern(name), c.strings.intern(""), 0};
}

} // namespace

StackId siteStack(Capture& c, const ProfilerTraceEvents& ev, uint32_t site, uint64_t& linesOutOfRange) {
    if (site == 0 || site >= ev.sites.size()) return StackId{};
    std::vector<FrameId> frames; // innermost first: from the site up to the root
    for (; site != 0; site = ev.sites[site].parent)
        frames.push_back(c.frames.intern(frameOf(c, ev.names[ev.sites[site].name], linesOutOfRange)));
    return c.stacks.intern(frames);
}

} // namespace vs
