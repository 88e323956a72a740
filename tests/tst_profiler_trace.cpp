// torch.profiler traces (profile_memory=True, export_chrome_trace): a trace written here the way
// Kineto writes one (field names from PyTorch's profiler: "[memory]" instant events with Addr,
// Bytes, Total Allocated, Total Reserved, Device Id, Device Type; ts in µs after
// baseTimeNanoseconds), from a small allocator model whose totals are the truth. The capture must
// give the profiler's own totals after every memory event, per device, with what predates the
// profiler as a baseline; anything that is not such a trace is refused with a clear message.
#include "HostileInputs.h"
#include "ProfilerTraceSample.h"
#include "TestData.h"

#include "analysis/growth/LeakDiagnosis.h"
#include "io/CaptureFile.h"
#include "io/LoadError.h"
#include "io/ProfilerTrace.h"
#include "io/VscapExport.h"
#include "load/OpenAnalysis.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <fstream>
#include <map>

using namespace vs;
using namespace vs::test;

class TestProfilerTrace : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    std::string write(const QString& name, const std::string& content) {
        const std::string path = dir_.filePath(name).toStdString();
        std::ofstream(path, std::ios::binary) << content;
        return path;
    }
    // The LoadError message of reading `content`, or "" when it loaded.
    static QString refusal(const std::string& content) {
        try {
            loadCaptureBytes(bytesOf(content), LoadOptions{});
        } catch (const LoadError& e) {
            return QString::fromStdString(e.what());
        }
        return {};
    }

  private slots:
    // After every memory event the replayed allocated and reserved are the profiler's totals, on each
    // GPU (GPU 1 allocates at addresses live on GPU 0 at the same time: pairing is per device).
    void totalsAfterEveryEvent_data() {
        QTest::addColumn<bool>("compressed");
        QTest::newRow("json") << false;
        QTest::newRow("json.gz") << true;
    }
    void totalsAfterEveryEvent() {
        QFETCH(bool, compressed);
        const TraceWriter w = sampleTrace();
        const std::string text = TraceWriter(w).finish();
        const std::string path =
            write(compressed ? "trace.json.gz" : "trace.json", compressed ? gzip(text) : text);
        const auto a = openAnalysis(path);
        QCOMPARE(a->capture().format,
                 std::string(compressed ? "torch-profiler-trace.gz" : "torch-profiler-trace"));
        QCOMPARE(a->deviceCount(), size_t(2)); // the host's events are not a device
        size_t checked = 0;
        for (const Truth& t : w.truth) {
            const size_t d = size_t(a->indexOfDevice(t.device));
            const auto& times = a->trace(d).timeUs;
            const auto us = int64_t(std::llround(double(kBaseNs / 1000) + t.ts));
            const auto after = size_t(std::upper_bound(times.begin(), times.end(), us) - times.begin());
            QVERIFY(after > 0);
            QCOMPARE(a->replay(d).allocated[after - 1], t.allocated);
            QCOMPARE(a->replay(d).reserved[after - 1], t.reserved);
            ++checked;
        }
        QCOMPARE(checked, w.truth.size());
        const ReplayResult& r = a->replay(size_t(a->indexOfDevice(0)));
        QVERIFY(r.finalMatchesSnapshot);
        QCOMPARE(r.inconsistencies, 0u);
        QCOMPARE(r.baselineBytes, w.baselineBytes); // what predates the profiler, never a leak
        QCOMPARE(r.initial.allocated, int64_t(w.baselineBytes));
        const auto& warnings = a->capture().warnings;
        auto says = [&](const char* words) {
            return std::any_of(warnings.begin(), warnings.end(),
                               [&](const std::string& s) { return s.find(words) != s.npos; });
        };
        QVERIFY(says("not blocks or segments"));
        QVERIFY(says("CPU (or other device) memory events left out"));
        QVERIFY(!says("differs from the profiler's Total Allocated"));
    }

    void refusesWhatIsNotATrace_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("says");
        QTest::newRow("json, no traceEvents")
            << QByteArray(kNotATrace) << QStringLiteral("without \"traceEvents\"");
        QTest::newRow("no memory events")
            << QByteArray(kNoMemoryEvents) << QStringLiteral("profile_memory=True");
        QTest::newRow("host memory only")
            << QByteArray(kHostMemoryOnly) << QStringLiteral("no CUDA memory events");
        QTest::newRow("truncated") << QByteArray(kTruncated) << QStringLiteral("at byte");
        QTest::newRow("deeply nested") << QByteArray(100000, '[') << QStringLiteral("deeper than 256");
        // A free of INT64_MIN bytes (the fuzzer's: it overflowed the replay's totals) and an allocation
        // of 2^60 bytes: sizes no device has.
        const auto cudaEvent = [](const char* bytes) {
            return QByteArray(
                       R"({"traceEvents": [{"ph": "i", "name": "[memory]", "ts": 1, "args": {"Addr": 4096, "Bytes": )") +
                   bytes +
                   R"(, "Total Allocated": 0, "Total Reserved": 0, "Device Type": 1, "Device Id": 0}}]})";
        };
        QTest::newRow("free of INT64_MIN bytes")
            << cudaEvent("-9223372036854775808") << QStringLiteral("impossible size");
        QTest::newRow("2^60 bytes") << cudaEvent("1152921504606846976") << QStringLiteral("impossible size");
        QTest::newRow("not JSON after the brace")
            << QByteArray("{\x80\x02}") << QStringLiteral("not a torch.profiler trace");
        // Totals near 2^63 (a Total Allocated of 2^63 - 1 made a baseline block that overflowed the
        // summary's reserved) and 65 blocks of 1 PiB never freed: more live than any device has.
        const auto events = [](int n, const char* bytes, const char* total) {
            QByteArray s(R"({"traceEvents": [)");
            for (int i = 0; i < n; ++i)
                s += QByteArray(i ? ", " : "") + R"({"ph": "i", "name": "[memory]", "ts": )" +
                     QByteArray::number(i + 1) + R"(, "args": {"Addr": )" +
                     QByteArray::number(4096 * (i + 1)) + R"(, "Bytes": )" + bytes +
                     R"(, "Total Allocated": )" + total + R"(, "Total Reserved": )" + total +
                     R"(, "Device Type": 1, "Device Id": 0}})";
            return s + "]}";
        };
        QTest::newRow("Total Allocated 2^63 - 1")
            << events(2, "512", "9223372036854775807") << QStringLiteral("more than any device has");
        QTest::newRow("65 blocks of 1 PiB")
            << events(65, "1125899906842624", "-1") << QStringLiteral("more than any device has");
        // 64 MiB of empty events in a few KB of gzip, read from memory (the fuzzer's way in): a trace
        // as a .json.gz file is (it was read as a pickle), refused by the events a compressed byte
        // carries rather than after parsing up to the expansion bound (5 s for 0.5 MB of it)
        const std::string bomb = test::gzipOf(R"({"traceEvents": [)", "{},", 4, "{}]}");
        QTest::newRow("gzip bomb of empty events")
            << QByteArray(bomb.data(), qsizetype(bomb.size())) << QStringLiteral("trace events from");
    }
    void refusesWhatIsNotATrace() {
        QFETCH(QByteArray, content);
        QFETCH(QString, says);
        const QString message = refusal(content.toStdString());
        QVERIFY2(message.contains(says), qPrintable(message));
    }

    // The CLI: a non-trace JSON file is one line on stderr and exit 2; a trace is summarised.
    // The same H200 trace's steps: record.py ends each step with prof.step(), so PyTorch wrote a
    // "ProfilerStep#N" span around step N and the truth file holds memory_allocated() and
    // memory_reserved() just before each span closed. The spans are the capture's annotations: the
    // replay after the last event inside step N's span is PyTorch's figure for step N (the events and
    // the span ends share the trace's microsecond clock), and they are the iterations the leak uses.
    void realTraceStepsArePyTorchSteps() {
        const QString dir = vs::test::samplesDir() + QStringLiteral("/../profiler/");
        QFile f(dir + QStringLiteral("mlp_train.truth.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray steps =
            QJsonDocument::fromJson(f.readAll()).object()[QLatin1String("steps")].toArray();
        QVERIFY(steps.size() >= 3);
        const auto a = vs::openAnalysis((dir + QStringLiteral("mlp_train.json.gz")).toStdString());
        const Capture& c = a->capture();
        const DeviceTrace& t = a->trace(0);
        std::map<int, int64_t> ends; // step number -> its span's end
        for (const Annotation& ann : c.annotations) {
            const QString name = QString::fromStdString(std::string(c.strings.text(ann.name)));
            if (!ann.start && ann.device == t.device && name.startsWith(QStringLiteral("ProfilerStep#")))
                ends[name.mid(13).toInt()] = ann.timeUs;
        }
        for (const QJsonValue v : steps) {
            const QJsonObject step = v.toObject();
            const int n = step[QLatin1String("step")].toInt();
            QVERIFY2(ends.count(n), qPrintable(QStringLiteral("no end of ProfilerStep#%1").arg(n)));
            const auto after = std::upper_bound(t.timeUs.begin(), t.timeUs.end(), ends[n]) - t.timeUs.begin();
            QVERIFY(after > 0);
            QCOMPARE(a->replay(0).allocated[size_t(after - 1)], step[QLatin1String("allocated")].toInteger());
            QCOMPARE(a->replay(0).reserved[size_t(after - 1)], step[QLatin1String("reserved")].toInteger());
        }
        // the steps are the iterations: the leak names them, one kept loss per step
        const auto leaks = diagnoseLeaks(*a, 0);
        QCOMPARE(QString::fromStdString(leaks.iterationMarker), QStringLiteral("ProfilerStep#"));
        QCOMPARE(leaks.iterations, size_t(steps.size()));
        QVERIFY(!leaks.groups.empty());
        QCOMPARE(leaks.groups.front().count, uint32_t(steps.size()));
    }

    // A trace recorded on an H200 (samples/profiler/record.py, torch 2.11): after its last event the
    // capture holds what PyTorch itself said after the last step (the program's own truth file).
    void realTraceEndsWherePyTorchSaid() {
        const QString dir = vs::test::samplesDir() + QStringLiteral("/../profiler/");
        QFile f(dir + QStringLiteral("mlp_train.truth.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray steps =
            QJsonDocument::fromJson(f.readAll()).object()[QLatin1String("steps")].toArray();
        const QJsonObject last = steps.last().toObject();
        const auto a = vs::openAnalysis((dir + QStringLiteral("mlp_train.json.gz")).toStdString());
        QCOMPARE(a->deviceCount(), size_t(1));
        QCOMPARE(a->replay(0).allocated.back(), last[QLatin1String("allocated")].toInteger());
        QCOMPARE(a->replay(0).reserved.back(), last[QLatin1String("reserved")].toInteger());
        // with_stack=True: the operators and Python functions around an allocation are its site; the
        // kept losses are the steady group, made by aten::mean under the script's main()
        const auto leaks = diagnoseLeaks(*a, 0);
        QVERIFY(!leaks.groups.empty());
        const Capture& c = a->capture();
        QStringList frames;
        for (FrameId id : c.stacks.frames(leaks.groups.front().stack))
            frames << QString::fromStdString(std::string(c.strings.text(c.frames[id].name))) + "@" +
                          QString::fromStdString(std::string(c.strings.text(c.frames[id].filename)));
        QVERIFY2(frames.value(0) == QStringLiteral("aten::mean@") &&
                     frames.join(' ').contains(QStringLiteral("main@")) &&
                     frames.join(' ').contains(QStringLiteral("record.py")),
                 qPrintable(frames.join(' ')));
        QCOMPARE(leaks.groups.front().count, uint32_t(steps.size()));
        QVERIFY(!frames.join(' ').contains(QStringLiteral(" at 0x")));
        // the kept losses grow allocated by one 512-byte block a step
        QCOMPARE(last[QLatin1String("allocated")].toInteger() -
                     steps.first().toObject()[QLatin1String("allocated")].toInteger(),
                 qint64(512) * (steps.size() - 1));
    }

    // A .vscap made from a trace keeps what the trace's reader said (its caveat, the host events left
    // out), once each, also when converted again: the copy is no more exact than its source.
    void convertedKeepsTheCaveat() {
        const auto source = openAnalysis(write("trace.json", sampleTrace().finish()));
        QVERIFY(std::any_of(source->warnings().begin(), source->warnings().end(),
                            [](const std::string& w) { return w.starts_with("torch.profiler trace:"); }));
        const std::string once = dir_.filePath("once.vscap").toStdString();
        const std::string twice = dir_.filePath("twice.vscap").toStdString();
        writeVscapFile(source->capture(), once);
        const auto copy = openAnalysis(once);
        QCOMPARE(copy->warnings(), source->warnings());
        writeVscapFile(copy->capture(), twice);
        QCOMPARE(openAnalysis(twice)->warnings(), source->warnings());
    }

    void cli() {
        const std::string bad = write("package.json", kNotATrace);
        QProcess p;
        p.start(QStringLiteral(VRAMSCOPE_CLI), {QStringLiteral("summary"), QString::fromStdString(bad)});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        const QByteArray err = p.readAllStandardError().trimmed();
        QVERIFY2(err.startsWith("vramscope-cli: error:") && !err.contains('\n') &&
                     err.contains("traceEvents"),
                 err);
        const std::string good = write("good.json", sampleTrace().finish());
        p.start(QStringLiteral(VRAMSCOPE_CLI),
                {QStringLiteral("summary"), QString::fromStdString(good), QStringLiteral("--json")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(p.readAllStandardOutput().contains("torch-profiler-trace"));
    }
};

QTEST_GUILESS_MAIN(TestProfilerTrace)
#include "tst_profiler_trace.moc"
