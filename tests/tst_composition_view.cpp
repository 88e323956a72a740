// The Composition tab on a real recording with both levels (samples/categories/resnet_both.vscap):
// the bands are computed on the session's runner and their top at every sample adds up, category by
// category, to what core says; the gap band is the driver's figure minus what the allocators explain; the
// block map colours blocks by the same categories. With VRAMSCOPE_SHOT_DIR set, the view is saved
// as composition.png there (to look at it).
#include "TestData.h"
#include "analysis/composition/Composition.h"
#include "common/CategoryColours.h"
#include "load/OpenAnalysis.h"
#include "session/Session.h"
#include "views/panels/BlockMapPanel.h"
#include "views/panels/BlockMapView.h"
#include "views/timeline/AllocationBandsView.h"
#include "views/timeline/CompositionView.h"

#include <QtTest>

using namespace vs;
using namespace vs::ui;

namespace {
// The Composition tab following a session that opened `path`, its bands computed.
AnalysisPtr showIn(Session& session, CompositionView& view, const QString& path) {
    view.follow(&session);
    view.resize(1000, 600);
    view.show();
    auto analysis = openAnalysis(path.toStdString());
    session.open(path, analysis);
    session.jobs().waitForAll();
    return analysis;
}
} // namespace

class TestCompositionView : public QObject {
    Q_OBJECT
  private slots:
    void bandsAddUpToTheDriversFigure() {
        Session session;
        CompositionView view;
        const auto analysis = showIn(session, view, test::samplesDir() + "/../categories/resnet_both.vscap");
        const CompositionBands& b = view.bands();
        QVERIFY(b.seconds.size() > 100);
        auto has = [&](const QString& n) {
            return std::find(b.names.begin(), b.names.end(), n) != b.names.end();
        };
        QVERIFY(has(QStringLiteral("parameter")));
        QVERIFY(has(QStringLiteral("outside PyTorch: cuBLAS")));
        QVERIFY(b.names.back().startsWith(QStringLiteral("gap")));
        const auto comp = Composition::compute(*analysis);
        const size_t cache = kCategoryCount, firstOutside = cache + 1, gap = size_t(b.names.size() - 1);
        size_t withDriver = 0;
        for (size_t s = 0; s < b.seconds.size(); ++s) {
            const CompositionAt at = comp->at(*analysis, 0, b.timesUs[s]);
            QCOMPARE(b.tops[cache - 1][s], double(at.allocated)); // the categories end at allocated
            QCOMPARE(b.tops[cache][s], double(at.reserved));      // the cache ends at reserved
            int64_t outside = 0;
            for (const auto& o : at.outside) outside += o.second;
            QCOMPARE(b.tops[gap - 1][s], double(at.reserved + outside));
            QVERIFY(firstOutside < gap);
            if (at.driver) { // the gap band: the latest driver sample's figure minus what it explained
                QCOMPARE(b.tops[gap][s] - b.tops[gap - 1][s], double(std::max<int64_t>(0, at.driver->gap())));
                ++withDriver;
            }
        }
        QVERIFY(withDriver > b.seconds.size() / 2);
        QVERIFY(!view.describe(b.seconds[b.seconds.size() / 2]).isEmpty());
        if (qEnvironmentVariableIsSet("VRAMSCOPE_SHOT_DIR"))
            view.grab().save(qEnvironmentVariable("VRAMSCOPE_SHOT_DIR") + "/composition.png");
    }

    // The allocation bands take the same colours when asked (right-click → Colour by Category).
    void bandsColourByCategory() {
        const QString path = test::samplesDir() + "/../categories/resnet_both.vscap";
        const auto analysis = openAnalysis(path.toStdString());
        AllocationBandsView view;
        view.setLayout(analysis, 0, AllocationBandsView::compute(analysis, 0));
        QVERIFY(view.layout().categories);
        view.setColourByCategory(true);
        const auto& bands = view.layout().bands->bands();
        size_t parameters = 0;
        for (size_t i = 0; i < bands.size(); ++i)
            if (view.layout().categories->ofAllocEvent(bands[i].alloc) == Category::Parameter) {
                const QColor c = view.colourOf(i), want = categoryColour(Category::Parameter);
                QVERIFY(c == want || c == want.darker(112));
                ++parameters;
            }
        QVERIFY(parameters > 10);
        std::vector<QColor> byCategory;
        for (size_t i = 0; i < bands.size(); ++i) byCategory.push_back(view.colourOf(i));
        view.setColourByCategory(false); // by site again: the two colourings differ somewhere
        size_t differ = 0;
        for (size_t i = 0; i < bands.size(); ++i) differ += view.colourOf(i) != byCategory[i];
        QVERIFY(differ > bands.size() / 4);
    }

    // torch.compile(mode="reduce-overhead") recorded on an H200: the CUDA graph private pool is its
    // own two bands (in use, reserved free) carved out of the categories and the cache, so the stack
    // still ends at allocated and reserved; the allocation bands in the pool are striped and say so.
    void graphPoolBands() {
        Session session;
        CompositionView view;
        const auto analysis =
            showIn(session, view, test::samplesDir() + "/../graphs/compile_reduce_overhead.vscap");
        const CompositionBands& b = view.bands();
        const size_t inUse = kCategoryCount, poolFree = inUse + 1, cache = poolFree + 1;
        QCOMPARE(b.names[inUse], QStringLiteral("CUDA graph pools: in use"));
        QCOMPARE(b.names[poolFree], QStringLiteral("CUDA graph pools: reserved, free"));
        const auto comp = Composition::compute(*analysis);
        double mostInUse = 0;
        for (size_t s = 0; s < b.seconds.size(); ++s) {
            const CompositionAt at = comp->at(*analysis, 0, b.timesUs[s]);
            const GraphPoolLevel pool = at.graphPools.value_or(GraphPoolLevel{});
            QCOMPARE(b.tops[inUse][s], double(at.allocated)); // categories less the pool, plus the pool
            QCOMPARE(b.tops[poolFree][s] - b.tops[inUse][s], double(pool.free()));
            QCOMPARE(b.tops[cache][s], double(at.reserved)); // the cache ends at reserved
            mostInUse = std::max(mostInUse, b.tops[inUse][s] - b.tops[inUse - 1][s]);
        }
        QVERIFY(mostInUse > 0);
        if (qEnvironmentVariableIsSet("VRAMSCOPE_SHOT_DIR"))
            view.grab().save(qEnvironmentVariable("VRAMSCOPE_SHOT_DIR") + "/composition_graph_pool.png");

        AllocationBandsView bands;
        bands.setLayout(analysis, 0, AllocationBandsView::compute(analysis, 0));
        const GraphPools pools(analysis->trace(0));
        size_t striped = 0;
        for (size_t i = 0; i < bands.layout().bands->bands().size(); ++i) {
            const auto& band = bands.layout().bands->bands()[i];
            const bool inPool = pools.holds(analysis->trace(0).addr[band.alloc], band.alloc);
            QCOMPARE(bands.inGraphPool(i), inPool);
            QCOMPARE(bands.describe(i).contains(QStringLiteral("CUDA graph private pool (")), inPool);
            striped += inPool;
        }
        QVERIFY(striped > 0);
        QCOMPARE(bands.layout().pooled, striped);
    }

    void blockMapColoursByCategory() {
        const QString path = test::samplesDir() + "/../categories/resnet_both.vscap";
        Session session;
        BlockMapPanel panel;
        panel.follow(&session);
        panel.resize(900, 600);
        session.open(path, openAnalysis(path.toStdString()));
        panel.view()->setColourBy(BlockMapView::ColourBy::Category);
        QVERIFY(panel.view()->legend().size() >= int(kCategoryCount));
        QCOMPARE(panel.view()->legend().first().name, QStringLiteral("parameter"));
    }
};

QTEST_MAIN(TestCompositionView)
#include "tst_composition_view.moc"
