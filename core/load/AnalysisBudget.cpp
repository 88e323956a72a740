#include "AnalysisBudget.h"

#include "io/LoadError.h"
#include "io/MemoryBudget.h"

namespace vs {

uint64_t analysisBudget() {
    return MemoryBudget::processDefault();
}

void analysisOverBudget(const std::string& step, const std::string& what, uint64_t budget) {
    throw LoadError(step + ": " + what + " would need more than " + MemoryBudget::describe(budget) +
                    " of memory; raise --max-memory if you trust the files");
}

} // namespace vs
