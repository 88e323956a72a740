// The What-if tab: a simulation and a sweep run on the session's job runner and what the panel shows
// equals the core's figures; bad settings show a message instead of a result. With
// VRAMSCOPE_SHOT_DIR set, the panel is saved as whatif_panel.png there (to look at it).
#include "TestData.h"
#include "load/OpenAnalysis.h"
#include "session/Session.h"
#include "util/Format.h"
#include "views/panels/WhatIfPanel.h"

#include <QTableWidget>
#include <QtTest>

using namespace vs;
using namespace vs::ui;

class TestWhatIfPanel : public QObject {
    Q_OBJECT
  private slots:
    void showsSimulationAndSweep() {
        const QString path = test::samplesDir() + "/mixed_sizes.pickle.zst";
        Session session;
        WhatIfPanel panel;
        panel.follow(&session);
        panel.resize(1100, 760);
        session.open(path, openAnalysis(path.toStdString()));

        panel.setConf(QStringLiteral("expandable_segments:True"));
        panel.simulate();
        session.jobs().waitForAll();
        QVERIFY(panel.outcome().has_value());
        const auto& o = *panel.outcome();
        QVERIFY(o.reproduction.exact()); // the recorded settings reproduce the recorded run
        QCOMPARE(o.recorded.peakReserved, int64_t(sampleTruthPeak()));
        QVERIFY(o.chosen.config.expandableSegments);
        QVERIFY(panel.sentence().contains(QString::fromStdString(humanBytes(o.chosen.peakReserved))));
        QVERIFY(!o.chosenReserved.isEmpty());
        QCOMPARE(*std::max_element(o.chosenReserved.begin(), o.chosenReserved.end()),
                 double(o.chosen.peakReserved));

        panel.sweep();
        session.jobs().waitForAll();
        QTableWidget* t = panel.sweepTable();
        QVERIFY(t->rowCount() >= 15);
        QCOMPARE(t->item(0, 0)->text(), QStringLiteral("1"));
        if (qEnvironmentVariableIsSet("VRAMSCOPE_SHOT_DIR"))
            panel.grab().save(qEnvironmentVariable("VRAMSCOPE_SHOT_DIR") + "/whatif_panel.png");

        panel.setConf(QStringLiteral("max_split_size_mb:zero"));
        panel.simulate();
        QVERIFY(panel.errorText().contains(QStringLiteral("max_split_size_mb")));
        panel.setConf(QString());
        panel.setCapacityText(QStringLiteral("lots"));
        panel.simulate();
        QVERIFY(panel.errorText().contains(QStringLiteral("capacity")));
    }

    // A capacity below what the run needs: the first out-of-memory and the failed request are shown.
    // (The ResNet-18 run of samples/whatif: 1164 MiB reserved at its peak under the defaults.)
    void showsTheFirstOutOfMemory() {
        const QString path = test::samplesDir() + "/../whatif/resnet18_default.pickle.gz";
        Session session;
        WhatIfPanel panel;
        panel.follow(&session);
        session.open(path, openAnalysis(path.toStdString()));
        panel.setConf(QString());
        panel.setCapacityText(QStringLiteral("700 MiB")); // below its 732 MiB peak allocated
        panel.simulate();
        session.jobs().waitForAll();
        QVERIFY(panel.outcome().has_value());
        QVERIFY(panel.outcome()->chosen.firstOom.has_value());
        QVERIFY(panel.outcome()->chosen.firstOom->reserved <= int64_t(700) << 20);
        QVERIFY(panel.sentence().contains(QStringLiteral("run out of memory")));
        if (qEnvironmentVariableIsSet("VRAMSCOPE_SHOT_DIR")) {
            panel.resize(1100, 760);
            panel.grab().save(qEnvironmentVariable("VRAMSCOPE_SHOT_DIR") + "/whatif_oom.png");
        }
    }

    // A CUPTI recording holds cudaMalloc calls, not the caching allocator's requests: said, not simulated.
    void refusesCudaLevelCaptures() {
        const QString path = test::samplesDir() + "/../cuda/leak.vscap";
        Session session;
        WhatIfPanel panel;
        panel.follow(&session);
        session.open(path, openAnalysis(path.toStdString()));
        panel.simulate();
        session.jobs().waitForAll();
        QVERIFY(!panel.outcome().has_value());
        QVERIFY(panel.errorText().contains(QStringLiteral("CUDA driver level")));
    }

  private:
    static double sampleTruthPeak() {
        return test::sampleTruth(QStringLiteral("mixed_sizes"))["max_memory_reserved"].toDouble();
    }
};

QTEST_MAIN(TestWhatIfPanel)
#include "tst_whatif_panel.moc"
