// libFuzzer target for the readers (snapshot pickles and .vscap), the loader and the replay: any
// input must either load or raise LoadError, never crash, hang or trip a sanitizer. The first bytes
// choose a mode:
//   "RAW!"  the rest is one .vscap chunk's payload, fed to the record decoder past the checksum that
//           would otherwise reject nearly every mutation;
//   "SNP!"  structure-aware: the rest drives HostileSnapshot, a well-formed snapshot pickle with
//           hostile field values, counts and shared references;
//   "REC!"  structure-aware: the rest drives hostileRecords, framed .vscap records with hostile counts;
//   "TRC!"  structure-aware: the rest drives HostileTrace, a torch.profiler trace JSON with hostile
//           addresses, sizes, totals, devices, times and spans;
//   "PRF!"  the rest goes to the torch.profiler trace reader itself, without the sniffing (which
//           wants a JSON object or array) in front of it;
//   "ANA!"  past the readers: the rest drives HostileSnapshot (or, by its first byte, HostileTrace or
//           hostileRecords), or is a pickle or a JSON trace itself (the reproducers of issue 31), and
//           a capture that loads goes through every analysis (AnalyseDeep.h); a generated one then
//           with a second capture from the recipe's second half, compared and summarised as ranks;
//   "RNK!"  a rank summary (.vsrank): the rest drives HostileRankSummary, or is a summary file itself
//           when it starts with the summary's magic (the corpus' seeds, mutated); one that reads
//           goes through the rank statistics with two other ranks;
//   "RMT!"  what a remote host answers and what is sent to it (RemoteAnswerChecks.h): its parsers
//           refuse or read exactly, and every value reaches the host as inert octal escapes;
//   anything else is a file's bytes (pickle, gzip, zstd, .vscap or a torch.profiler trace).
// VRAMSCOPE_FUZZ_MODE=pickle|vscap|profiler|snp|rec|raw|trc|ana|rnk|rmt sends every input to that one reader
// instead (no prefix), so that a run can count executions per reader (fuzz/run-parallel.sh).
// Every load runs under a 16 MiB budget, as a user's --max-memory would bound it (the seeds need less).
// fuzz/snapshot.dict is the dictionary (opcodes, snapshot keys, actions, magics).
#include "AnalyseDeep.h"
#include "HostileRankSummary.h"
#include "HostileRecords.h"
#include "HostileSnapshot.h"
#include "HostileTrace.h"
#include "RemoteAnswerChecks.h"
#include "analysis/CaptureAnalysis.h"
#include "analysis/retention/Retention.h"
#include "compare/RankSet.h"
#include "compare/RankSummaryFile.h"
#include "io/CaptureFile.h"
#include "io/LoadError.h"
#include "io/MemoryBudget.h"
#include "io/ProfilerTrace.h"
#include "io/SnapshotLoader.h"
#include "io/VscapReader.h"
#include "io/VscapRecords.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <cstddef>
#include <cstdint>

namespace {

constexpr uint64_t kBudget = 16 << 20; // small: hostile inputs stop sooner, so more run per second

void analyseAll(std::unique_ptr<vs::Capture> capture) {
    auto analysis = vs::CaptureAnalysis::analyse(std::move(capture));
    for (size_t d = 0; d < analysis->deviceCount(); ++d) {
        (void)analysis->summary(d);
        const auto& t = analysis->trace(d);
        if (t.eventCount()) (void)analysis->stateAt(d, t.timeUs[t.eventCount() / 2]);
    }
}

// Every retention graph of a capture, as the retention view shows it: any shape must be analysable.
void analyseRetentionGraphs(const vs::Capture& capture) {
    for (const auto& g : capture.retention) {
        const auto r = vs::analyseRetention(capture, g);
        for (const auto& grp : r.groups) (void)vs::retentionPathText(capture, g, r, grp.blocks.front());
    }
}

// A capture of .vscap records (one chunk's payload), its retention graphs analysed.
std::unique_ptr<vs::Capture> readRecords(const uint8_t* data, size_t size) {
    std::vector<uint8_t> padded(data, data + size);
    padded.resize(padded.size() + vs::vscap::Records::kPadding);
    auto capture = std::make_unique<vs::Capture>();
    vs::vscap::Records(*capture).read({padded.data(), size}, 0);
    analyseRetentionGraphs(*capture);
    return capture;
}

// A capture from the recipe's next bytes, through one of the readers: the first byte odd, a
// torch.profiler trace (HostileTrace: the importer's segment building); else bit 1, framed .vscap
// records (hostileRecords: retention graphs, analysed here as the retention view does); else a
// snapshot pickle (HostileSnapshot).
std::unique_ptr<vs::Capture> generated(vs::fuzz::FuzzBytes& in, const vs::LoadOptions& options) {
    const uint8_t source = in.byte();
    if (source & 1) {
        const std::string trace = vs::fuzz::HostileTrace(in).build();
        return vs::loadProfilerTraceBytes({reinterpret_cast<const uint8_t*>(trace.data()), trace.size()},
                                          options);
    }
    if (source & 2) {
        const std::string records = vs::fuzz::hostileRecords(in);
        return readRecords(reinterpret_cast<const uint8_t*>(records.data()), records.size());
    }
    return vs::loadSnapshotBytes(vs::fuzz::HostileSnapshot(in).build(), options);
}

// A summary that reads must be usable: ranked among others (medians, outliers, the common span).
void readRankSummary(const uint8_t* data, size_t size) {
    vs::RankSet set;
    const bool file = size >= 8 && std::memcmp(data, vs::RankSummaryFile::kMagic, 8) == 0;
    vs::fuzz::FuzzBytes in(data, size);
    const std::string built = file ? std::string() : vs::fuzz::HostileRankSummary(in).build();
    const auto bytes =
        file ? std::span<const uint8_t>(data, size)
             : std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(built.data()), built.size());
    for (int i = 0; i < 3; ++i) set.ranks.push_back(vs::decodeRankSummary(bytes).summary);
    set.ranks[1].peakAllocated /= 2, set.ranks[2].rank = 7;
    vs::finishRankSet(set);
    for (const auto& r : set.ranks) (void)r.binOf(set.lastUs), (void)r.binStartUs(vs::RankSummary::kBins - 1);
}

// The reader every input goes to: from VRAMSCOPE_FUZZ_MODE, else chosen per input by its prefix.
std::string forcedMode() {
    const char* m = std::getenv("VRAMSCOPE_FUZZ_MODE");
    return m ? m : "";
}

void dispatch(const std::string& mode, const uint8_t* data, size_t size, const vs::LoadOptions& options) {
    if (mode == "snp") {
        vs::fuzz::FuzzBytes in(data, size);
        const auto pickle = vs::fuzz::HostileSnapshot(in).build();
        analyseAll(vs::loadSnapshotBytes(pickle, options));
    } else if (mode == "rec") {
        vs::fuzz::FuzzBytes in(data, size);
        const std::string records = vs::fuzz::hostileRecords(in);
        (void)vs::CaptureAnalysis::analyse(
            readRecords(reinterpret_cast<const uint8_t*>(records.data()), records.size()));
    } else if (mode == "trc") {
        vs::fuzz::FuzzBytes in(data, size);
        const std::string trace = vs::fuzz::HostileTrace(in).build();
        analyseAll(vs::loadProfilerTraceBytes({reinterpret_cast<const uint8_t*>(trace.data()), trace.size()},
                                              options));
    } else if (mode == "ana") {
        vs::fuzz::FuzzBytes in(data, size);
        if (size && (data[0] == 0x80 || data[0] == '{')) { // a pickle or a trace as it is: reproducers
            vs::fuzz::analyseDeep(*vs::CaptureAnalysis::analyse(vs::loadCaptureBytes({data, size}, options)),
                                  in);
            return;
        }
        vs::fuzz::FuzzBytes half(data + size / 2, size - size / 2); // the second capture's recipe
        const auto a = vs::CaptureAnalysis::analyse(generated(in, options));
        vs::fuzz::analyseDeep(*a, in);
        vs::fuzz::analysePair(*a, *vs::CaptureAnalysis::analyse(generated(half, options)));
    } else if (mode == "rnk") {
        readRankSummary(data, size);
    } else if (mode == "rmt") {
        vs::fuzz::checkRemoteAnswer(data, size);
    } else if (mode == "raw") {
        (void)vs::CaptureAnalysis::analyse(readRecords(data, size));
    } else if (mode == "pickle") {
        analyseAll(vs::loadSnapshotBytes({data, size}, options));
    } else if (mode == "profiler" || mode == "prf") {
        analyseAll(vs::loadProfilerTraceBytes({data, size}, options));
    } else if (mode == "vscap") {
        analyseAll(vs::loadVscapBytes({data, size}, options));
    } else {
        analyseAll(vs::loadCaptureBytes({data, size}, options));
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string forced = forcedMode();
    // Every LoadOptions (ours and any a reader makes) starts from this instead of asking the kernel
    // for the machine's memory twice per input: a syscall is dear under gVisor (the GPU machine).
    static const bool budgetSet = (vs::MemoryBudget::setProcessDefault(kBudget), true);
    (void)budgetSet;
    vs::LoadOptions options;
    options.maxMemory = options.maxDecompressed = kBudget;
    try {
        if (!forced.empty()) return dispatch(forced, data, size, options), 0;
        for (const char* tag : {"SNP!", "REC!", "RAW!", "TRC!", "PRF!", "ANA!", "RNK!", "RMT!"})
            if (size >= 4 && std::memcmp(data, tag, 4) == 0) {
                std::string mode(tag, 3);
                for (char& c : mode) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                return dispatch(mode, data + 4, size - 4, options), 0;
            }
        dispatch("file", data, size, options);
    } catch (const vs::LoadError&) {
    } catch (const vs::RankSummaryError&) {
    } catch (const std::overflow_error&) { // live memory past 2^63 bytes: the replay's refusal
    }
    return 0;
}
