// Snapshots whose user_metadata is one object shared by many trace entries (issue 47): the seconds
// to load the 700 KB shape (a dict of 20,000 items named by 10,000 allocations) and the 317 KB one
// (1,100 'annotate' labels: a dict of 170 items naming one 280 KB string), and what the labels became.
// Prints figures, asserts nothing.
#include "SharedMetadataShapes.h"
#include "io/SnapshotLoader.h"

#include <chrono>
#include <cstdio>

namespace {

void run(const char* name, const vs::test::SharedMetadataShape& shape) {
    const auto bytes = vs::test::sharedMetadataSnapshot(shape);
    const auto t0 = std::chrono::steady_clock::now();
    const auto c = vs::loadSnapshotBytes(bytes);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    size_t longest = 0;
    for (size_t i = 0; i < c->strings.size(); ++i)
        longest = std::max(longest, c->strings.text(vs::StringId{uint32_t(i)}).size());
    std::printf("%-44s %7.1f KB  %8.3f s  %zu entries with metadata, %zu labels, longest text %zu B\n", name,
                double(bytes.size()) / 1e3, s, c->devices.empty() ? 0 : c->devices[0].userMetadata.size(),
                c->blockAnnotations.size(), longest);
    std::fflush(stdout);
}

} // namespace

int main() {
    run("shared user_metadata dict (allocations)", vs::test::sharedDictShape());
    run("shared label dict of one long string (annotate)", vs::test::sharedLabelShape());
    run("shared compile_context string (allocations)", vs::test::sharedCompileContextShape());
}
