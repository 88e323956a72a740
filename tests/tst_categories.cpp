// What the memory is made of (issue 17), on real recordings made with both levels on an H200
// (samples/categories/record.sh): the categories against what each program computed about itself,
// PyTorch's part against memory_reserved(), the libraries outside PyTorch, the gap against NVML,
// and the extension's leak at its line on the CUDA level.
#include "TestData.h"
#include "analysis/categories/GraphPoolUse.h"
#include "analysis/categories/PhaseWindows.h"
#include "analysis/composition/Composition.h"
#include "analysis/growth/LeakDiagnosis.h"
#include "analysis/replay/Replay.h"
#include "io/CaptureFile.h"
#include "io/LoadError.h"
#include "io/VscapEncode.h"
#include "io/VscapEvents.h"
#include "io/VscapReader.h"
#include "io/VscapWriter.h"
#include "load/OpenAnalysis.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

using namespace vs;

namespace {

QString dir() {
    return vs::test::samplesDir() + QStringLiteral("/../categories/");
}

std::shared_ptr<const CaptureAnalysis> open(const QString& name) {
    return openAnalysis((dir() + name + QStringLiteral(".vscap")).toStdString());
}

QJsonObject truth(const QString& name) {
    QFile f(dir() + name + QStringLiteral(".truth.json"));
    if (!f.open(QIODevice::ReadOnly)) qFatal("no truth file");
    return QJsonDocument::fromJson(f.readAll()).object();
}

int64_t markTime(const CaptureAnalysis& a, const char* name) {
    for (const auto& n : a.capture().annotations)
        if (n.start && a.capture().strings.text(n.name) == name) return n.timeUs;
    return -1;
}

int64_t size(const QJsonObject& categories, const char* name, const char* field = "bytes") {
    return categories[QLatin1String(name)].toObject()[QLatin1String(field)].toInteger();
}

// A PyTorch recorder's part, then the CUDA level after a Part record, each with ids from 1: what
// `record --native` writes. `partAlone`: the Part closes its chunk (a writer that does not is refused).
std::string twoLevels(bool partAlone) {
    using namespace vs::vscap;
    std::string out;
    Writer w([&](std::string_view s) { out.append(s); }, Writer::Options{Codec::None, 0, 1 << 20, 1 << 16});
    auto part = [&](const char* file, uint64_t addr, uint64_t size) {
        w.write(StringRecord{file}), w.write(StringRecord{"f"}); // strings 1, 2
        w.write(FrameRecord{2, 1, 7});                           // frame 0
        const uint64_t frames[] = {0};
        w.write(StackRecord{frames}); // stack 1
        w.write(StreamRecord{0});
        const EventFields ev[] = {{1000, addr, size, Action::SegmentAlloc, 0, 1},
                                  {1001, addr, size, Action::Alloc, 0, 1}};
        writeEventsBody(w.beginRecord(Record::Events), 0, 2, [&](size_t i) { return ev[i]; });
        w.endRecord();
    };
    part("train.py", 0x7f0000000000, 2 << 20);
    w.write(EndRecord{});
    w.flush();
    w.write(PartRecord{});
    if (partAlone) w.flush();
    part("libcublas.so.13", 0x7f0010000000, 64 << 20);
    w.finish();
    return out;
}

} // namespace

class TestCategories : public QObject {
    Q_OBJECT
  private slots:
    // After the optimizer step the program summed its own parameters', gradients', optimizer
    // state's and batch's storages: the categories hold exactly those tensors.
    void categoriesAreWhatTheProgramComputed() {
        const auto a = open(QStringLiteral("resnet_both"));
        const QJsonObject at = truth(QStringLiteral("resnet_both"))[QLatin1String("at_step")].toObject();
        const QJsonObject cats = at[QLatin1String("categories")].toObject();
        const auto comp = Composition::compute(*a);
        QVERIFY(comp->categories().phases && comp->categories().tags);
        const int64_t t = markTime(*a, "truth");
        QVERIFY(t > 0);
        const CompositionAt c = comp->at(*a, 0, t, true);
        QCOMPARE(c.requested[size_t(Category::Parameter)], size(cats, "parameter"));
        QCOMPARE(c.requested[size_t(Category::Gradient)], size(cats, "gradient"));
        QCOMPARE(c.requested[size_t(Category::OptimizerState)], size(cats, "optimizer_state"));
        QCOMPARE(c.requested[size_t(Category::Input)], size(cats, "input"));
        // Blocks are the request rounded up, or larger when the allocator did not split the rest off.
        for (const Category k :
             {Category::Parameter, Category::Gradient, Category::OptimizerState, Category::Input})
            QVERIFY(c.categories[size_t(k)] >= c.requested[size_t(k)] &&
                    c.categories[size_t(k)] < 2 * c.requested[size_t(k)]);
        QCOMPARE(c.allocated, at[QLatin1String("memory_allocated")].toInteger());
        QCOMPARE(c.reserved, at[QLatin1String("memory_reserved")].toInteger());
        // one owner: the composition, the leak diagnosis' inputs and any later reader share the one
        // classification the analysis made, and the leak inputs' lifetimes are its pairs
        const auto shared = a->categories(0);
        QCOMPARE(comp->categories().devices[0].get(), shared.get());
        const LeakInputs in = prepareLeakInputs(*a, 0);
        QCOMPARE(in.categories.get(), shared.get());
        QCOMPARE(in.lifetimes().size(), pairAllocations(a->trace(0), a->replay(0)).size());
    }

    // A PyTorch snapshot has no tags or phase annotations: the same run with them taken out is
    // classified from its Python stacks alone (Module.to, forward, backward, optimizer), and still
    // finds the program's parameters (with the buffers) and its gradients and optimizer state.
    void snapshotCategoriesFromStacks() {
        auto capture = loadCaptureFile((dir() + QStringLiteral("resnet_both.vscap")).toStdString(), {});
        const QJsonObject cats = truth(QStringLiteral("resnet_both"))[QLatin1String("at_step")]
                                     .toObject()[QLatin1String("categories")]
                                     .toObject();
        int64_t t = -1;
        for (const auto& n : capture->annotations)
            if (n.start && capture->strings.text(n.name) == "truth") t = n.timeUs;
        capture->annotations.clear(), capture->tags.clear(), capture->cudaLevel.reset(),
            capture->driverSamples.clear();
        const auto a = CaptureAnalysis::analyse(std::move(capture));
        const auto comp = Composition::compute(*a);
        QVERIFY(comp->categories().phases && !comp->categories().tags);
        const CompositionAt c = comp->at(*a, 0, t, true);
        // Module.to() moves the buffers too (BatchNorm's running statistics: 38,560 B here)
        QVERIFY(c.requested[size_t(Category::Parameter)] >= size(cats, "parameter"));
        QVERIFY(c.requested[size_t(Category::Parameter)] <
                size(cats, "parameter") + size(cats, "parameter") / 100);
        QCOMPARE(c.requested[size_t(Category::Gradient)], size(cats, "gradient"));
        QCOMPARE(c.requested[size_t(Category::OptimizerState)], size(cats, "optimizer_state"));
    }

    // Block bytes of the categories add up to the replay's allocated after every event.
    void categoriesAddUpToAllocated_data() {
        QTest::addColumn<QString>("name");
        for (const char* n : {"resnet_both", "ext_leak_both", "lightning_phases", "hf_both"})
            QTest::newRow(n) << n;
    }
    void categoriesAddUpToAllocated() {
        QFETCH(QString, name);
        const auto a = open(name);
        const auto comp = Composition::compute(*a);
        for (size_t d = 0; d < a->deviceCount(); ++d) {
            const auto& cats = *comp->categories().devices[d];
            const size_t n = a->trace(d).eventCount();
            for (size_t e = 0; e < n; e += std::max<size_t>(1, n / 500)) {
                int64_t sum = 0;
                for (int64_t v : cats.at(uint32_t(e))) sum += v;
                QCOMPARE(sum, a->replay(d).allocated[e]);
            }
        }
    }

    // The totals by category at a moment (a checkpoint plus what was made and freed since) equal a
    // sum over the allocations alive then, at and around the checkpoints and between them.
    void categoryTotalsEqualTheAliveAllocations_data() {
        QTest::addColumn<QString>("name");
        for (const char* n : {"resnet_both", "lightning_phases", "hf_both"})
            QTest::newRow(n) << n; // several checkpoints
    }
    void categoryTotalsEqualTheAliveAllocations() {
        QFETCH(QString, name);
        const auto a = open(name);
        const auto& cats = *a->categories(0);
        const size_t n = a->trace(0).eventCount();
        QVERIFY(n > 2 * DeviceCategories::kCheckpointEvery);
        std::vector<size_t> moments{0, n - 1};
        for (size_t k = DeviceCategories::kCheckpointEvery; k + 1 < n;
             k += DeviceCategories::kCheckpointEvery)
            moments.insert(moments.end(), {k - 1, k, k + 1});
        for (size_t e = 0; e < n; e += std::max<size_t>(1, n / 300)) moments.push_back(e);
        for (size_t e : moments) {
            std::array<int64_t, kCategoryCount> alive{};
            for (size_t k = 0; k < cats.allocations.size(); ++k)
                if (cats.allocations[k].aliveAt(uint32_t(e)))
                    alive[static_cast<size_t>(cats.category[k])] += int64_t(cats.allocations[k].bytes);
            alive[static_cast<size_t>(Category::Unknown)] += cats.before;
            QVERIFY2(cats.at(uint32_t(e)) == alive, qPrintable(QString::number(e)));
        }
    }

    // Recorded on an H200 under torch.compile(mode="reduce-overhead"): after every event, the CUDA
    // graph private pool's reserved and in-use bytes equal a sum over the replayed state's segments
    // that the snapshot names a private pool's, and each category's pool bytes fit in the category.
    void graphPoolUseIsTheStatesPoolSegments() {
        const auto a =
            openAnalysis((vs::test::samplesDir() + "/../graphs/compile_reduce_overhead.vscap").toStdString());
        const DeviceTrace& t = a->trace(0);
        const GraphPools pools(t);
        const GraphPoolUse use(t, a->replay(0), *a->categories(0), pools);
        QVERIFY(!use.empty());
        const auto comp = Composition::compute(*a);
        int64_t mostInUse = 0;
        for (size_t e = 0; e < t.eventCount(); ++e) {
            int64_t reserved = 0, inUse = 0;
            for (const StateSegment& s :
                 Replay::stateAfter(t, a->capture().streams, a->replay(0), a->rules(), e + 1)) {
                if (pools.poolOf(s.address, uint32_t(e)).isDefault()) continue;
                reserved += int64_t(s.size);
                for (const StateBlock& b : s.blocks)
                    if (b.state == BlockState::ActiveAllocated) inUse += int64_t(b.size);
            }
            const GraphPoolLevel level = use.after(uint32_t(e));
            QVERIFY2(level.reserved == reserved && level.inUseTotal() == inUse,
                     qPrintable(QStringLiteral("event %1: %2/%3 reserved, %4/%5 in use")
                                    .arg(e)
                                    .arg(level.reserved)
                                    .arg(reserved)
                                    .arg(level.inUseTotal())
                                    .arg(inUse)));
            const auto cats = a->categories(0)->at(uint32_t(e));
            for (size_t c = 0; c < kCategoryCount; ++c)
                QVERIFY(level.inUse[c] >= 0 && level.inUse[c] <= cats[c]);
            mostInUse = std::max(mostInUse, inUse);
        }
        QVERIFY(mostInUse > 0); // the graph's tensors were seen in the pool, not only its free cache
        const CompositionAt end = comp->at(*a, 0, t.timeUs.back());
        QVERIFY(end.graphPools);
        QCOMPARE(end.graphPools->reserved, int64_t(76) << 20);
    }

    // The frees pairAllocations reports on the way are every freed allocation once, in event order:
    // what sorting the allocations by their free gives (the category series are built from them).
    void freesComeInEventOrder_data() { categoriesAddUpToAllocated_data(); }
    void freesComeInEventOrder() {
        QFETCH(QString, name);
        const auto a = open(name);
        for (size_t d = 0; d < a->deviceCount(); ++d) {
            std::vector<uint32_t> frees;
            const auto all = pairAllocations(a->trace(d), a->replay(d), &frees);
            std::vector<std::pair<uint32_t, uint32_t>> sorted, got;
            for (uint32_t k = 0; k < all.size(); ++k)
                if (all[k].freeRequested != kNoEvent) sorted.emplace_back(all[k].freeRequested, k);
            std::sort(sorted.begin(), sorted.end());
            for (uint32_t k : frees) got.emplace_back(all[k].freeRequested, k);
            QVERIFY(!sorted.empty());
            QVERIFY(got == sorted);
        }
    }

    // Lightning steps the optimizer with a closure that runs forward and backward inside it: the
    // innermost phase counts, so the activations of that forward are activations, not state.
    void nestedPhasesTakeTheInnermost() {
        const auto a = open(QStringLiteral("lightning_phases"));
        const PhaseWindows w(a->capture());
        QVERIFY(!w.empty());
        const auto comp = Composition::compute(*a);
        const auto& cats = *comp->categories().devices[0];
        int64_t activations = 0, gradients = 0;
        for (size_t k = 0; k < cats.allocations.size(); ++k) {
            const auto phase = w.at(a->trace(0).timeUs[cats.allocations[k].alloc]).phase;
            if (cats.category[k] == Category::Activation) {
                QCOMPARE(phase, Phase::Forward);
                ++activations;
            }
            if (cats.category[k] == Category::Gradient && cats.basis[k] == CategoryBasis::Phase) {
                QCOMPARE(phase, Phase::Backward);
                ++gradients;
            }
        }
        QVERIFY(activations > 100);
        QVERIFY(gradients > 0);
    }

    // Hugging Face's Trainer calls model(**batch): the outermost module's own hook (with keyword
    // arguments) tags the batch from the second step on.
    void keywordInputsAreTagged() {
        const auto a = open(QStringLiteral("hf_both"));
        const auto comp = Composition::compute(*a);
        const auto& cats = *comp->categories().devices[0];
        size_t inputs = 0;
        for (size_t k = 0; k < cats.allocations.size(); ++k)
            inputs += cats.category[k] == Category::Input && cats.basis[k] == CategoryBasis::Tagged;
        QVERIFY2(inputs >= 3, "no tagged input tensors in the Trainer run");
    }

    // PyTorch's segments found at the CUDA level are exactly its reserved bytes, counted once; the
    // rest is named by library.
    void cudaLevelMatchesReservedAndNamesLibraries() {
        const auto a = open(QStringLiteral("resnet_both"));
        QVERIFY(a->capture().cudaLevel);
        const auto comp = Composition::compute(*a);
        const DeviceOutside* o = comp->outsideOf(0);
        QVERIFY(o);
        QVERIFY(o->matchedSegments > 0);
        QCOMPARE(o->unmatchedTorchSegments, 0u);
        const auto& t = a->trace(0);
        for (size_t e = 0; e < t.eventCount(); e += 97)
            QCOMPARE(o->torchMatched.at(t.timeUs[e]), a->replay(0).reserved[e]);
        bool cublas = false, cudnn = false;
        for (const auto& s : o->owners)
            cublas |= s.name == "cuBLAS" && s.peak > 0, cudnn |= s.name == "cuDNN" && s.peak > 0;
        QVERIFY2(cublas || cudnn, "neither cuBLAS nor cuDNN named outside PyTorch");
    }

    // The first driver sample after the program's own reading (it waits 0.5 s there) is NVML's same
    // figure for the process; the gap is what neither allocator explains.
    void gapIsTheDriversFigureMinusTheAllocations() {
        const auto a = open(QStringLiteral("resnet_both"));
        const QJsonObject at = truth(QStringLiteral("resnet_both"))[QLatin1String("at_step")].toObject();
        const auto comp = Composition::compute(*a);
        const DeviceOutside* o = comp->outsideOf(0);
        const int64_t t = markTime(*a, "truth");
        auto g = std::find_if(o->gap.begin(), o->gap.end(), [&](const GapSample& s) { return s.timeUs > t; });
        QVERIFY(g != o->gap.end());
        QVERIFY(g->processFigure);
        QCOMPARE(g->driverUsed, at[QLatin1String("process_used_nvml")].toInteger());
        QCOMPARE(g->explained, at[QLatin1String("memory_reserved")].toInteger() + o->outsideAt(g->timeUs));
        QVERIFY(g->gap() > 0);
    }

    // After a Part record the ids restart and everything goes to the CUDA level: each level's stack
    // names its own file.
    void partRecordStartsTheCudaLevel() {
        const std::string bytes = twoLevels(true);
        const auto c = loadVscapBytes({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
        QVERIFY(c && c->cudaLevel);
        QCOMPARE(c->devices.size(), size_t(1));
        QCOMPARE(c->devices[0].eventCount(), size_t(2));
        QCOMPARE(c->cudaLevel->devices.at(0).eventCount(), size_t(2));
        auto fileOf = [](const Capture& k) {
            return std::string(k.strings.text(k.frames[k.stacks.frames(k.devices[0].stack[0])[0]].filename));
        };
        QCOMPARE(fileOf(*c), std::string("train.py"));
        QCOMPARE(fileOf(*c->cudaLevel), std::string("libcublas.so.13"));
        QCOMPARE(c->cudaLevel->devices[0].size[0], uint64_t(64 << 20));
        const std::string mixed = twoLevels(false);
        try {
            loadVscapBytes({reinterpret_cast<const uint8_t*>(mixed.data()), mixed.size()});
            QFAIL("a record after the Part in its chunk was accepted");
        } catch (const LoadError& e) {
            QVERIFY2(std::string(e.what()).find("after the Part record") != std::string::npos, e.what());
        }
    }

    // The extension's cudaMalloc that is never freed: not in PyTorch's allocator, found on the
    // CUDA level at its line with its native stack.
    void extensionLeakFoundOnTheCudaLevel() {
        QProcess cli;
        cli.start(QStringLiteral(VRAMSCOPE_CLI),
                  {QStringLiteral("leaks"), dir() + QStringLiteral("ext_leak_both.vscap"),
                   QStringLiteral("--level"), QStringLiteral("cuda"), QStringLiteral("--json")});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        const QJsonObject d = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        QCOMPARE(d[QLatin1String("diagnosis")].toObject()[QLatin1String("kind")].toString(),
                 QStringLiteral("leak"));
        bool atLine = false;
        for (const auto f :
             d[QLatin1String("groups")].toArray()[0].toObject()[QLatin1String("frames")].toArray())
            atLine |= f.toObject()[QLatin1String("filename")].toString().endsWith(QLatin1String("cuda.cu")) &&
                      f.toObject()[QLatin1String("line")].toInt() == 18;
        QVERIFY2(atLine, "the top group lacks cuda.cu:18");
    }
};

QTEST_GUILESS_MAIN(TestCategories)
#include "tst_categories.moc"
