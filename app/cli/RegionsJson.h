#pragma once
// The `regions` array of `leaks --json`: every growth region of a device with what ended it.
#include "analysis/growth/LeakDiagnosis.h"
#include "util/JsonWriter.h"

namespace vs::cli {

void writeRegionsJson(JsonWriter& j, const CaptureAnalysis& a, size_t device, const LeakReport& rep,
                      const std::vector<Allocation>& all);
// The `findings` array: every finding of the growth analysis, ranked (the diagnosis is the first).
void writeFindingsJson(JsonWriter& j, const CaptureAnalysis& a, size_t device, const LeakReport& rep,
                       const std::vector<Allocation>& all);
// The index of the region the diagnosis explains in rep.regions, or -1.
int64_t explainedRegion(const LeakReport& rep);

} // namespace vs::cli
