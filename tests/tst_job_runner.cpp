// The one background path of the GUI (ui/session/JobRunner): per typed key the newest request wins
// and the replaced job is told to stop, different keys never replace each other, a destroyed
// receiver gets nothing, cancellation and failures are reported, progress arrives once per percent.
#include "session/JobRunner.h"

#include <QSignalSpy>
#include <QtTest>

#include <future>
#include <stdexcept>

using namespace vs::ui;

namespace {
// Holds a job inside its work until the test lets it go: the next request finds it running.
struct Gate {
    std::promise<void> open;
    std::shared_future<void> opened = open.get_future().share();
    std::promise<void> entered;
};
} // namespace

class TestJobRunner : public QObject {
    Q_OBJECT
  private slots:
    void newestRequestWinsAndStopsTheRunningOne() {
        JobRunner jobs;
        QObject receiver;
        Gate gate;
        std::atomic<bool> firstSawCancel{false};
        QStringList delivered;
        jobs.run<QString>(
            JobKey::Leaks, &receiver,
            [&](const JobControl& job) {
                gate.entered.set_value();
                gate.opened.wait();
                firstSawCancel = job.cancelled();
                return QStringLiteral("first");
            },
            [&](const QString& r) { delivered << r; });
        gate.entered.get_future().wait();
        jobs.run<QString>(
            JobKey::Leaks, &receiver, [](const JobControl&) { return QStringLiteral("second"); },
            [&](const QString& r) { delivered << r; });
        QVERIFY(jobs.busy(JobKey::Leaks));
        gate.open.set_value();
        jobs.waitFor(JobKey::Leaks);
        QVERIFY(firstSawCancel);
        QCOMPARE(delivered, QStringList{QStringLiteral("second")});
        QVERIFY(!jobs.busy());
    }

    void differentKeysDoNotReplaceEachOther() {
        JobRunner jobs;
        QObject receiver;
        QList<int> delivered;
        jobs.run<int>(
            JobKey::RetentionPick, &receiver, [](const JobControl&) { return 1; },
            [&](const int& r) { delivered << r; });
        jobs.run<int>(
            JobKey::RetentionGraph, &receiver, [](const JobControl&) { return 2; },
            [&](const int& r) { delivered << r; });
        jobs.waitForAll();
        std::sort(delivered.begin(), delivered.end());
        QCOMPARE(delivered, (QList<int>{1, 2}));
    }

    void destroyedReceiverGetsNothing() {
        JobRunner jobs;
        auto* receiver = new QObject;
        Gate gate;
        bool delivered = false;
        jobs.run<int>(
            JobKey::MemoryMap, receiver,
            [&](const JobControl&) {
                gate.opened.wait();
                return 1;
            },
            [&](const int&) { delivered = true; });
        delete receiver;
        gate.open.set_value();
        jobs.waitForAll();
        QVERIFY(!delivered);
        QVERIFY(!jobs.busy(JobKey::MemoryMap));
    }

    void cancelDeliversNothingAndSaysSo() {
        JobRunner jobs;
        QObject receiver;
        QSignalSpy cancelled(&jobs, &JobRunner::cancelled);
        Gate gate;
        bool delivered = false;
        jobs.run<int>(
            JobKey::Load, &receiver,
            [&](const JobControl&) {
                gate.entered.set_value();
                gate.opened.wait();
                return 1;
            },
            [&](const int&) { delivered = true; });
        gate.entered.get_future().wait();
        jobs.cancel(JobKey::Load);
        gate.open.set_value();
        jobs.waitForAll();
        QVERIFY(!delivered);
        QCOMPARE(cancelled.count(), 1);
        QCOMPARE(cancelled.first().first().value<JobKey>(), JobKey::Load);
    }

    void failureMessageReachesTheReceiver() {
        JobRunner jobs;
        QObject receiver;
        QString message;
        bool delivered = false;
        jobs.run<int>(
            JobKey::LiveUpdate, &receiver,
            [](const JobControl&) -> int { throw std::runtime_error("bad bytes"); },
            [&](const int&) { delivered = true; }, [&](const QString& m) { message = m; });
        jobs.waitForAll();
        QVERIFY(!delivered);
        QCOMPARE(message, QStringLiteral("bad bytes"));
    }

    void progressOncePerPercent() {
        JobRunner jobs;
        QObject receiver;
        QSignalSpy progress(&jobs, &JobRunner::progress);
        jobs.run<int>(
            JobKey::Load, &receiver,
            [](const JobControl& job) {
                for (double f : {0.5, 0.501, 0.5, 1.0}) job.progress(f);
                return 0;
            },
            [](const int&) {});
        jobs.waitForAll();
        QList<int> percents;
        for (const auto& args : progress) percents << args.at(1).toInt();
        QCOMPARE(percents, (QList<int>{50, 100}));
    }
};

QTEST_GUILESS_MAIN(TestJobRunner)
#include "tst_job_runner.moc"
