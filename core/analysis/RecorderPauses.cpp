#include "analysis/RecorderPauses.h"

#include <algorithm>

namespace vs {

std::vector<RecorderPause> recorderPauses(const Capture& c, int device) {
    std::vector<const Annotation*> marks;
    for (const auto& a : c.annotations)
        if (a.device == device && c.strings.text(a.name) == kPauseAnnotation) marks.push_back(&a);
    // the recorder writes them at its next flush, not in time order with other annotations
    std::stable_sort(marks.begin(), marks.end(), [](auto* x, auto* y) { return x->timeUs < y->timeUs; });
    std::vector<RecorderPause> out;
    const Annotation* open = nullptr;
    for (const Annotation* a : marks) {
        if (a->start) {
            open = a;
        } else if (open && a->timeUs >= open->timeUs) {
            out.push_back({open->timeUs, a->timeUs});
            open = nullptr;
        }
    }
    if (open) {
        int64_t end = open->timeUs;
        for (const auto& d : c.devices)
            if (d.device == device && d.eventCount() > 0) end = std::max(end, d.timeUs.back());
        out.push_back({open->timeUs, end});
    }
    return out;
}

double recorderPauseSeconds(const Capture& c) {
    std::vector<RecorderPause> all;
    for (const auto& d : c.devices) {
        const auto p = recorderPauses(c, d.device);
        all.insert(all.end(), p.begin(), p.end());
    }
    std::sort(all.begin(), all.end(), [](auto& x, auto& y) { return x.fromUs < y.fromUs; });
    int64_t total = 0, reach = INT64_MIN;
    for (const auto& p : all) { // the union of the intervals
        const int64_t from = std::max(p.fromUs, reach);
        if (p.toUs > from) total += p.toUs - from;
        reach = std::max(reach, p.toUs);
    }
    return double(total) / 1e6;
}

std::string recorderCost(const Capture& c) {
    for (const auto& [key, value] : c.meta)
        if (key == "recorder_cost") return value;
    return {};
}

} // namespace vs
