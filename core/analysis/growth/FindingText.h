#pragma once
// How a finding of the growth analysis reads in one line: "a leak of 1.25 MiB at forward
// (train.py:19)", the bytes kept in the unit that repeats, and the title that counts the findings
// ("2 findings: a leak of ..., an accumulation of ...") for the window's title and the CLI.
#include "analysis/growth/GrowthRegions.h"
#include "model/Capture.h"

#include <string>

namespace vs {

// "4.75 MiB every 10th 'train_step' iteration", "1.11 MiB per 'forward' iteration"; empty without
// iterations.
std::string repeatText(const GrowthRegion& r, const Iterations& its);

// "a leak of 1.25 MiB at forward (train.py:19)", "an accumulation of 50.00 MiB at ... (3 times)".
std::string findingText(const Capture& c, const GrowthRegions& g, const GrowthFinding& f);

// "No growth found", "1 finding: a leak of ...", "2 findings: a leak of ..., an accumulation of ...".
std::string findingsTitle(const Capture& c, const GrowthRegions& g);

} // namespace vs
