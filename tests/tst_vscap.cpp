// The .vscap format: a snapshot converted to .vscap reads back to the same capture and the same
// figures; a file cut anywhere reads up to its last complete chunk; damaged and hostile files are
// rejected with a message, never a crash.
#include "TestData.h"
#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/LeakDiagnosis.h"
#include "io/CaptureFile.h"
#include "io/LoadError.h"
#include "io/VscapExport.h"
#include "io/VscapReader.h"
#include "load/OpenAnalysis.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace vs;

class TestVscap : public QObject {
    Q_OBJECT
  private slots:
    void roundTripKeepsEverything_data();
    void roundTripKeepsEverything();
    void cliFiguresIdentical_data() { roundTripKeepsEverything_data(); }
    void cliFiguresIdentical();
    void everyCutReadsThePrefix();
    void damagedChunkIsRejected();
    void newerMajorVersionIsRejected();
    void unknownRecordKindsAreSkipped();
    void hostileRecords_data();
    void hostileRecords();
    void incrementalFeedEqualsWholeFile();
    void recorderCapturesEqualTruth_data();
    void recorderCapturesEqualTruth();
    void recordedMarksKeepTheirValues();
};

namespace {
std::unique_ptr<Capture> loadSample(const QString& name) {
    return loadCaptureFile(test::samplePath(name), {});
}

std::span<const uint8_t> span(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// A stack as text, so captures with different interning orders still compare.
std::string stackText(const Capture& c, StackId s) {
    std::string out;
    for (FrameId f : c.stacks.frames(s)) {
        const Frame& fr = c.frames[f];
        out += std::string(c.strings.text(fr.filename)) + ":" + std::to_string(fr.line) + " " +
               std::string(c.strings.text(fr.name)) + "\n";
    }
    return out;
}

// Compares the first `limit` events of every device of `b` with `a`'s (all when limit is SIZE_MAX).
void compareEvents(const Capture& a, const Capture& b, size_t limit = SIZE_MAX) {
    for (const auto& db : b.devices) {
        const DeviceTrace* da = a.device(db.device);
        QVERIFY(da);
        const size_t n = std::min(limit, da->eventCount());
        QCOMPARE(db.eventCount(), n);
        for (size_t i = 0; i < n; ++i) {
            QCOMPARE(db.timeUs[i], da->timeUs[i]);
            QCOMPARE(db.addr[i], da->addr[i]);
            QCOMPARE(db.size[i], da->size[i]);
            QCOMPARE(db.action[i], da->action[i]);
            QCOMPARE(b.streams[db.stream[i].value], a.streams[da->stream[i].value]);
            if (i % 7 == 0) QCOMPARE(stackText(b, db.stack[i]), stackText(a, da->stack[i]));
        }
    }
}

void compareSegments(const Capture& a, const Capture& b) {
    for (const auto& db : b.devices) {
        const auto& sa = a.device(db.device)->finalSegments;
        QCOMPARE(db.finalSegments.size(), sa.size());
        for (size_t i = 0; i < sa.size(); ++i) {
            const auto &x = sa[i], &y = db.finalSegments[i];
            QCOMPARE(y.address, x.address);
            QCOMPARE(y.totalSize, x.totalSize);
            QCOMPARE(y.stream, x.stream);
            QCOMPARE(y.expandable, x.expandable);
            QCOMPARE(y.blocks.size(), x.blocks.size());
            for (size_t k = 0; k < x.blocks.size(); ++k) {
                QCOMPARE(y.blocks[k].address, x.blocks[k].address);
                QCOMPARE(y.blocks[k].size, x.blocks[k].size);
                QCOMPARE(y.blocks[k].requestedSize, x.blocks[k].requestedSize);
                QCOMPARE(y.blocks[k].state, x.blocks[k].state);
                QCOMPARE(stackText(b, y.blocks[k].stack), stackText(a, x.blocks[k].stack));
            }
        }
    }
}

// Records built by hand, for hostile inputs: one chunk, no compression.
std::string handMade(const std::function<void(vscap::Writer&)>& body) {
    std::string out;
    vscap::Writer w([&](std::string_view s) { out.append(s); }, {vscap::Codec::None, 0, 1u << 20});
    body(w);
    w.finish();
    return out;
}
} // namespace

void TestVscap::roundTripKeepsEverything_data() {
    QTest::addColumn<QString>("name");
    for (const QString& n : test::sampleNames()) QTest::newRow(qPrintable(n)) << n;
}

void TestVscap::roundTripKeepsEverything() {
    QFETCH(QString, name);
    const auto a = loadSample(name);
    const std::string bytes = encodeVscap(*a);
    const auto b = loadVscapBytes(span(bytes));
    QCOMPARE(b->devices.size(), a->devices.size());
    QVERIFY(b->warnings.empty());
    compareEvents(*a, *b);
    compareSegments(*a, *b);
    QCOMPARE(b->annotations.size(), a->annotations.size());
    QCOMPARE(b->settings.expandableSegments, a->settings.expandableSegments);
    QCOMPARE(b->settings.maxSplitSize, a->settings.maxSplitSize);
    QCOMPARE(b->settings.raw, a->settings.raw);
    // Compressed well below the pickle: the point of the format.
    QVERIFY2(bytes.size() < test::readFile(test::samplePath(name)).size(), "no smaller than the sample");
}

void TestVscap::cliFiguresIdentical() {
    QFETCH(QString, name);
    QTemporaryDir dir;
    const QString out = dir.filePath(name + ".vscap");
    auto run = [](const QStringList& args) {
        QProcess p;
        p.start(QStringLiteral(VRAMSCOPE_CLI), args);
        p.waitForFinished(60000);
        QByteArray text = p.readAllStandardOutput();
        // The two files differ in name and format only.
        QList<QByteArray> keep;
        for (const auto& line : text.split('\n'))
            if (!line.contains("\"file\"") && !line.contains("\"format\"")) keep << line;
        return std::make_pair(p.exitCode(), keep.join('\n'));
    };
    const QString in = QString::fromStdString(test::samplePath(name));
    QCOMPARE(run({"convert", in, out}).first, 0);
    for (const QStringList& cmd :
         {QStringList{"summary", "--json"}, QStringList{"series", "--csv"}, QStringList{"state", "--json"},
          QStringList{"state", "--at", "0.02", "--json"}, QStringList{"leaks", "--json"}}) {
        const auto want = run(QStringList{cmd[0], in} + cmd.mid(1));
        const auto got = run(QStringList{cmd[0], out} + cmd.mid(1));
        QCOMPARE(got.first, 0);
        QVERIFY(want.second.size() > 20);
        QCOMPARE(got.second, want.second);
    }
}

void TestVscap::everyCutReadsThePrefix() {
    const auto a = loadSample("leak_list");
    // Small chunks: many boundaries, and events split over several chunks.
    vscap::Writer::Options o;
    o.chunkBytes = 700;
    o.eventsPerRecord = 50;
    const std::string bytes = encodeVscap(*a, o);
    size_t previous = 0, boundaries = 0;
    for (size_t cut = 0; cut <= bytes.size(); ++cut) {
        const auto part = span(bytes).first(cut);
        if (cut < vscap::kHeaderSize) {
            QVERIFY_THROWS_EXCEPTION(LoadError, loadVscapBytes(part));
            continue;
        }
        std::unique_ptr<Capture> b;
        try {
            b = loadVscapBytes(part);
        } catch (const LoadError& e) { // before the first events: a clear message, not an empty capture
            QVERIFY2(std::string(e.what()).find("no allocator events") != std::string::npos, e.what());
            QCOMPARE(previous, size_t(0));
            continue;
        }
        size_t n = 0;
        for (const auto& d : b->devices) n += d.eventCount();
        QVERIFY(n >= previous); // more bytes never lose events
        if (n != previous) ++boundaries, compareEvents(*a, *b, n);
        previous = n;
        QCOMPARE(b->warnings.empty(), cut == bytes.size());
    }
    QCOMPARE(previous, a->devices[0].eventCount());
    QVERIFY(boundaries > 3);
}

void TestVscap::damagedChunkIsRejected() {
    std::string bytes = encodeVscap(*loadSample("oom"));
    bytes[bytes.size() / 2] ^= 0x40;
    try {
        loadVscapBytes(span(bytes));
        QFAIL("a damaged chunk was accepted");
    } catch (const LoadError& e) {
        QVERIFY2(std::string(e.what()).find("checksum") != std::string::npos, e.what());
    }
}

void TestVscap::newerMajorVersionIsRejected() {
    std::string bytes = encodeVscap(*loadSample("oom"));
    bytes[8] = 2;
    try {
        loadVscapBytes(span(bytes));
        QFAIL("version 2 was accepted");
    } catch (const LoadError& e) {
        QVERIFY2(std::string(e.what()).find("update vramscope") != std::string::npos, e.what());
    }
}

void TestVscap::unknownRecordKindsAreSkipped() {
    const std::string bytes = handMade([](vscap::Writer& w) {
        w.beginRecord(vscap::Record(999)).bytes("from the future");
        w.endRecord();
        w.beginRecord(vscap::Record::Stream).varint(7);
        w.endRecord();
        auto& e = w.beginRecord(vscap::Record::Events);
        e.svarint(0), e.varint(1), e.svarint(1000), e.u8(0), e.svarint(0), e.svarint(4096), e.varint(512),
            e.varint(0), e.varint(0);
        w.endRecord();
    });
    const auto c = loadVscapBytes(span(bytes));
    QCOMPARE(c->devices.size(), size_t(1));
    QCOMPARE(c->devices[0].addr[0], uint64_t(4096));
    QCOMPARE(c->devices[0].timeUs[0], int64_t(1000));
    QCOMPARE(c->streams[c->devices[0].stream[0].value], uint64_t(7));
}

void TestVscap::hostileRecords_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    auto add = [](const char* name, const std::function<void(vscap::Writer&)>& f, const char* msg) {
        const std::string s = handMade(f);
        QTest::newRow(name) << QByteArray(s.data(), qsizetype(s.size())) << msg;
    };
    add(
        "undefined string", [](auto& w) { w.beginRecord(vscap::Record::Frame).varint(5), w.endRecord(); },
        "string 5 used before");
    add(
        "undefined frame",
        [](auto& w) {
            auto& b = w.beginRecord(vscap::Record::Stack);
            b.varint(1), b.varint(3);
            w.endRecord();
        },
        "frame used before");
    add(
        "huge event count",
        [](auto& w) {
            auto& b = w.beginRecord(vscap::Record::Events);
            b.svarint(0), b.varint(1ull << 40), b.svarint(0);
            w.endRecord();
        },
        "count beyond the record");
    add(
        "event with undefined stack",
        [](auto& w) {
            w.beginRecord(vscap::Record::Stream).varint(1);
            w.endRecord();
            auto& e = w.beginRecord(vscap::Record::Events);
            e.svarint(0), e.varint(1), e.svarint(0), e.u8(0), e.svarint(0), e.svarint(1), e.varint(1),
                e.varint(0), e.varint(9);
            w.endRecord();
        },
        "not defined");
    add(
        "events without streams",
        [](auto& w) {
            auto& e = w.beginRecord(vscap::Record::Events);
            e.svarint(0), e.varint(1), e.svarint(0), e.u8(0), e.svarint(0), e.svarint(1), e.varint(1),
                e.varint(0), e.varint(0);
            w.endRecord();
        },
        "before any stream");
    add(
        "overlong number",
        [](auto& w) { w.beginRecord(vscap::Record::Stream).bytes(std::string(12, '\xff')), w.endRecord(); },
        "number");
    add(
        "device ordinal",
        [](auto& w) { w.beginRecord(vscap::Record::Reserve).svarint(1 << 20), w.endRecord(); },
        "device ordinal");
    // A record claiming more bytes than its chunk: built byte by byte.
    std::string s = handMade([](auto&) {});
    QTest::newRow("bad chunk magic") << QByteArray(s.data(), 16).append("XXXXgarbage-garbage-garbage")
                                     << "no chunk";
}

void TestVscap::hostileRecords() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    try {
        loadVscapBytes({reinterpret_cast<const uint8_t*>(bytes.constData()), size_t(bytes.size())});
        QFAIL("accepted");
    } catch (const LoadError& e) {
        QVERIFY2(QString(e.what()).contains(message), e.what());
    }
}

void TestVscap::incrementalFeedEqualsWholeFile() {
    // A live socket delivers arbitrary pieces: feed 1..97 bytes at a time, keep the unused rest.
    const auto a = loadSample("side_stream");
    vscap::Writer::Options o;
    o.chunkBytes = 300;
    o.eventsPerRecord = 40;
    const std::string bytes = encodeVscap(*a, o);
    Capture live;
    vscap::Decoder d(live);
    std::string pending;
    size_t pos = 0, step = 1, offset = 0;
    while (pos < bytes.size()) {
        const size_t n = std::min(step, bytes.size() - pos);
        pending.append(bytes, pos, n);
        pos += n, step = step % 97 + 13;
        const size_t used = d.consume(span(pending), offset);
        pending.erase(0, used), offset += used;
    }
    QVERIFY(pending.empty());
    QVERIFY(d.ended());
    compareEvents(*a, live);
    compareSegments(*a, live);
}

// Files written by the PyTorch recorder on the H200 (samples/recorded): PyTorch's own figures.
void TestVscap::recorderCapturesEqualTruth_data() {
    QTest::addColumn<QString>("path");
    const QDir dir(test::samplesDir() + "/../recorded");
    const auto files = dir.entryList({"*.vscap"}, QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 6);
    for (const QString& f : files) QTest::newRow(qPrintable(f)) << dir.filePath(f);
}

void TestVscap::recorderCapturesEqualTruth() {
    QFETCH(QString, path);
    QFile tf(QString(path).replace(".vscap", ".truth.json"));
    QVERIFY(tf.open(QIODevice::ReadOnly));
    const QJsonObject truth = QJsonDocument::fromJson(tf.readAll()).object();
    const auto a = openAnalysis(path.toStdString());
    QVERIFY(a->warnings().empty());
    const DeviceTrace& t = a->trace(0);
    const auto steps = truth["steps"].toArray();
    QVERIFY(steps.size() >= 20);
    for (const auto& v : steps) {
        const auto step = v.toObject();
        const auto tUs = static_cast<int64_t>(step["t_us"].toDouble());
        const size_t n = size_t(std::upper_bound(t.timeUs.begin(), t.timeUs.end(), tUs) - t.timeUs.begin());
        QVERIFY(n > 0);
        QCOMPARE(a->replay(0).after(n - 1).allocated, static_cast<int64_t>(step["allocated"].toDouble()));
        QCOMPARE(a->replay(0).after(n - 1).reserved, static_cast<int64_t>(step["reserved"].toDouble()));
    }
    const auto s = a->summary(0);
    QCOMPARE(s.final.allocated, static_cast<int64_t>(truth["final_allocated"].toDouble()));
    QCOMPARE(s.final.reserved, static_cast<int64_t>(truth["final_reserved"].toDouble()));
    const auto stats = truth["final_stats"].toObject();
    QCOMPARE(s.peak.allocated, static_cast<int64_t>(stats["allocated_bytes.all.peak"].toDouble()));
    QCOMPARE(s.peak.reserved, static_cast<int64_t>(stats["reserved_bytes.all.peak"].toDouble()));
    QCOMPARE(QString::fromUtf8(leakKindName(diagnoseLeaks(*a, 0).kind).data()), truth["kind"].toString());

    // Retention graphs survive a rewrite node for node and edge for edge.
    const Capture& c1 = a->capture();
    const auto c2 = loadVscapBytes(span(encodeVscap(c1)));
    QCOMPARE(c2->retention.size(), c1.retention.size());
    for (size_t k = 0; k < c1.retention.size(); ++k) {
        const auto &x = c1.retention[k], &y = c2->retention[k];
        QCOMPARE(y.nodes.size(), x.nodes.size());
        QCOMPARE(y.edges.size(), x.edges.size());
        QCOMPARE(y.objectsScanned, x.objectsScanned);
        for (size_t i = 0; i < x.nodes.size(); ++i) {
            QCOMPARE(y.nodes[i].kind, x.nodes[i].kind);
            QCOMPARE(y.nodes[i].gpuBytes, x.nodes[i].gpuBytes);
            QCOMPARE(c2->strings.text(y.nodes[i].label), c1.strings.text(x.nodes[i].label));
        }
        for (size_t i = 0; i < x.edges.size(); ++i) {
            QCOMPARE(y.edges[i].src, x.edges[i].src);
            QCOMPARE(y.edges[i].dst, x.edges[i].dst);
            QCOMPARE(c2->strings.text(y.edges[i].label), c1.strings.text(x.edges[i].label));
        }
    }
}

// The recorder on the GPU machine wrote vramscope.mark("epoch", e) at each epoch's start; the reader
// keeps each value (what the OOM's bytes per sample reads from a marked batch size), in order.
void TestVscap::recordedMarksKeepTheirValues() {
    const QString dir = test::samplesDir() + "/../oom/recordings/";
    QFile tf(dir + "accum_epoch_features.rec.truth.json");
    QVERIFY(tf.open(QIODevice::ReadOnly));
    std::vector<int64_t> epochs;
    for (const auto& v : QJsonDocument::fromJson(tf.readAll()).object()["steps"].toArray()) {
        const auto e = static_cast<int64_t>(v.toObject()["epoch"].toDouble());
        if (epochs.empty() || epochs.back() != e) epochs.push_back(e);
    }
    QVERIFY(epochs.size() >= 3);
    const auto c = loadCaptureFile((dir + "accum_epoch_features.vscap").toStdString(), {});
    std::vector<int64_t> marked;
    for (const Annotation& a : c->annotations)
        if (a.value != Annotation::kNoMarkValue && c->strings.text(a.name) == "epoch")
            marked.push_back(a.value);
    QCOMPARE(marked, epochs);
}

QTEST_GUILESS_MAIN(TestVscap)
#include "tst_vscap.moc"
