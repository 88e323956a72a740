#include "PhaseWindows.h"

#include <algorithm>
#include <climits>
#include <string_view>

namespace vs {

static Phase phaseNamed(std::string_view name) {
    if (name == "forward") return Phase::Forward;
    if (name == "backward") return Phase::Backward;
    if (name == "optimizer.step") return Phase::Optimizer;
    return Phase::None;
}

PhaseWindows::PhaseWindows(const Capture& c) {
    struct Mark {
        int64_t timeUs;
        Phase phase;
        bool start;
    };
    std::vector<Mark> marks;
    for (const auto& a : c.annotations)
        if (const Phase p = phaseNamed(c.strings.text(a.name)); p != Phase::None)
            marks.push_back({a.timeUs, p, a.start});
    std::stable_sort(marks.begin(), marks.end(), [](const Mark& x, const Mark& y) { return x.timeUs < y.timeUs; });
    std::vector<PhaseAt> open; // innermost last
    for (const Mark& m : marks) {
        if (m.start) {
            ends_.push_back(INT64_MAX);
            phases_.push_back(m.phase);
            open.push_back({m.phase, static_cast<uint32_t>(ends_.size())});
        } else {
            // The most recent open instance of this phase ends (and any left open inside it: a
            // forward whose END was lost to an exception).
            auto it = std::find_if(open.rbegin(), open.rend(), [&](const PhaseAt& o) { return o.phase == m.phase; });
            if (it == open.rend()) continue;
            for (auto inner = open.begin() + (open.rend() - it) - 1; inner != open.end(); ++inner)
                ends_[inner->instance - 1] = m.timeUs;
            open.erase(open.begin() + (open.rend() - it) - 1, open.end());
        }
        PhaseAt now = open.empty() ? PhaseAt{} : open.back();
        now.epoch = static_cast<uint32_t>(changes_.size() + 1);
        changes_.push_back({m.timeUs, now});
    }
}

PhaseAt PhaseWindows::at(int64_t timeUs) const {
    auto it = std::upper_bound(changes_.begin(), changes_.end(), timeUs,
                               [](int64_t t, const Change& c) { return t < c.timeUs; });
    return it == changes_.begin() ? PhaseAt{} : std::prev(it)->now;
}

int64_t PhaseWindows::endOf(uint32_t instance) const {
    return instance == 0 || instance > ends_.size() ? INT64_MAX : ends_[instance - 1];
}

int64_t PhaseWindows::firstEndOf(Phase p) const {
    for (size_t i = 0; i < phases_.size(); ++i)
        if (phases_[i] == p && ends_[i] != INT64_MAX) return ends_[i];
    return INT64_MAX;
}

} // namespace vs
