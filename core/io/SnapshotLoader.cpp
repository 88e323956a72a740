// Opening a PyTorch snapshot: the input (file or bytes, decompressed), the pass that finds the memo
// slots, the pickle machine's run, SnapshotLoader over its values, the load's warnings, and giving
// the parse's working memory back. The values themselves are read by SnapshotWalk.
#include "SnapshotLoader.h"

#include "InputBuffer.h"
#include "LineRange.h"
#include "LoadError.h"
#include "LoadMeter.h"
#include "PickleMachine.h"
#include "PickleMemo.h"
#include "SnapshotSchema.h"
#include "SnapshotWalk.h"
#include "util/Cancelled.h"

#include <algorithm>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace vs {
using pickle::PickleMachine;
using pickle::Value;

namespace {

// The memo slots the pickle reads back, from a pass over its bytes before the parse (PickleMemo.h),
// reported as the first part of the parse's progress.
pickle::PickleMemo scanMemo(const InputBuffer& in, LoadMeter& meter, const Progress& progress) {
    pickle::PickleMemo::Scan scan(meter, in.bytes().size());
    uint64_t nextReport = 0;
    in.readWindows([&](std::span<const uint8_t> window, uint64_t at) {
        if (progress.report && at >= nextReport) {
            nextReport = at + progress.every;
            const auto done = uint64_t(double(at) * pickle::PickleMemo::kScanShare);
            if (!progress.report(done, in.bytes().size())) throw Cancelled();
        }
        return scan.feed(window, at);
    });
    return scan.finish();
}

std::unique_ptr<Capture> loadFrom(InputBuffer& in, const std::string& path, const LoadOptions& options) {
    auto capture = std::make_unique<Capture>();
    capture->path = path;
    capture->format = in.compression() == Compression::Gzip   ? "pytorch-snapshot-pickle.gz"
                      : in.compression() == Compression::Zstd ? "pytorch-snapshot-pickle.zst"
                                                              : "pytorch-snapshot-pickle";
    auto bytes = in.bytes();
    if (bytes.empty()) throw LoadError("the input is empty");
    if (bytes[0] != 0x80)
        throw LoadError(bytes[0] == '{' || bytes[0] == '['
                            ? "this looks like JSON, not a pickle (JSON snapshots are not supported yet)"
                            : "not a pickle: it does not start with the PROTO opcode (0x80)",
                        0);
    LoadMeter meter(options.maxMemory);
    meter.charge(in.ownedBytes(), 0); // decompressed input shares the budget with what is built from it
    meter.boundByInput(bytes.size() + in.ownedBytes());
    SnapshotSchema schema(*capture);
    // Room for more entries than any snapshot has (real ones take ~86 bytes per entry, the leanest
    // ~45): the columns never move while they fill, and the pages past the last entry are never
    // touched, so the spare room costs address space, not memory (no shrink_to_fit copy at the end).
    schema.events().reserve(bytes.size() / 40 + 16);
    PickleMachine m(bytes, schema, meter);
    m.setMemo(scanMemo(in, meter, options.progress));
    const Value top = m.run(options.progress,
                            [&](uint64_t pos) { in.releaseBefore(pos > (1 << 20) ? pos - (1 << 20) : 0); });
    m.releaseWorkingMemory();
    SnapshotWalk(m, schema, *capture).load(top);
    if (m.intOverflowed())
        capture->warnings.push_back("some integers did not fit in 64 bits and were clamped");
    if (schema.linesOutOfRange())
        capture->warnings.push_back(linesOutOfRangeWarning(schema.linesOutOfRange()));
    if (schema.badMetadata())
        capture->warnings.push_back(
            std::to_string(schema.badMetadata()) +
            " trace entries have a user_metadata that is neither text nor a flat dict: "
            "it was ignored");
    if (schema.unknownActions())
        capture->warnings.push_back(std::to_string(schema.unknownActions()) +
                                    " trace entries have an unknown action");
    std::sort(capture->devices.begin(), capture->devices.end(),
              [](auto& a, auto& b) { return a.device < b.device; });
    for (auto& d : capture->devices) d.releaseSpareRoom();
    return capture;
}

// The parse's working memory (memo, container table, decompressed input) is freed by now, but
// glibc keeps freed heap memory for reuse unless asked to return it: it would stay resident and
// count as the loaded capture's. Only after big inputs (small loads, as fuzzing runs by the
// million, free little and would pay the heap walk each time).
void returnFreedMemory(uint64_t inputBytes) {
#if defined(__GLIBC__)
    if (inputBytes >= (16u << 20)) malloc_trim(0);
#else
    (void)inputBytes;
#endif
}

} // namespace

std::unique_ptr<Capture> loadSnapshotFile(const std::string& path, const LoadOptions& options) {
    std::unique_ptr<Capture> capture;
    uint64_t inputBytes = 0;
    try {
        InputBuffer in = InputBuffer::open(path, std::min(options.maxMemory, options.maxDecompressed));
        inputBytes = in.bytes().size();
        capture = loadFrom(in, path, options);
    } catch (const LoadError& e) {
        const std::string what = e.what(); // "cannot open PATH: ...", "PATH is empty" name it already
        throw LoadError(what.find(path) != std::string::npos ? what : path + ": " + what);
    }
    returnFreedMemory(inputBytes);
    return capture;
}

std::unique_ptr<Capture> loadSnapshotBytes(std::span<const uint8_t> bytes, const LoadOptions& options) {
    std::unique_ptr<Capture> capture;
    uint64_t inputBytes = 0;
    {
        InputBuffer in = InputBuffer::fromMemory(bytes, std::min(options.maxMemory, options.maxDecompressed));
        inputBytes = in.bytes().size();
        capture = loadFrom(in, "<memory>", options);
    }
    returnFreedMemory(inputBytes);
    return capture;
}

std::unique_ptr<Capture> loadSnapshotFile(const std::string& path) {
    const LoadOptions defaults;
    return loadSnapshotFile(path, defaults);
}

std::unique_ptr<Capture> loadSnapshotBytes(std::span<const uint8_t> bytes) {
    const LoadOptions defaults;
    return loadSnapshotBytes(bytes, defaults);
}

} // namespace vs
