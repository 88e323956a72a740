// Comparisons on synthetic training loops whose every byte is known: two captures lined up by
// iteration (by order and by annotated step number), the leaking site first in the difference,
// two ranges of one capture, what differs in the setting, the difference tree, a capture that holds
// no device (everything removed, as the fuzzing's pairs of generated captures found), 64 generated ranks
// with one outlier, ranks read from files in parallel, and the baseline gate's verdicts.
#include "SyntheticLoop.h"
#include "compare/BaselineGate.h"
#include "compare/CaptureDiff.h"
#include "compare/DiffTree.h"
#include "compare/RankSet.h"
#include "io/VscapExport.h"
#include "load/OpenAnalysis.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace vs;
using vs::test::SyntheticLoop;

class TestCompare : public QObject {
    Q_OBJECT
  private slots:
    void alignedByIterationOrder();
    void alignedByStepNumber();
    void leakingSiteFirst();
    void twoRangesOfOneCapture();
    void settingDifferencesSaidFirst();
    void diffTreeNests();
    void againstACaptureWithoutDevices();
    void sixtyFourRanksOneOutlier();
    void equalRanksFlagNothing();
    void longRunsKeepBoundedSummaries();
    void ranksFromFilesInParallel();
    void rankNumbersFromFileNames();
    void baselineGateVerdicts();
    void cliCompareRealPair();
    void cliBaselineExitCodes();
    void cliRanks();
    void recordedBeforeAfter();
    void recordedRanks();
    void recordedBaselineGate();
};

namespace {

constexpr uint64_t MiB = 1 << 20;

struct Loop {
    int steps = 10;
    int warmupAllocs = 0;                // allocations kept before the first step (model, optimizer state)
    uint64_t leakPerStep = 0;            // kept every step from keep_output (train.py:77)
    uint64_t cachePerStep = 0;           // kept every step from fill_cache (train.py:90)
    uint64_t temporary = 8 * MiB;        // made and freed every step (activations)
    const char* stepName = "train_step"; // annotation at each step; nullptr: none
    int firstNumber = -1;                // >= 0: "ProfilerStep#N" numbered from here
    bool expandable = false;
};

std::shared_ptr<const CaptureAnalysis> build(const Loop& p) {
    SyntheticLoop loop;
    const StackId model = loop.stack({{"build_model", 12}, {"main", 50}});
    const StackId act = loop.stack({{"forward", 30}, {"train_step", 21}, {"main", 50}});
    const StackId leak = loop.stack({{"keep_output", 77}, {"train_step", 22}, {"main", 50}});
    const StackId cache = loop.stack({{"fill_cache", 90}, {"train_step", 23}, {"main", 50}});
    for (int i = 0; i < p.warmupAllocs; ++i) loop.alloc(4 * MiB, model);
    for (int s = 0; s < p.steps; ++s) {
        if (p.firstNumber >= 0) {
            const std::string name = "ProfilerStep#" + std::to_string(p.firstNumber + s);
            loop.annotate(name.c_str());
        } else if (p.stepName) {
            loop.annotate(p.stepName);
        }
        loop.step();
        const uint64_t a = loop.alloc(p.temporary, act);
        if (p.leakPerStep) loop.alloc(p.leakPerStep, leak);
        if (p.cachePerStep) loop.alloc(p.cachePerStep, cache);
        loop.free(a, p.temporary, act);
    }
    auto c = loop.take();
    c->settings.present = true, c->settings.expandableSegments = p.expandable;
    c->settings.allocConf = p.expandable ? "expandable_segments:True" : "";
    return CaptureAnalysis::analyse(std::move(c));
}

int64_t sumOf(const std::vector<DiffRow>& rows, int64_t (DiffRow::*delta)() const) {
    int64_t s = 0;
    for (const auto& r : rows) s += (r.*delta)();
    return s;
}

RankSummary rankOf(const Loop& p, int rank) {
    RankSummary s = summariseRank(*build(p));
    s.rank = rank;
    return s;
}

} // namespace

void TestCompare::alignedByIterationOrder() {
    // B starts with more warm-up work (its iterations begin at other events and times) and leaks 1 MiB
    // a step: iteration k of B holds k MiB more at its peak than iteration k of A
    Loop pa, pb;
    pa.warmupAllocs = 1, pb.warmupAllocs = 3, pb.leakPerStep = MiB;
    auto a = build(pa), b = build(pb);
    const CaptureDiff d = compareCaptures(wholeDevice(*a, 0), wholeDevice(*b, 0));
    const auto& al = d.iterations;
    QCOMPARE(al.a.count(), size_t(10));
    QCOMPARE(al.b.count(), size_t(10));
    QCOMPARE(al.pairs.size(), size_t(10));
    QVERIFY(!al.byNumber);
    QVERIFY(al.a.starts.front() != al.b.starts.front()); // not the same events: aligned by iteration
    for (size_t k = 0; k < al.pairs.size(); ++k) {
        QCOMPARE(al.pairs[k], std::make_pair(k, k));
        // the warm-up's 8 MiB more, plus the k+1 leaked blocks alive at that iteration's peak
        QCOMPARE(al.peakDelta(k), int64_t(8 * MiB + (k + 1) * MiB));
        QCOMPARE(al.liveDelta(k), int64_t(8 * MiB + (k + 1) * MiB));
    }
    QCOMPARE(al.largestPeakDelta(), size_t(9));
    QCOMPARE(al.b.growthPerIteration(), double(MiB));
    QCOMPARE(al.a.growthPerIteration(), 0.0);
    QVERIFY2(d.verdict.find("B keeps 1.00 MiB per iteration") != std::string::npos, d.verdict.c_str());
}

void TestCompare::alignedByStepNumber() {
    // B's recording began two steps later: its ProfilerStep#3 is A's third iteration
    Loop pa, pb;
    pa.firstNumber = 1, pb.firstNumber = 3, pb.steps = 8;
    pb.leakPerStep = MiB;
    const CaptureDiff d = compareCaptures(wholeDevice(*build(pa), 0), wholeDevice(*build(pb), 0));
    const auto& al = d.iterations;
    QVERIFY(al.byNumber);
    QCOMPARE(al.pairs.size(), size_t(8));
    for (size_t k = 0; k < al.pairs.size(); ++k) {
        QCOMPARE(al.pairs[k], std::make_pair(k + 2, k));
        QCOMPARE(al.a.numbers[al.pairs[k].first], al.b.numbers[al.pairs[k].second]);
    }
    QVERIFY(al.how.find("step number") != std::string::npos);
}

void TestCompare::leakingSiteFirst() {
    // A leaks 2 MiB a step from keep_output and its cache grows 512 KiB a step; B is the fix of the
    // leak with a cache twice as big: the leak is the larger difference and comes first
    Loop pa, pb;
    pa.leakPerStep = 2 * MiB, pa.cachePerStep = MiB / 2;
    pb.cachePerStep = MiB;
    const CaptureDiff d = compareCaptures(wholeDevice(*build(pa), 0), wholeDevice(*build(pb), 0));
    QVERIFY(d.sites.size() >= 2);
    QCOMPARE(QString::fromStdString(std::string(d.sites[0].site)), QString("keep_output (train.py:77)"));
    QCOMPARE(d.sites[0].change, DiffChange::Removed);
    QCOMPARE(d.sites[0].liveA, int64_t(20 * MiB));
    QCOMPARE(d.sites[0].liveB, int64_t(0));
    QCOMPARE(QString::fromStdString(std::string(d.sites[1].site)), QString("fill_cache (train.py:90)"));
    QCOMPARE(d.sites[1].change, DiffChange::Grown);
    QCOMPARE(d.sites[1].liveDelta(), int64_t(5 * MiB));
    // the rows explain the totals exactly
    QCOMPARE(sumOf(d.sites, &DiffRow::liveDelta), d.b.live - d.a.live);
    QCOMPARE(sumOf(d.stacks, &DiffRow::peakDelta), d.b.peak - d.a.peak);
    QCOMPARE(d.stacks.front().frames.back(), std::string("keep_output (train.py:77)"));
    QVERIFY2(d.verdict.find("the growth is gone") == std::string::npos, d.verdict.c_str()); // B's cache grows
    QVERIFY2(d.verdict.find("keep_output (train.py:77) (removed)") != std::string::npos, d.verdict.c_str());
    QVERIFY(d.context.empty());
}

void TestCompare::twoRangesOfOneCapture() {
    // epoch 3 (steps 7..9) against epoch 1 (steps 1..3) of one leaking run: the leak site holds 6 MiB
    // more at the end of the later range (six more steps' blocks), and the iterations pair by order
    Loop p;
    p.leakPerStep = MiB;
    auto a = build(p);
    const auto& starts = compareCaptures(wholeDevice(*a, 0), wholeDevice(*a, 0)).iterations.a.starts;
    QCOMPARE(starts.size(), size_t(10));
    const DiffSide first{a.get(), 0, starts[0], starts[3] - 1}, later{a.get(), 0, starts[6], starts[9] - 1};
    const CaptureDiff d = compareCaptures(first, later);
    QVERIFY(d.context.empty());
    QCOMPARE(d.iterations.pairs.size(), size_t(3));
    QCOMPARE(d.iterations.a.starts.front(), starts[0]);
    QCOMPARE(d.iterations.b.starts.front(), starts[6]);
    QCOMPARE(QString::fromStdString(std::string(d.sites[0].site)), QString("keep_output (train.py:77)"));
    QCOMPARE(d.sites[0].liveDelta(), int64_t(6 * MiB));
    QCOMPARE(d.sites[0].allocsA, 3u);
    QCOMPARE(d.sites[0].allocsB, 3u);
    for (size_t k = 0; k < 3; ++k) QCOMPARE(d.iterations.peakDelta(k), int64_t(6 * MiB));
}

void TestCompare::settingDifferencesSaidFirst() {
    Loop pa, pb;
    pb.expandable = true;
    const CaptureDiff d = compareCaptures(wholeDevice(*build(pa), 0), wholeDevice(*build(pb), 0));
    QVERIFY(d.context.size() >= 2);
    QCOMPARE(QString::fromStdString(d.context[0].what), QString("allocator: PYTORCH_CUDA_ALLOC_CONF"));
    QCOMPARE(QString::fromStdString(d.context[0].b), QString("expandable_segments:True"));
    QCOMPARE(QString::fromStdString(d.context[1].what), QString("allocator: expandable_segments"));
    QCOMPARE(QString::fromStdString(d.context[1].a), QString("false"));
    QVERIFY(d.sites.empty()); // the same program: no site differs
    QCOMPARE(d.b.peak, d.a.peak);
}

void TestCompare::diffTreeNests() {
    Loop pa, pb;
    pa.leakPerStep = 2 * MiB, pb.cachePerStep = MiB;
    const CaptureDiff d = compareCaptures(wholeDevice(*build(pa), 0), wholeDevice(*build(pb), 0));
    const DiffTree t = DiffTree::build(d.stacks, true);
    QCOMPARE(t.node(0).weight, uint64_t(30 * MiB)); // 20 MiB removed + 10 MiB added
    QCOMPARE(t.node(0).delta(), d.b.live - d.a.live);
    for (uint32_t i = 0; i < t.size(); ++i) {
        uint64_t below = 0;
        for (uint32_t k : t.node(i).children) {
            below += t.node(k).weight;
            QCOMPARE(t.node(k).parent, i);
        }
        QVERIFY(below <= t.node(i).weight);
    }
    // both stacks go through main > train_step: one child of the root, then two branches
    QCOMPARE(t.node(0).children.size(), size_t(1));
    const DiffNode& main = t.node(t.node(0).children[0]);
    QCOMPARE(QString::fromStdString(main.frame), QString("main (train.py:50)"));
    QCOMPARE(main.delta(), int64_t(-10 * MiB));
}

void TestCompare::againstACaptureWithoutDevices() {
    Loop pa;
    pa.leakPerStep = 2 * MiB;
    const auto a = build(pa), none = CaptureAnalysis::analyse(std::make_unique<Capture>());
    QCOMPARE(none->deviceCount(), size_t(0));
    const CaptureDiff d = compareCaptures(wholeDevice(*a, 0), wholeDevice(*none, longestDevice(*none)));
    QCOMPARE(d.b.live, int64_t(0));
    QCOMPARE(d.b.events, size_t(0));
    QVERIFY(d.a.live > 0);
    QVERIFY(!d.sites.empty());
    for (const DiffRow& r : d.sites) QCOMPARE(int(r.change), int(DiffChange::Removed));
    QCOMPARE(sumOf(d.sites, &DiffRow::liveDelta), -d.a.live);
}

void TestCompare::sixtyFourRanksOneOutlier() {
    RankSet set;
    for (int r = 0; r < 64; ++r) {
        Loop p;
        p.temporary = 8 * MiB + uint64_t(r % 4) * 512 * 1024; // small differences between ranks
        if (r == 37) p.leakPerStep = 2 * MiB;
        set.ranks.push_back(rankOf(p, 63 - r)); // given out of order
    }
    finishRankSet(set);
    QCOMPARE(set.ranks.front().rank, 0);
    QCOMPARE(set.ranks.back().rank, 63);
    QCOMPARE(set.outliers.size(), size_t(1));
    const RankOutlier& o = set.outliers[0];
    QCOMPARE(set.ranks[o.index].rank, 63 - 37);
    QVERIFY(o.growth);
    QCOMPARE(set.ranks[o.index].growth, int64_t(16 * MiB)); // start of step 10 minus end of step 1
    QCOMPARE(set.medianGrowth, int64_t(0));
    QVERIFY2(o.sentence.rfind("rank 26: ", 0) == 0, o.sentence.c_str());
    QVERIFY2(o.sentence.find("grows by 16.00 MiB") != std::string::npos, o.sentence.c_str());
    // the heatmap row: the leaking rank's highest slice is its peak
    const RankSummary& leaky = set.ranks[o.index];
    QCOMPARE(*std::max_element(leaky.binAllocated.begin(), leaky.binAllocated.end()), leaky.peakAllocated);
    QCOMPARE(leaky.stepPeak.size(), size_t(10));
}

void TestCompare::equalRanksFlagNothing() {
    RankSet set;
    for (int r = 0; r < 8; ++r) {
        Loop p;
        p.temporary = 8 * MiB + uint64_t(r) * 64 * 1024;
        set.ranks.push_back(rankOf(p, r));
    }
    finishRankSet(set);
    QVERIFY(set.outliers.empty());
}

void TestCompare::longRunsKeepBoundedSummaries() {
    // 10,000 iterations: kept as 2,500 slots of 4, each the highest of its iterations' own peaks
    Loop p;
    p.steps = 10000, p.leakPerStep = 512, p.temporary = MiB;
    auto a = build(p);
    const RankSummary s = summariseRank(*a);
    QCOMPARE(s.iterations, size_t(10000));
    QCOMPARE(s.stepsPerSlot, 4u);
    QCOMPARE(s.stepPeak.size(), size_t(2500));
    QCOMPARE(s.stepUs.size(), size_t(2500));
    const auto& raw = compareCaptures(wholeDevice(*a, 0), wholeDevice(*a, 0)).iterations.a;
    QCOMPARE(raw.count(), size_t(10000));
    for (size_t k = 0; k < s.stepPeak.size(); ++k) {
        QCOMPARE(s.stepPeak[k],
                 *std::max_element(raw.peak.begin() + long(4 * k), raw.peak.begin() + long(4 * k + 4)));
        QCOMPARE(s.stepUs[k], a->trace(0).timeUs[raw.starts[4 * k]]);
    }
    QVERIFY(s.stepPeak.back() > s.stepPeak.front()); // the leak shows through the slots
}

void TestCompare::ranksFromFilesInParallel() {
    QTemporaryDir dir;
    for (int r = 0; r < 8; ++r) {
        Loop p;
        if (r == 5) p.leakPerStep = 4 * MiB;
        auto a = build(p);
        writeVscapFile(a->capture(), dir.filePath(QString("snapshot_rank%1.vscap").arg(r)).toStdString());
    }
    std::ofstream(dir.filePath("rank10.pickle").toStdString()) << "not a pickle";
    const auto files = rankFiles(dir.path().toStdString()).files;
    QCOMPARE(files.size(), size_t(9));
    QVERIFY(QString::fromStdString(files.back()).endsWith("rank10.pickle")); // by rank, not by name
    std::atomic<size_t> calls{0};
    RankLoadOptions o;
    o.threads = 3, o.progress = [&](size_t, size_t) { ++calls; };
    const RankSet set = loadRanks(files, o);
    QCOMPARE(calls.load(), size_t(9));
    QCOMPARE(set.ranks.size(), size_t(9));
    QCOMPARE(set.readable(), size_t(8));
    QCOMPARE(set.ranks.back().rank, 10);
    QVERIFY(!set.ranks.back().ok());
    QVERIFY(!set.ranks.back().error.empty());
    QCOMPARE(set.outliers.size(), size_t(1));
    QCOMPARE(set.ranks[set.outliers[0].index].rank, 5);
    QVERIFY(set.outliers[0].peak && set.outliers[0].growth);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, rankFiles(dir.filePath("missing").toStdString()));
    // files that name no rank come after the named ones, in the order given
    const auto copy = [&](int r, const char* name) {
        QFile::copy(dir.filePath(QString("snapshot_rank%1.vscap").arg(r)), dir.filePath(name));
        return dir.filePath(name).toStdString();
    };
    const RankSet mixed = loadRanks({copy(3, "b.vscap"), files[1], copy(4, "a.vscap")});
    QCOMPARE(mixed.ranks.size(), size_t(3));
    QCOMPARE(mixed.ranks[0].rank, 1);
    QVERIFY(QString::fromStdString(mixed.ranks[1].path).endsWith("b.vscap"));
    QCOMPARE(mixed.ranks[1].rank, 2);
    QCOMPARE(mixed.ranks[2].rank, 3);
}

void TestCompare::rankNumbersFromFileNames() {
    QCOMPARE(rankFromPath("/x/memory_snapshot_rank12.pickle"), 12);
    QCOMPARE(rankFromPath("RANK_03.vscap"), 3);
    QCOMPARE(rankFromPath("/ranks/rank-7/trace_rank7.pickle.gz"), 7);
    QCOMPARE(rankFromPath("snapshot.pickle"), -1);
    QCOMPARE(rankFromPath("ranking.pickle"), -1);
}

void TestCompare::baselineGateVerdicts() {
    // the run leaks 1 MiB a step: its peak is 10 MiB above the baseline's, and the gate says which site
    Loop base, run;
    run.leakPerStep = MiB;
    auto b = build(base), r = build(run);
    const int64_t basePeak = b->replay(0).peak.allocated, runPeak = r->replay(0).peak.allocated;
    QCOMPARE(runPeak - basePeak, int64_t(10 * MiB));
    const double pct = 100.0 * double(runPeak - basePeak) / double(basePeak);
    auto over = vs::baselineGate(*r, *b, pct - 1);
    QCOMPARE(over.size(), size_t(1));
    QVERIFY(over[0].failed);
    QCOMPARE(over[0].regressionPercent, pct);
    QVERIFY2(over[0].largestDifference.rfind("keep_output (train.py:77) holds 10.00 MiB more", 0) == 0,
             over[0].largestDifference.c_str());
    QVERIFY(!vs::baselineGate(*r, *b, pct + 1)[0].failed);
    QVERIFY(!vs::baselineGate(*b, *r, 0)[0].failed); // an improvement passes any limit
    QVERIFY(vs::baselineGate(*b, *r, 0)[0].regressionPercent < 0);
}

namespace {

QString realSample(const char* name) {
    return QString(VRAMSCOPE_SAMPLES_DIR "/../real/") + name;
}

struct Run {
    int code = -1;
    QByteArray out, err;
};

Run cli(const QStringList& args) {
    QProcess p;
    p.start(VRAMSCOPE_CLI, args);
    p.waitForFinished(120000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

QJsonObject truthOf(const char* name) {
    QFile f(realSample(name));
    f.open(QIODevice::ReadOnly);
    return QJsonDocument::fromJson(f.readAll()).object();
}

} // namespace

void TestCompare::cliCompareRealPair() {
    // samples/real: the word language model with its module-level CACHE (line 77 keeps what line 30
    // makes) against the same program without it, each recorded by vramscope's recorder
    const Run r =
        cli({"compare", realSample("word_lm_cache_leak.vscap"), realSample("word_lm_clean.vscap"), "--json"});
    QCOMPARE(r.code, 0);
    const QJsonObject d = QJsonDocument::fromJson(r.out).object();
    const QJsonObject leak = truthOf("word_lm_cache_leak.rec.truth.json"),
                      clean = truthOf("word_lm_clean.rec.truth.json");
    QCOMPARE(d["a"].toObject()["peak_allocated"].toInteger(), leak["max_allocated"].toInteger());
    QCOMPARE(d["b"].toObject()["peak_allocated"].toInteger(), clean["max_allocated"].toInteger());
    const QJsonObject top = d["sites"].toArray()[0].toObject();
    const QString line = QString("word_lm_cache.py:%1)").arg(leak["leak_lines"].toArray()[0].toInt());
    QVERIFY2(top["site"].toString().endsWith(line), qPrintable(top["site"].toString()));
    QCOMPARE(top["live_b"].toInteger(), 0);
    // the leak keeps one output per batch: 240 batches, aligned one to one
    const QJsonObject its = d["iterations"].toObject();
    QCOMPARE(its["count_a"].toInt(), leak["steps"].toArray().size());
    QCOMPARE(its["pairs"].toArray().size(), clean["steps"].toArray().size());
    QVERIFY(d["verdict"].toString().contains("the growth is gone"));
    // two ranges of one capture: the second half of the leaking run holds more than the first
    const Run halves =
        cli({"compare", realSample("word_lm_cache_leak.vscap"), realSample("word_lm_cache_leak.vscap"),
             "--a-range", "0:4", "--b-range", "5:9", "--json"});
    QCOMPARE(halves.code, 0);
    const QJsonObject h = QJsonDocument::fromJson(halves.out).object();
    QVERIFY(h["context"].toArray().isEmpty());
    QVERIFY(h["sites"].toArray()[0].toObject()["site"].toString().endsWith(line));
    QVERIFY(h["sites"].toArray()[0].toObject()["live_delta"].toInteger() > 0);
}

void TestCompare::cliBaselineExitCodes() {
    QTemporaryDir dir;
    const QString leak = realSample("word_lm_cache_leak.vscap"), clean = realSample("word_lm_clean.vscap");
    const QString junit = dir.filePath("gate.xml");
    Run r = cli({"check", leak, "--baseline", clean, "--max-peak-regression", "10", "--junit", junit});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.contains("FAIL: device 0: peak allocated"), r.out.constData());
    QVERIFY(r.out.contains("word_lm_cache.py:30"));
    QFile x(junit);
    QVERIFY(x.open(QIODevice::ReadOnly));
    QVERIFY(x.readAll().contains("failures=\"1\""));
    QCOMPARE(cli({"check", clean, "--baseline", leak, "--max-peak-regression", "10"}).code, 0);
    QCOMPARE(cli({"check", clean, "--baseline", clean, "--max-peak-regression", "0"}).code, 0);
    r = cli({"check", clean, "--baseline", dir.filePath("missing.pickle"), "--max-peak-regression", "10"});
    QCOMPARE(r.code, 2);
    QCOMPARE(r.err.count('\n'), 1);
    QCOMPARE(cli({"check", clean, "--baseline", leak}).code, 2);
    QCOMPARE(cli({"check", clean, "--baseline", leak, "--max-peak-regression", "-3"}).code, 2);
}

void TestCompare::cliRanks() {
    QTemporaryDir dir;
    for (int r = 0; r < 4; ++r) {
        Loop p;
        if (r == 2) p.leakPerStep = 4 * MiB;
        writeVscapFile(build(p)->capture(), dir.filePath(QString("rank%1.vscap").arg(r)).toStdString());
    }
    const Run r = cli({"ranks", dir.path(), "--json"});
    QCOMPARE(r.code, 0);
    const QJsonObject d = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(d["ranks"].toArray().size(), 4);
    QCOMPARE(d["outliers"].toArray().size(), 1);
    QCOMPARE(d["outliers"].toArray()[0].toObject()["rank"].toInt(), 2);
    QCOMPARE(d["ranks"].toArray()[2].toObject()["growth"].toInteger(), qint64(32 * MiB));
    const Run text =
        cli({"ranks", dir.filePath("rank0.vscap"), dir.filePath("rank2.vscap"), dir.filePath("rank1.vscap")});
    QCOMPARE(text.code, 0);
    QVERIFY2(text.out.contains("Outlier: rank 2: "), text.out.constData());
    QCOMPARE(cli({"ranks", dir.filePath("nothing-here")}).code, 2);
}

namespace {

// The GPU-recorded samples (samples/compare, samples/ranks: see their README) are xz-compressed;
// the readers take .gz and .zst, so they are unpacked to a temporary folder.
QString unpacked(const QTemporaryDir& dir, const QString& relative) {
    const QString from = QString(VRAMSCOPE_SAMPLES_DIR "/../") + relative;
    const QString to = dir.filePath(QString(relative).replace('/', '_').chopped(3));
    QProcess xz;
    xz.setStandardOutputFile(to);
    xz.start("xz", {"-dc", from});
    xz.waitForFinished(60000);
    return xz.exitCode() == 0 ? to : QString();
}

QJsonObject sampleTruth(const QString& relative) {
    QFile f(QString(VRAMSCOPE_SAMPLES_DIR "/../") + relative);
    f.open(QIODevice::ReadOnly);
    return QJsonDocument::fromJson(f.readAll()).object();
}

int64_t highestStepPeak(const QJsonObject& truth) {
    int64_t m = 0;
    for (const auto& s : truth["steps"].toArray()) m = std::max<int64_t>(m, s.toObject()["peak"].toInteger());
    return m;
}

} // namespace

void TestCompare::recordedBeforeAfter() {
    // keep_logits.py on an H200, before (keeps every step's logits on the GPU) and after the fix
    QTemporaryDir dir;
    const QString leakPath = unpacked(dir, "compare/keep_logits_leak.pickle.xz");
    const QString fixedPath = unpacked(dir, "compare/keep_logits_fixed.pickle.xz");
    QVERIFY(!leakPath.isEmpty() && !fixedPath.isEmpty());
    const QJsonObject tl = sampleTruth("compare/keep_logits_leak.truth.json");
    const QJsonObject tf = sampleTruth("compare/keep_logits_fixed.truth.json");
    auto a = openAnalysis(leakPath.toStdString()), b = openAnalysis(fixedPath.toStdString());
    const CaptureDiff d = compareCaptures(wholeDevice(*a, 0), wholeDevice(*b, 0));
    // the leaking site first: the line that makes the logits, held only in the leaking run
    const QString site = QString("forward (keep_logits.py:%1)").arg(tl["leak_lines"].toArray()[0].toInt());
    QCOMPARE(QString::fromStdString(std::string(d.sites.front().site)), site);
    QCOMPARE(d.sites.front().liveB, int64_t(0));
    // each step keeps one block: what memory_allocated() gains from one step to the next (16 MiB: the
    // 15.6 MiB of logits in a block the allocator did not split)
    const QJsonArray steps = tl["steps"].toArray();
    const int64_t perStep =
        steps[2].toObject()["allocated"].toInteger() - steps[1].toObject()["allocated"].toInteger();
    QCOMPARE(d.sites.front().liveA, steps.size() * perStep);
    // aligned by the numbered record_function of each step; every step's peak and its allocated
    // at the step's end are PyTorch's own (max_memory_allocated since reset, memory_allocated);
    // the last iteration runs on to the dump, so its live bytes are the final ones
    const auto& al = d.iterations;
    QVERIFY(al.byNumber);
    const QJsonArray sl = tl["steps"].toArray(), sf = tf["steps"].toArray();
    QCOMPARE(al.pairs.size(), size_t(sl.size()));
    for (size_t k = 0; k < al.pairs.size(); ++k) {
        const auto [i, m] = al.pairs[k];
        QCOMPARE(al.a.numbers[i], sl[int(k)].toObject()["step"].toInteger());
        QCOMPARE(al.a.peak[i], sl[int(k)].toObject()["peak"].toInteger());
        QCOMPARE(al.b.peak[m], sf[int(k)].toObject()["peak"].toInteger());
        QCOMPARE(al.a.live[i], sl[int(k)].toObject()["allocated"].toInteger());
        QCOMPARE(al.b.live[m], sf[int(k)].toObject()["allocated"].toInteger());
    }
    QCOMPARE(d.a.peak, highestStepPeak(tl));
    QCOMPARE(d.b.peak, highestStepPeak(tf));
    QCOMPARE(d.a.live, tl["final_allocated"].toInteger());
    QCOMPARE(d.b.live, tf["final_allocated"].toInteger());
    QVERIFY2(d.verdict.find("the growth is gone") != std::string::npos, d.verdict.c_str());
    // the argument that differs is said; nothing else about the setting does
    QCOMPARE(d.context.size(), size_t(0));
}

void TestCompare::recordedRanks() {
    // ddp_leak.py: DistributedDataParallel, every rank recorded by PyTorch's history; in ddp4 rank 2
    // keeps each step's output, in ddp2 rank 1 (gloo, all ranks on the one GPU there was)
    for (const auto& [folder, ranks, leaky] :
         {std::tuple{"ranks/ddp4", 4, 2}, std::tuple{"ranks/ddp2", 2, 1}}) {
        QTemporaryDir dir;
        std::vector<std::string> files;
        for (int r = 0; r < ranks; ++r) {
            const QString f = unpacked(dir, QString("%1/rank%2.pickle.xz").arg(folder).arg(r));
            QVERIFY(!f.isEmpty());
            files.push_back(f.toStdString());
        }
        const RankSet set = loadRanks(files);
        QCOMPARE(set.ranks.size(), size_t(ranks));
        for (const RankSummary& r : set.ranks) {
            const QJsonObject t = sampleTruth(QString("%1/rank%2.truth.json").arg(folder).arg(r.rank));
            QCOMPARE(t["rank"].toInt(), r.rank);
            QCOMPARE(r.peakAllocated, highestStepPeak(t));
            QCOMPARE(r.finalAllocated, t["final_allocated"].toInteger());
            QCOMPARE(r.stepPeak.size(), size_t(t["steps"].toArray().size()));
            const QJsonArray steps = t["steps"].toArray();
            for (size_t k = 0; k + 1 < r.stepPeak.size(); ++k)
                QCOMPARE(r.stepPeak[k], steps[int(k)].toObject()["peak"].toInteger());
            // the program never empties the cache, so reserved only grows (checked on PyTorch's own
            // figures): a step's highest reserved is what PyTorch said at its end
            for (size_t k = 0; k + 1 < r.stepPeakReserved.size(); ++k) {
                if (k > 0)
                    QVERIFY(steps[int(k)].toObject()["reserved"].toInteger() >=
                            steps[int(k) - 1].toObject()["reserved"].toInteger());
                QCOMPARE(r.stepPeakReserved[k], steps[int(k)].toObject()["reserved"].toInteger());
            }
        }
        QCOMPARE(set.outliers.size(), size_t(1));
        QCOMPARE(set.ranks[set.outliers[0].index].rank, leaky);
        QVERIFY(set.outliers[0].growth);
        QVERIFY2(set.outliers[0].sentence.rfind("rank " + std::to_string(leaky) + ": ", 0) == 0,
                 set.outliers[0].sentence.c_str());
    }
}

void TestCompare::recordedBaselineGate() {
    QTemporaryDir dir;
    const QString leak = unpacked(dir, "compare/keep_logits_leak.pickle.xz");
    const QString fixed = unpacked(dir, "compare/keep_logits_fixed.pickle.xz");
    QCOMPARE(cli({"check", leak, "--baseline", fixed, "--max-peak-regression", "50"}).code, 1);
    QCOMPARE(cli({"check", leak, "--baseline", fixed, "--max-peak-regression", "250"}).code, 0); // +208 %
    QCOMPARE(cli({"check", fixed, "--baseline", leak, "--max-peak-regression", "0"}).code, 0);
}

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
