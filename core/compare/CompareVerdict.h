#pragma once
// The sentence a comparison ends with: did the peak change, did the growth per iteration go away
// (or appear), and which site differs most.
#include <string>

namespace vs {

struct CaptureDiff;
struct IterationCurve;

std::string compareVerdict(const CaptureDiff& d);

// True when a curve's live bytes rise over its iterations by at least 1 MiB and 1 % of its peak: a
// growth worth naming (a few blocks of optimizer state made in step 1 are not).
bool growsOverIterations(const IterationCurve& k, int64_t peak);

} // namespace vs
