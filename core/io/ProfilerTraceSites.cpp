// Op-level sites for torch.profiler traces: a "[memory]" event happens on a thread inside the
// operators, Python functions (with_stack=True) and record_function ranges that are open there at
// its moment; those spans, innermost first, are its call stack. One sweep per thread over the spans
// sorted by start and the memory events sorted by time, with the open spans on a stack.
#include "LineRange.h"
#include "ProfilerTrace.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <numeric>

namespace vs {

void attachSites(ProfilerTraceEvents& ev, std::vector<ProfilerSpan>& spans) {
    std::stable_sort(spans.begin(), spans.end(), [](const ProfilerSpan& a, const ProfilerSpan& b) {
        return a.tid != b.tid ? a.tid < b.tid : a.startUs != b.startUs ? a.startUs < b.startUs : a.endUs > b.endUs;
    });
    std::vector<size_t> order(ev.memory.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const auto &x = ev.memory[a], &y = ev.memory[b];
        return x.tid != y.tid ? x.tid < y.tid : x.timeUs < y.timeUs;
    });
    std::map<std::vector<uint32_t>, uint32_t> known{{{}, 0}};
    std::vector<const ProfilerSpan*> open; // outermost first
    size_t next = 0;
    int64_t tid = INT64_MIN;
    for (size_t i : order) {
        ProfilerMemoryEvent& m = ev.memory[i];
        if (m.tid != tid) { // another thread: its spans only
            tid = m.tid, open.clear();
            while (next < spans.size() && spans[next].tid < tid) ++next;
        }
        for (; next < spans.size() && spans[next].tid == tid && spans[next].startUs <= m.timeUs; ++next) {
            while (!open.empty() && open.back()->endUs < spans[next].startUs) open.pop_back();
            open.push_back(&spans[next]);
        }
        while (!open.empty() && open.back()->endUs < m.timeUs) open.pop_back();
        std::vector<uint32_t> site;
        for (auto it = open.rbegin(); it != open.rend(); ++it)
            if ((*it)->endUs >= m.timeUs) site.push_back((*it)->name); // an inner span still open
        auto [at, fresh] = known.emplace(std::move(site), uint32_t(ev.sites.size()));
        if (fresh) ev.sites.push_back(at->first);
        m.site = at->second;
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
    std::vector<FrameId> frames;
    for (uint32_t n : ev.sites[site]) frames.push_back(c.frames.intern(frameOf(c, ev.names[n], linesOutOfRange)));
    return c.stacks.intern(frames);
}

} // namespace vs
