// Leak hunting: survivors of a range at its edges on hand-built allocations, ranking by steadiness,
// and the diagnosis of every bundled sample against what its scenario does (kind, leaking line).
#include "TestData.h"
#include "analysis/growth/Iterations.h"
#include "analysis/growth/LeakDiagnosis.h"
#include "analysis/replay/LifetimeIndex.h"
#include "analysis/stacks/CallTree.h"
#include "analysis/stacks/FrameFilter.h"
#include "analysis/stacks/StackAllocations.h"
#include "load/OpenAnalysis.h"

#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <random>
#include <set>

using namespace vs;

class TestLeaks : public QObject {
    Q_OBJECT
  private slots:
    void survivorsAtRangeEdges();
    void steadySmallGroupOutranksBigChurn();
    void netDeltaBetweenTwoMoments();
    void indexesAgreeWithScans();
    void samplesDiagnosis_data();
    void samplesDiagnosis();
    void checkGatesGrowth();
    void iterationsFromAnnotationsExcludeWarmUp();
    void callTreeFoldsLibraryFrames();
};

namespace {
Allocation alloc(uint32_t at, uint32_t freedAt, uint64_t bytes, uint32_t stack,
                 uint32_t completedAt = kNoEvent) {
    return {at, freedAt, completedAt == kNoEvent ? freedAt : completedAt, StackId{stack}, bytes};
}
} // namespace

void TestLeaks::survivorsAtRangeEdges() {
    const std::vector<Allocation> all{
        alloc(5, kNoEvent, 100, 1),  // before the range: not a survivor of it
        alloc(10, kNoEvent, 200, 2), // allocated exactly at the range start: counts
        alloc(12, 20, 300, 3),       // freed exactly at the range end: gone
        alloc(13, 21, 400, 3),       // freed after the range end: alive at its end
        alloc(14, 18, 500, 4,
              30), // free requested inside the range, completion pending: not allocated any more
        alloc(20, kNoEvent, 600, 2), // allocated exactly at the range end: counts
        alloc(21, kNoEvent, 700, 5), // after the range
    };
    auto groups = survivors(all, {10, 20, false}, 40);
    std::map<uint32_t, std::pair<uint64_t, uint32_t>> got;
    for (const auto& g : groups) got[g.stack.value] = {g.bytes, g.count};
    const std::map<uint32_t, std::pair<uint64_t, uint32_t>> want{{2, {800, 2}}, {3, {400, 1}}};
    QCOMPARE(got, want);
    QCOMPARE(groups.front().stack.value, 2u); // largest first
    // alive at the end of the capture instead: the one freed at 21 is gone
    groups = survivors(all, {10, 20, true}, 40);
    got.clear();
    for (const auto& g : groups) got[g.stack.value] = {g.bytes, g.count};
    QCOMPARE(got, (std::map<uint32_t, std::pair<uint64_t, uint32_t>>{{2, {800, 2}}}));
}

void TestLeaks::steadySmallGroupOutranksBigChurn() {
    std::vector<Allocation> all;
    for (uint32_t i = 0; i < 100; ++i) {
        all.push_back(alloc(i * 10, kNoEvent, 512, 7));              // 512 B kept every step
        all.push_back(alloc(i * 10 + 1, i * 10 + 5, 1ull << 30, 8)); // 1 GiB churn, freed each step
    }
    all.push_back(alloc(995, kNoEvent, 2ull << 30, 9)); // one big block at the very end
    auto groups = survivors(all, {0, 999, false}, 1000);
    QCOMPARE(groups.size(), size_t(2));
    const auto steady =
        std::find_if(groups.begin(), groups.end(), [](auto& g) { return g.stack.value == 7; });
    QCOMPARE(steady->coverage, kSlices);
    QVERIFY(isSteady(*steady));
    QVERIFY(
        !isSteady(*std::find_if(groups.begin(), groups.end(), [](auto& g) { return g.stack.value == 9; })));
}

void TestLeaks::netDeltaBetweenTwoMoments() {
    const std::vector<Allocation> all{
        alloc(1, kNoEvent, 100, 1),  // alive at both: no change
        alloc(2, 15, 200, 2),        // alive at 10, gone at 20: -200
        alloc(12, kNoEvent, 300, 3), // made inside, alive at 20: +300
        alloc(13, 18, 400, 3),       // made and freed inside: no change
        alloc(14, kNoEvent, 50, 2),  // +50 for stack 2: net -150
    };
    const auto d = netDelta(all, 10, 20);
    QCOMPARE(d.size(), size_t(2));
    QCOMPARE(d[0].stack.value, 3u);
    QCOMPARE(d[0].bytes, int64_t(300));
    QCOMPARE(d[0].count, 1);
    QCOMPARE(d[1].stack.value, 2u);
    QCOMPARE(d[1].bytes, int64_t(-150));
    QCOMPARE(d[1].count, 0);
}

// The per-device indexes a click uses instead of passes over every allocation (LifetimeIndex,
// StackAllocations, iterationsMaking) give exactly what those passes give, on random lifetimes of
// every length (temporaries, long-lived, never freed, a free at the alloc event itself).
void TestLeaks::indexesAgreeWithScans() {
    std::mt19937 rng(19);
    std::vector<Allocation> all;
    const uint32_t n = 20000;
    for (uint32_t e = 0; e < n; e += 1 + rng() % 3) {
        const uint32_t kind = rng() % 10;
        const uint32_t life = kind < 6 ? rng() % 8 : kind < 8 ? rng() % 600 : kind < 9 ? rng() % 15000 : n;
        const uint32_t freed = kind == 9 || e + life >= n ? kNoEvent : e + life;
        all.push_back(alloc(e, freed, 1 + rng() % 4096, rng() % 40));
    }
    const LifetimeIndex byLifetime(all);
    for (int q = 0; q < 400; ++q) {
        uint32_t first = rng() % n, last = rng() % n;
        if (first > last) std::swap(first, last);
        const uint32_t until = q % 2 ? last : n - 1;
        std::vector<uint32_t> scanned;
        for (uint32_t i = 0; i < all.size(); ++i)
            if (all[i].alloc >= first && all[i].alloc <= last && all[i].aliveAt(until)) scanned.push_back(i);
        QCOMPARE(byLifetime.aliveAt(all, first, last, until), scanned);
        const auto viaIndex = groupSurvivors(all, scanned, {first, last, q % 2 == 0});
        const auto viaScan = survivors(all, {first, last, q % 2 == 0}, n);
        QCOMPARE(viaIndex.size(), viaScan.size());
        for (size_t g = 0; g < viaScan.size(); ++g) QCOMPARE(viaIndex[g].allocations, viaScan[g].allocations);
    }
    for (uint64_t life : {0ull, 1ull, 7ull, 8ull, 500ull, 4096ull, 14000ull, 1ull << 40}) {
        std::set<uint32_t> stacks;
        for (const Allocation& x : all)
            if (x.freeRequested != kNoEvent && x.freeRequested - x.alloc >= life)
                stacks.insert(x.stack.value);
        QCOMPARE(byLifetime.stacksFreedAfter(all, life), std::vector<uint32_t>(stacks.begin(), stacks.end()));
    }
    const StackAllocations byStack(all);
    std::vector<uint32_t> starts;
    for (uint32_t e = 50; e < n; e += 97) starts.push_back(e);
    for (uint32_t s = 0; s < 42; ++s) {
        std::vector<uint32_t> mine;
        std::set<size_t> iterations, iterationsAfterFirst;
        for (uint32_t i = 0; i < all.size(); ++i)
            if (all[i].stack.value == s) {
                mine.push_back(i);
                const auto k =
                    size_t(std::upper_bound(starts.begin(), starts.end(), all[i].alloc) - starts.begin());
                iterations.insert(k);
                if (k > 0) iterationsAfterFirst.insert(k);
            }
        const auto of = byStack.of(StackId{s});
        QCOMPARE(std::vector<uint32_t>(of.begin(), of.end()), mine);
        QCOMPARE(iterationsMaking(all, mine, starts, true), iterations.size());
        QCOMPARE(iterationsMaking(all, mine, starts, false), iterationsAfterFirst.size());
    }
}

void TestLeaks::samplesDiagnosis_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("kinds");
    QTest::newRow("clean loop") << "clean_loop" << QStringList{"none"};
    // a list appended every step and cleared at step 6: memory kept over 7 steps, released together
    QTest::newRow("expandable, a list cleared twice") << "expandable" << QStringList{"accumulation"};
    QTest::newRow("leak") << "leak_list" << QStringList{"leak"};
    QTest::newRow("leak, cut history") << "leak_cut" << QStringList{"leak"};
    QTest::newRow("oom") << "oom" << QStringList{"oom"};
    QTest::newRow("side stream") << "side_stream" << QStringList{"none", "deferred_free"};
    QTest::newRow("mixed sizes") << "mixed_sizes" << QStringList{"cache", "fragmentation"};
    QTest::newRow("stacks=all") << "stacks_all" << QStringList{"none"};
}

void TestLeaks::samplesDiagnosis() {
    QFETCH(QString, name);
    QFETCH(QStringList, kinds);
    const auto a = openAnalysis(vs::test::samplePath(name));
    const LeakReport rep = diagnoseLeaks(*a, 0);
    QVERIFY2(kinds.contains(QString::fromLatin1(leakKindName(rep.kind).data())), rep.summary.c_str());
    QVERIFY(!rep.summary.empty() && !rep.nextStep.empty());
    const QJsonObject truth = vs::test::sampleTruth(name);
    if (rep.kind == LeakKind::None) {
        QCOMPARE(rep.growthBytes, uint64_t(0)); // a clean run raises no alarm
        return;
    }
    if (rep.kind != LeakKind::Leak && rep.kind != LeakKind::Oom) return;
    // the first group holds the line marked LEAK-SITE in the scenario that made the sample
    QVERIFY(!rep.groups.empty());
    QSet<int> lines;
    for (const auto& v : truth["leak_site_lines"].toArray()) lines << v.toInt();
    const Capture& c = a->capture();
    bool found = false;
    for (FrameId f : c.stacks.frames(rep.groups.front().stack))
        found |= c.strings.text(c.frames[f].filename).ends_with("make_samples.py") &&
                 lines.contains(int(c.frames[f].line));
    QVERIFY2(found, rep.summary.c_str());
    QVERIFY(rep.growthBytes > 0);
}

void TestLeaks::checkGatesGrowth() {
    auto run = [](const QStringList& args) {
        QProcess p;
        p.start(QStringLiteral(VRAMSCOPE_CLI), args);
        p.waitForFinished(60000);
        return std::make_pair(p.exitCode(), p.readAllStandardOutput());
    };
    const QString leak = QString::fromStdString(vs::test::samplePath("leak_list"));
    const QString clean = QString::fromStdString(vs::test::samplePath("clean_loop"));
    QTemporaryDir dir;
    const QString junit = dir.filePath("check.xml");
    auto [failCode, failOut] = run({"check", leak, "--max-growth", "1000", "--junit", junit});
    QCOMPARE(failCode, 1);
    QVERIFY(failOut.contains("FAIL"));
    QVERIFY(failOut.contains("make_samples.py")); // the top groups are in the output
    QFile x(junit);
    QVERIFY(x.open(QIODevice::ReadOnly));
    QVERIFY(x.readAll().contains("<failure"));
    QCOMPARE(run({"check", leak, "--max-growth", "1e12"}).first, 0);
    QCOMPARE(run({"check", clean, "--max-growth", "0"}).first, 0);
    QCOMPARE(run({"check", clean}).first, 2); // a limit is required
    // sizes as --max-memory takes them: the leak keeps 7.50 KiB
    QCOMPARE(run({"check", leak, "--max-growth", "7K"}).first, 1);
    QCOMPARE(run({"check", leak, "--max-growth", "8KiB"}).first, 0);
    QCOMPARE(run({"check", leak, "--max-growth", "8X"}).first, 2);
    // accumulations count as growth; the peak gate compares consecutive iterations' peaks
    const QString acc = QString::fromStdString(vs::test::samplePath("expandable"));
    auto [accCode, accOut] = run({"check", acc, "--max-growth", "1000000"});
    QCOMPARE(accCode, 1);
    QVERIFY(accOut.contains("accumulation"));
    // the sites under the verdict sum what the gate counted: the region's own blocks
    const QStringList accLines = QString::fromUtf8(accOut).split('\n');
    const QString counted =
        accLines[0].section(QStringLiteral("growth "), 1).section(QStringLiteral(" ("), 0, 0);
    QVERIFY2(accLines.size() > 1 && accLines[1].startsWith("  " + counted + " from expandable"),
             accOut.constData());
    QCOMPARE(run({"check", acc, "--max-peak-growth", "0.5"}).first, 1); // 81.2 -> 83.8 MiB: 3.1 %
    QCOMPARE(run({"check", acc, "--max-peak-growth", "5"}).first, 0);
    QCOMPARE(run({"check", clean, "--max-peak-growth", "0"}).first, 0);
    QCOMPARE(run({"check", clean, "--max-peak-growth", "-1"}).first, 2);
    // regions: the accumulation, released at the step that clears the list, explained by the diagnosis
    const auto accJson = QJsonDocument::fromJson(run({"leaks", acc, "--json"}).second).object();
    const auto regions = accJson["regions"].toArray();
    QCOMPARE(regions.size(), 1);
    const auto r0 = regions[0].toObject();
    QCOMPARE(r0["kind"].toString(), QString("accumulation"));
    QCOMPARE(r0["blocks"].toInt(), 7);
    QVERIFY(r0["released_at_s"].toDouble() >= r0["to_s"].toDouble());
    QCOMPARE(r0["top_groups"].toArray()[0].toObject()["site"].toObject()["line"].toInt(), 139);
    for (const char* k : {"from_s", "scale", "growth_bytes", "per_iteration_bytes", "iterations",
                          "released_by", "cost_bytes"})
        QVERIFY2(r0.contains(k), k);
    QCOMPARE(accJson["diagnosis"].toObject()["region"].toInt(), 0);
    const auto leakRegions =
        QJsonDocument::fromJson(run({"leaks", leak, "--json"}).second).object()["regions"].toArray();
    QCOMPARE(leakRegions[0].toObject()["kind"].toString(), QString("leak"));
    QVERIFY(leakRegions[0].toObject()["released_at_s"].isNull());
    auto [code, json] = run({"leaks", leak, "--json"});
    QCOMPARE(code, 0);
    const auto doc = QJsonDocument::fromJson(json).object();
    QCOMPARE(doc["diagnosis"].toObject()["kind"].toString(), QString("leak"));
    for (const char* k : {"from_s", "to_s", "auto"}) QVERIFY(doc["window"].toObject().contains(k));
    // by site: every surviving byte is in exactly one site, as in exactly one stack group
    const auto all =
        QJsonDocument::fromJson(run({"leaks", leak, "--json", "--groups", "100000"}).second).object();
    const auto sites = all["sites"].toArray();
    QVERIFY(!sites.isEmpty());
    QVERIFY(sites.size() <= all["groups"].toArray().size());
    qint64 bySite = 0, byStack = 0;
    for (const auto& s : sites) bySite += qint64(s.toObject()["bytes"].toDouble());
    for (const auto& s : all["groups"].toArray()) byStack += qint64(s.toObject()["bytes"].toDouble());
    QCOMPARE(bySite, byStack);
    QVERIFY(sites[0].toObject()["site"].toObject().contains("line"));
    const auto g = doc["groups"].toArray()[0].toObject();
    for (const char* k : {"bytes", "count", "site", "frames"}) QVERIFY(g.contains(k));
    // an explicit range: the leaked losses made in the first second survive it
    auto [code2, json2] = run({"leaks", leak, "--from", "0", "--to", "1", "--json"});
    QCOMPARE(code2, 0);
    QCOMPARE(QJsonDocument::fromJson(json2).object()["window"].toObject()["auto"].toBool(), false);
    // second mode: what is still alive at the end of the capture (the kept losses of leak_list are)
    auto [code3, json3] = run({"leaks", leak, "--from", "0", "--to", "1", "--alive-at-end", "--json"});
    QCOMPARE(code3, 0);
    const auto end = QJsonDocument::fromJson(json3).object();
    QVERIFY(end["window"].toObject()["alive_at_end"].toBool());
    const auto atEnd = end["groups"].toArray(),
               atWindowEnd = QJsonDocument::fromJson(json2).object()["groups"].toArray();
    QVERIFY(atEnd.size() <= atWindowEnd.size()); // freed after the window: no longer survivors
}

// A long first step (warm-up: 100 parameters made one by one, with temporaries between them) and
// 20 short steps marked by record_function annotations. Counted in equal slices of the events the
// parameters look like steady growth; counted in iterations they are warm-up, made in one step.
namespace {
std::unique_ptr<Capture> warmUpCapture(bool annotated) {
    auto c = std::make_unique<Capture>();
    c->internStream(0);
    auto stackOf = [&](const char* fn, uint32_t line) {
        const FrameId f =
            c->frames.intern({c->strings.intern(fn), c->strings.intern("/home/me/train.py"), line});
        return c->stacks.intern(std::vector<FrameId>{f});
    };
    const StackId param = stackOf("build_model", 10), temp = stackOf("step", 20);
    DeviceTrace& t = c->devices.emplace_back();
    int64_t now = 1'000'000;
    auto event = [&](Action a, uint64_t addr, uint64_t size, StackId s) {
        t.timeUs.push_back(now += 10), t.addr.push_back(addr), t.size.push_back(size);
        t.action.push_back(a), t.stream.push_back(StreamId{0}), t.stack.push_back(s);
    };
    auto step = [&](int temporaries) {
        c->annotations.push_back({0, now + 5, true, c->strings.intern("ProfilerStep")});
        for (int k = 0; k < temporaries; ++k) {
            event(Action::Alloc, 0x200000000, 4 << 20, temp);
            event(Action::FreeRequested, 0x200000000, 4 << 20, temp);
            event(Action::FreeCompleted, 0x200000000, 4 << 20, temp);
        }
    };
    event(Action::SegmentAlloc, 0x100000000, 400 << 20, param);
    event(Action::SegmentAlloc, 0x200000000, 64 << 20, temp);
    c->annotations.push_back({0, now + 5, true, c->strings.intern("ProfilerStep")});
    for (int p = 0; p < 100; ++p) { // the warm-up step
        event(Action::Alloc, 0x100000000 + uint64_t(p) * (4 << 20), 4 << 20, param);
        step(0), c->annotations.pop_back(); // temporaries between parameters, same step
        for (int k = 0; k < 3; ++k) {
            event(Action::Alloc, 0x200000000, 4 << 20, temp);
            event(Action::FreeRequested, 0x200000000, 4 << 20, temp);
            event(Action::FreeCompleted, 0x200000000, 4 << 20, temp);
        }
    }
    // The loop runs longer than the model took to load, as real ones do: a load of 100 parameters
    // that were most of the trace would look, by memory alone, like a leak over it.
    for (int s = 0; s < 400; ++s) step(2);
    if (!annotated) c->annotations.clear();
    return c;
}
} // namespace

void TestLeaks::iterationsFromAnnotationsExcludeWarmUp() {
    // without annotations the repeating temporaries mark the iterations instead
    const auto plain = CaptureAnalysis::analyse(warmUpCapture(false));
    const LeakReport plainReport = diagnoseLeaks(*plain, 0);
    QVERIFY(plainReport.iterations >= 3);
    QCOMPARE(plainReport.iterationMarker, std::string("step (train.py:20)"));
    QCOMPARE(plainReport.kind, LeakKind::None);
    const auto withAnnotations = CaptureAnalysis::analyse(warmUpCapture(true));
    const LeakReport rep = diagnoseLeaks(*withAnnotations, 0);
    QVERIFY2(rep.iterations >= 3, "the annotation marks the iterations");
    QCOMPARE(rep.iterationMarker, std::string("ProfilerStep"));
    QCOMPARE(rep.kind, LeakKind::None);
    QCOMPARE(rep.growthBytes, uint64_t(0));
}

void TestLeaks::callTreeFoldsLibraryFrames() {
    Capture c;
    auto frame = [&](const char* fn, const char* file) {
        return c.frames.intern({c.strings.intern(fn), c.strings.intern(file), 1});
    };
    const FrameId empty = frame("empty", "/venv/lib/python3.12/site-packages/torch/nn/functional.py");
    const FrameId step = frame("training_step", "/home/me/lit.py");
    const FrameId loop = frame("fit_loop", "/venv/lib/python3.12/site-packages/lightning/fit.py");
    const FrameId runpy = frame("_run_code", "<frozen runpy>");
    const FrameId hook = frame("hook", "/venv/lib/python3.12/site-packages/transformers/trainer.py");
    const StackId mine = c.stacks.intern(std::vector<FrameId>{empty, step, loop, runpy});
    const StackId theirs = c.stacks.intern(std::vector<FrameId>{empty, hook, runpy}); // no user frame
    const std::vector<SurvivorGroup> groups{{.stack = mine, .bytes = 300, .count = 3, .allocations = {}},
                                            {.stack = theirs, .bytes = 100, .count = 1, .allocations = {}}};
    auto pathsOf = [&](const CallTree& t) {
        QStringList out; // every leaf's path from the root, bottom-up order of the tree
        for (uint32_t i = 1; i < t.size(); ++i) {
            if (!t.node(i).children.empty()) continue;
            QStringList path;
            for (uint32_t at = i; at != 0; at = t.node(at).parent)
                path.prepend(QString::fromUtf8(c.strings.text(c.frames[t.node(at).frame].name).data()));
            out << path.join('>');
        }
        out.sort();
        return out;
    };
    const auto all = CallTree::build(c, groups, CallTree::Direction::TopDown, true);
    QCOMPARE(pathsOf(all), (QStringList{"_run_code>fit_loop>training_step>empty", "_run_code>hook>empty"}));
    const auto folded = CallTree::build(c, groups, CallTree::Direction::TopDown, true, true);
    // the user's frame alone; a stack without one keeps its allocation site (the innermost library frame)
    QCOMPARE(pathsOf(folded), (QStringList{"empty", "training_step"}));
    QCOMPARE(folded.node(0).bytes, uint64_t(400));
    // the recorder that ran the program is plumbing, wherever it is installed
    QCOMPARE(classifyFrame("main", "/tmp/vramscope-pkg/vramscope/__main__.py"), FrameKind::Internal);
    QCOMPARE(classifyFrame("main", "/home/me/train.py"), FrameKind::User);
}

QTEST_GUILESS_MAIN(TestLeaks)
#include "tst_leaks.moc"
