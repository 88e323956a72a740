// vramscope-cli as scripts and CI see it: exit codes, one-line errors, and the documented outputs.
#include "TestData.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QtTest>

#include "util/JsonWriter.h"

#include <sstream>
#include <sys/stat.h>

class TestCli : public QObject {
    Q_OBJECT
  private slots:
    void summaryJsonFields();
    void summaryText();
    void seriesCsv();
    void stateAtTime();
    void sweepSaysWhyApproximateRowsRankLast();
    void badInput_data();
    void badInput();
    void runPassesTheAgentItsSettings();
    void runRefusesBadUsage();
    void fifoNamedLikeACaptureIsRefused();
    void jsonStaysValidUtf8();

  private:
    struct Run {
        int code;
        QByteArray out, err;
    };
    static Run cli(const QStringList& args,
                   const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(VRAMSCOPE_CLI), args);
        p.waitForFinished(60000);
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
                p.readAllStandardError()};
    }
    static QString sample(const QString& n) { return QString::fromStdString(vs::test::samplePath(n)); }
};

// A FIFO named like a capture in a shared folder (rank*.pickle) is refused at once with one line,
// by every command that opens captures: opening it blocked until a writer came (issue 47).
void TestCli::fifoNamedLikeACaptureIsRefused() {
    QTemporaryDir dir;
    const QString fifo = dir.filePath("rank0.pickle");
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    for (const QStringList& args : {QStringList{"summary", fifo}, QStringList{"leaks", fifo, "--json"},
                                    QStringList{"summarize", fifo, "-o", dir.filePath("out")}}) {
        const Run r = cli(args); // a hang would run into the 60 s limit and read as -1
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("is not a regular file") && r.err.count('\n') == 1, r.err.constData());
        QVERIFY2(r.out.isEmpty(), r.out.constData());
    }
}

// Every JSON the CLI writes goes through JsonWriter: a string from a hostile file (a summary's path, a
// frame's name) with bytes that are not UTF-8 made the output invalid JSON (issue 47); each such
// byte is now U+FFFD, and well-formed UTF-8 passes unchanged.
void TestCli::jsonStaysValidUtf8() {
    std::ostringstream out;
    vs::JsonWriter j(out);
    const std::string bad[] = {"\xff", "a\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"};
    j.beginArray();
    j.value(std::string_view("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80")); // é € 😀
    for (const auto& b : bad) j.value(std::string_view(b));
    j.endArray();
    QJsonParseError error{};
    const QJsonDocument d = QJsonDocument::fromJson(QByteArray::fromStdString(out.str()), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    const QJsonArray a = d.array();
    QCOMPARE(a[0].toString(), QString::fromUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
    QCOMPARE(a[1].toString(), QString(QChar(0xfffd)));
    QCOMPARE(a[2].toString(), QStringLiteral("a") + QChar(0xfffd));
    QCOMPARE(a[3].toString(), QString(2, QChar(0xfffd))); // an overlong '/' is two bad bytes
    QCOMPARE(a[4].toString(), QString(3, QChar(0xfffd))); // a surrogate's three bytes
    QCOMPARE(a[5].toString(), QString(4, QChar(0xfffd))); // above U+10FFFF
    QCOMPARE(a[6].toString(), QString(2, QChar(0xfffd))); // cut short
}

// `run` sets up the injection and gets out of the way: the program (here a shell, which makes no CUDA
// call) sees the agent's settings in its environment, and its exit status is the command's.
void TestCli::runPassesTheAgentItsSettings() {
    QTemporaryDir dir;
    const QString agent = dir.filePath("libagent.so"), seen = dir.filePath("env.txt");
    QFile(agent).open(QIODevice::WriteOnly); // any file: the shell never loads it
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("VRAMSCOPE_CUPTI_LIB", agent);
    const QString script = QString("printf '%s|%s|%s|%s' \"$CUDA_INJECTION64_PATH\" \"$VRAMSCOPE_OUTPUT\" "
                                   "\"$VRAMSCOPE_LIVE\" \"$VRAMSCOPE_STACKS\" > '%1'; exit 3")
                               .arg(seen);
    const Run r = cli({"run", "-o", dir.filePath("out.vscap"), "--live", "/tmp/v.sock", "--stacks", "none",
                       "--", "sh", "-c", script},
                      env);
    QCOMPARE(r.code, 3);
    QFile f(seen);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()), agent + "|" + dir.filePath("out.vscap") + "|/tmp/v.sock|none");
    QVERIFY2(r.err.contains("made no CUDA call: nothing recorded"), r.err.constData());
    QCOMPARE(cli({"run", "--", "sh", "-c", "test \"$VRAMSCOPE_STACKS\" = native"}, env).code,
             0); // the default
}

void TestCli::runRefusesBadUsage() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("VRAMSCOPE_CUPTI_LIB", "/nonexistent/libvramscope_cupti.so");
    for (const QStringList& args :
         {QStringList{"run", "--", "true"}, QStringList{"run", "--stacks", "some", "--", "true"},
          QStringList{"run", "--live"}, QStringList{"run", "-o", "x.vscap"}}) {
        const Run r = cli(args, env);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.startsWith("vramscope-cli: error: ") && r.err.count('\n') == 1, r.err.constData());
    }
}

void TestCli::summaryJsonFields() {
    const Run r = cli({"summary", sample("leak_list"), "--json"});
    QCOMPARE(r.code, 0);
    const auto doc = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(doc["format"].toString(), QString("pytorch-snapshot-pickle.zst"));
    const auto d = doc["devices"].toArray()[0].toObject();
    for (const char* k :
         {"device", "events", "first_time_us", "last_time_us", "peak_allocated", "peak_reserved",
          "final_allocated", "final_reserved", "final_active", "oom_events", "segments"})
        QVERIFY2(d.contains(k), k);
    const auto truth = vs::test::sampleTruth("leak_list");
    QCOMPARE(d["final_allocated"].toDouble(), truth["final_allocated"].toDouble());
    QCOMPARE(d["peak_reserved"].toDouble(), truth["max_memory_reserved"].toDouble());
    QVERIFY(doc["warnings"].isArray());
    QVERIFY(doc["recorder_cost"].isNull()); // a PyTorch snapshot: no recorder said what it cost (not absent)
}

void TestCli::summaryText() {
    const Run r = cli({"summary", sample("leak_cut")});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("Allocated memory"));
    QVERIFY(r.out.contains("Reserved memory"));
    QVERIFY(r.out.contains("warning: ")); // the cut history is announced
    // leaks says it too, beside the diagnosis that stands on the replayed events
    const Run leaks = cli({"leaks", sample("leak_cut")});
    QCOMPARE(leaks.code, 0);
    QVERIFY2(leaks.out.contains("warning: 9 blocks"), leaks.out.constData());
    const auto doc = QJsonDocument::fromJson(cli({"leaks", sample("leak_cut"), "--json"}).out).object();
    QCOMPARE(doc["warnings"].toArray().size(), 1);
    QVERIFY(doc["warnings"].toArray()[0].toString().contains("allocated before the first recorded event"));
}

void TestCli::seriesCsv() {
    const Run r = cli({"series", sample("clean_loop"), "--csv"});
    QCOMPARE(r.code, 0);
    const auto lines = r.out.trimmed().split('\n');
    QCOMPARE(lines[0], QByteArray("time_us,allocated,active,reserved"));
    QVERIFY(lines.size() > 100);
    QByteArray prev;
    for (int i = 1; i < lines.size(); ++i) { // one row per change
        const auto values = lines[i].mid(lines[i].indexOf(','));
        QVERIFY(values != prev);
        prev = values;
    }
    QCOMPARE(lines.last().split(',')[1].toLongLong(),
             qint64(vs::test::sampleTruth("clean_loop")["final_allocated"].toDouble()));
}

void TestCli::stateAtTime() {
    const Run start = cli({"state", sample("side_stream"), "--at", "0", "--json"});
    QCOMPARE(start.code, 0);
    const auto s = QJsonDocument::fromJson(start.out).object();
    QVERIFY(s.contains("time_us"));
    QCOMPARE(s["segments"].toArray().size(), 1); // only the first segment exists after the first event
    const Run end = cli({"state", sample("side_stream"), "--json"});
    const auto segs = QJsonDocument::fromJson(end.out).object()["segments"].toArray();
    QCOMPARE(segs.size(), 4);
    const auto b = segs[0].toObject()["blocks"].toArray()[0].toObject();
    for (const char* k : {"address", "size", "requested_size", "state"}) QVERIFY2(b.contains(k), k);
}

// cudaMallocAsync's row can show the lowest peak and still rank last: the table says why
void TestCli::sweepSaysWhyApproximateRowsRankLast() {
    const Run r = cli({"whatif", sample("clean_loop"), "--sweep"});
    QCOMPARE(r.code, 0);
    const auto lines = r.out.split('\n');
    qsizetype approximate = -1, exact = -1, note = -1;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (lines[i].contains("(approximate)"))
            approximate = i;
        else if (lines[i].contains("  no  ") || lines[i].contains("  yes  "))
            exact = i;
        if (lines[i].startsWith("(approximate rows rank after the exact ones")) note = i;
    }
    QVERIFY2(approximate > exact && exact > 0, r.out.constData());
    QVERIFY2(note > approximate, r.out.constData());
}

void TestCli::badInput_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTemporaryFile garbage;
    QTest::newRow("missing file") << QStringList{"summary", "/nonexistent.pickle"} << "cannot open";
    QTest::newRow("unknown command") << QStringList{"frobnicate", "x"} << "unknown command";
    QTest::newRow("no command") << QStringList{} << "no command";
    QTest::newRow("series without --csv") << QStringList{"series", sample("oom")} << "--csv";
    QTest::newRow("bad --at") << QStringList{"state", sample("oom"), "--at", "soon", "--json"}
                              << "--at needs a number";
    // past the end (once shown the final state under an overflowed, negative time) or before the start
    QTest::newRow("--at past the end")
        << QStringList{"state", sample("oom"), "--at", "1e15", "--json"} << "from 0 to the capture's end";
    QTest::newRow("--at negative") << QStringList{"composition", sample("oom"), "--at", "-5"}
                                   << "from 0 to the capture's end";
    // a share of an unrecorded device size limited nothing, silently
    QTest::newRow("fraction without capacity")
        << QStringList{"whatif", sample("side_stream"), "--conf", "per_process_memory_fraction:0.5"}
        << "pass --capacity BYTES";
    QTest::newRow("missing device") << QStringList{"state", sample("oom"), "--device", "3", "--json"}
                                    << "no device 3";
    QTest::newRow("unknown option") << QStringList{"summary", sample("oom"), "--fast"}
                                    << "unknown option --fast";
    // the file named once ("PATH: PATH is empty" before)
    static QTemporaryDir dir; // lives for every row
    const QString empty = dir.filePath("empty.pickle");
    QFile(empty).open(QIODevice::WriteOnly);
    QTest::newRow("empty") << QStringList{"summary", empty} << "error: " + empty + " is empty\n";
    // a device (or a FIFO) is refused before anything reads from it
    QTest::newRow("device") << QStringList{"summary", "/dev/null"}
                            << "error: /dev/null is not a regular file (a FIFO, a socket or a device)";
    QTest::newRow("not a pickle") << QStringList{"summary",
                                                 QStringLiteral(VRAMSCOPE_SAMPLES_DIR "/oom.truth.json")}
                                  << "JSON";
}

void TestCli::badInput() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = cli(args);
    QCOMPARE(r.code, 2);
    QVERIFY(r.out.isEmpty());
    QCOMPARE(r.err.count('\n'), 1); // exactly one line
    QVERIFY2(QString(r.err).contains(message), r.err.constData());
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
