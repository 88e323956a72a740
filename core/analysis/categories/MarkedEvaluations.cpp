#include "analysis/categories/MarkedEvaluations.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace vs {

bool namesEvaluation(std::string_view annotation) {
    std::string lower(annotation.substr(0, 64));
    for (char& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return lower.rfind("eval", 0) == 0 || lower.rfind("valid", 0) == 0 ||
           lower.find("_eval") != std::string::npos || lower.find("validation") != std::string::npos;
}

std::vector<PhaseWindows::Window> markedEvaluations(const Capture& c, int device) {
    std::vector<std::pair<int64_t, bool>> marks; // (time, START), in time order: a reader may not sort them
    for (const auto& a : c.annotations)
        if (a.device == device && namesEvaluation(c.strings.text(a.name)))
            marks.emplace_back(a.timeUs, a.start);
    // points (vramscope.mark: a START and never an END) say where a phase began, not where it ended
    if (std::none_of(marks.begin(), marks.end(), [](auto& m) { return !m.second; })) return {};
    std::stable_sort(marks.begin(), marks.end(), [](auto& x, auto& y) { return x.first < y.first; });
    std::vector<PhaseWindows::Window> out;
    int depth = 0;
    for (auto [us, start] : marks) {
        if (start && depth++ == 0) out.push_back({us, INT64_MAX});
        if (!start && depth > 0 && --depth == 0) out.back().toUs = us;
    }
    return out;
}

} // namespace vs
