#include "CompareVerdict.h"

#include "CaptureDiff.h"
#include "util/Format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vs {
namespace {

std::string percent(double p) {
    return fixed(p, 1) + " %";
}

std::string peakSentence(const CaptureDiff& d) {
    const int64_t delta = d.b.peak - d.a.peak;
    if (delta == 0)
        return "The peak of allocated memory is the same in A and B (" + humanBytes(d.a.peak) + ").";
    std::string s = "B's peak of allocated memory is " + humanBytes(std::llabs(delta));
    if (d.a.peak > 0) s += " (" + percent(100.0 * double(std::llabs(delta)) / double(d.a.peak)) + ")";
    return s + (delta > 0 ? " higher" : " lower") + " than A's (" + humanBytes(d.b.peak) + " against " +
           humanBytes(d.a.peak) + ").";
}

std::string growthOf(const IterationCurve& k) {
    return humanBytes(int64_t(std::llround(k.growthPerIteration()))) + " per iteration (" +
           humanBytes(k.live.back() - k.live.front()) + " over " + std::to_string(k.count()) + " iterations)";
}

std::string growthSentence(const CaptureDiff& d) {
    const auto& ka = d.iterations.a;
    const auto& kb = d.iterations.b;
    if (ka.count() < 2 || kb.count() < 2) return "";
    const bool ga = growsOverIterations(ka, d.a.peak), gb = growsOverIterations(kb, d.b.peak);
    if (ga && !gb) return " A keeps " + growthOf(ka) + "; B does not grow: the growth is gone.";
    if (!ga && gb) return " B keeps " + growthOf(kb) + "; A does not grow: B brings the growth.";
    if (ga && gb) return " Both grow: A by " + growthOf(ka) + ", B by " + growthOf(kb) + ".";
    return " Neither grows from iteration to iteration.";
}

std::string siteSentence(const CaptureDiff& d) {
    if (d.sites.empty()) return " No allocation site holds a different amount.";
    const DiffRow& r = d.sites.front();
    const bool byLive = std::llabs(r.liveDelta()) >= std::llabs(r.peakDelta());
    const int64_t a = byLive ? r.liveA : r.peakA, b = byLive ? r.liveB : r.peakB;
    return " The largest difference is " + std::string(r.site) + " (" +
           std::string(diffChangeName(r.change)) + "): " + humanBytes(a) + " in A, " + humanBytes(b) +
           " in B " + (byLive ? "alive at the end" : "alive at the peak") + ".";
}

} // namespace

bool growsOverIterations(const IterationCurve& k, int64_t peak) {
    if (k.count() < 2) return false;
    const int64_t rise = k.live.back() - k.live.front();
    return rise >= (int64_t(1) << 20) && rise * 100 >= peak;
}

std::string compareVerdict(const CaptureDiff& d) {
    return peakSentence(d) + growthSentence(d) + siteSentence(d);
}

} // namespace vs
