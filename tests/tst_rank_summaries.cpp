// Rank summaries as files (vramscope-cli summarize, compare/RankSummaryFile.h): every field read back
// as written; `ranks` over a folder of summaries says what it says over the captures (the GPU-recorded
// samples/ranks/ddp4); a summary stands in for its capture, a stale one is warned of, a bad input
// fails alone; and hostile summaries (cut, flipped, generated with hostile counts and values) are
// refused with a sentence or read into a summary the rank statistics can use.
#include "CliChild.h"
#include "HostileRankSummary.h"
#include "compare/RankSet.h"
#include "compare/RankSummaryFile.h"
#include "load/OpenAnalysis.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <thread>

#include <random>

using namespace vs;

class TestRankSummaries : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void everyFieldReadBack();
    void ranksOnSummariesEqualRanksOnCaptures();
    void summaryStandsInForItsCapture();
    void staleSummaryWarned();
    void badInputFailsAlone();
    void cutAndFlippedFilesRefused();
    void hostileFieldsRefusedOrUsable();
    void threadsBoundedByCoresAndFiles();
    void textShowsNamesNotControls();
    void unnamedRanksNeverOverflow();

  private:
    QTemporaryDir dir_;
    QStringList captures_; // absolute paths of ddp4's rank0..3
};

namespace {

struct Run {
    int code = -1;
    QByteArray out, err;
};

Run cli(const QStringList& args) {
    const test::CliRun r = test::runCliMeasured(VRAMSCOPE_CLI, args, 120);
    return {r.rc, QByteArray::fromStdString(r.out), QByteArray::fromStdString(r.err)};
}

void compareSummaries(const RankSummary& a, const RankSummary& b) {
    QCOMPARE(a.rank, b.rank);
    QCOMPARE(a.path, b.path);
    QCOMPARE(a.device, b.device);
    QCOMPARE(a.events, b.events);
    QCOMPARE(std::make_pair(a.firstUs, a.lastUs), std::make_pair(b.firstUs, b.lastUs));
    QCOMPARE(std::make_pair(a.peakAllocated, a.peakReserved),
             std::make_pair(b.peakAllocated, b.peakReserved));
    QCOMPARE(std::make_pair(a.finalAllocated, a.finalReserved),
             std::make_pair(b.finalAllocated, b.finalReserved));
    QCOMPARE(a.growth, b.growth);
    QCOMPARE(a.ooms, b.ooms);
    QCOMPARE(a.marker, b.marker);
    QCOMPARE(a.iterations, b.iterations);
    QCOMPARE(a.stepsPerSlot, b.stepsPerSlot);
    QVERIFY(a.stepUs == b.stepUs && a.stepPeak == b.stepPeak && a.stepPeakReserved == b.stepPeakReserved);
    QVERIFY(a.binAllocated == b.binAllocated && a.binReserved == b.binReserved);
}

// What a summary that reads must hold for the heatmap and the statistics (RankSummary.h).
bool usable(const RankSummary& r) {
    const size_t steps = r.stepUs.size();
    return r.firstUs <= r.lastUs && r.stepsPerSlot > 0 && (r.stepsPerSlot & (r.stepsPerSlot - 1)) == 0 &&
           r.stepPeak.size() == steps && r.stepPeakReserved.size() == steps &&
           steps == (r.iterations + r.stepsPerSlot - 1) / r.stepsPerSlot &&
           r.binReserved.size() == r.binAllocated.size() &&
           (r.binAllocated.empty() ? r.events == 0 : r.binAllocated.size() == RankSummary::kBins);
}

std::span<const uint8_t> bytesOf(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Why the reader refuses `file`, or "" when it reads it.
std::string refusal(const std::string& file) {
    try {
        decodeRankSummary(bytesOf(file));
        return "";
    } catch (const RankSummaryError& e) {
        return e.what();
    }
}

} // namespace

void TestRankSummaries::initTestCase() {
    // the recorded ranks (samples/ranks/README.md): rank 2 keeps each step's output
    for (int r = 0; r < 4; ++r) {
        const QString to = dir_.filePath(QString("caps/rank%1.pickle").arg(r));
        QDir().mkpath(dir_.filePath("caps"));
        QProcess xz;
        xz.setStandardOutputFile(to);
        xz.start("xz", {"-dc", QString(VRAMSCOPE_SAMPLES_DIR "/../ranks/ddp4/rank%1.pickle.xz").arg(r)});
        QVERIFY(xz.waitForFinished(60000) && xz.exitCode() == 0);
        captures_ << QFileInfo(to).absoluteFilePath();
    }
}

void TestRankSummaries::everyFieldReadBack() {
    RankSummary real = summariseRank(*openAnalysis(captures_[2].toStdString()));
    QVERIFY(real.iterations > 0 && real.binAllocated.size() == RankSummary::kBins);
    // and one that keeps a slot per 4 iterations, with no rank in its name and negative figures
    RankSummary odd = real;
    odd.rank = -1, odd.stepsPerSlot = 4, odd.iterations = 4 * real.stepUs.size() - 3,
    odd.growth = -(int64_t(1) << 40);
    odd.marker = "ProfilerStep#\xc3\xa9", odd.ooms = 3, odd.device = 7, odd.firstUs = -5;
    for (const RankSummary* s : {&real, &odd}) {
        const auto source = SourceStamp::of(captures_[2].toStdString());
        QVERIFY(source);
        const std::string file = encodeRankSummary(*s, *source);
        QVERIFY2(file.size() < 8192, std::to_string(file.size()).c_str()); // a few KB at most
        const RankSummaryFile back = decodeRankSummary(bytesOf(file));
        QCOMPARE(back.source.path, source->path);
        QVERIFY(back.source.sameFileState(*source));
        QCOMPARE(back.minor, RankSummaryFile::kMinor);
        RankSummary expected = *s;
        expected.path = source->path; // a summary's path is its source's
        compareSummaries(back.summary, expected);
    }
}

// `ranks DIR --threads 60000` over 20,000 summaries aborted (SIGABRT) when the system refused the
// threads: the workers are bounded by a few per core and by the files (issue 47).
void TestRankSummaries::threadsBoundedByCoresAndFiles() {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    QCOMPARE(rankWorkers(60000, 20000), 4 * cores);
    QCOMPARE(rankWorkers(0, 20000), cores);
    QCOMPARE(rankWorkers(3, 20000), std::min(3u, 4 * cores));
    QCOMPARE(rankWorkers(60000, 2), 2u);
    QCOMPARE(rankWorkers(0, 0), 1u);
    // and the command runs with it
    const Run r = cli(QStringList{"ranks", "--threads", "60000", "--json"} + captures_);
    QCOMPARE(r.code, 0);
    QCOMPARE(QJsonDocument::fromJson(r.out).object()["ranks"].toArray().size(), 4);
}

// A file named with a newline and an escape sequence forged a line of `ranks` and reached the
// terminal (issue 47): names and messages are printed with their control characters as \xNN.
void TestRankSummaries::textShowsNamesNotControls() {
    const QString evil = dir_.filePath(QString::fromUtf8("rank9\n\x1b[31mforged.pickle"));
    QVERIFY(QFile::copy(captures_[0], evil));
    const Run r = cli({"ranks", evil, captures_[1]});
    QCOMPARE(r.code, 0);
    QVERIFY2(!r.out.contains('\x1b'), r.out.constData());
    QVERIFY2(r.out.contains("rank9\\x0a\\x1b[31mforged.pickle"), r.out.constData());
    for (const QByteArray& line : r.out.split('\n')) // every line is a header, a rank or a verdict
        QVERIFY2(line.isEmpty() || line.startsWith(' ') || line.startsWith("Median") ||
                     line.startsWith("No rank") || line.startsWith("Outlier") || line.startsWith("Warning"),
                 line.constData());
    QFile::remove(evil);
}

// A file without a rank beside a summary of rank 2^31 - 1 was numbered 2^31 (signed overflow, UBSan;
// issue 47): it keeps an error instead; below that it is numbered after the highest, in order.
void TestRankSummaries::unnamedRanksNeverOverflow() {
    std::vector<RankSummary> ranks(3);
    ranks[0].rank = 4, ranks[1].rank = -1, ranks[2].rank = -1;
    numberUnnamedRanks(ranks);
    QCOMPARE(ranks[1].rank, 5);
    QCOMPARE(ranks[2].rank, 6);
    std::vector<RankSummary> top(2);
    top[0].rank = INT32_MAX, top[1].rank = -1;
    numberUnnamedRanks(top);
    QCOMPARE(top[0].rank, INT32_MAX);
    QVERIFY(!top[1].ok());
    QVERIFY2(top[1].error.find("none is left after rank 2147483647") != std::string::npos,
             top[1].error.c_str());
    RankSet set;
    set.ranks = top;
    finishRankSet(set); // and the set is still usable: the readable one alone in the statistics
    QCOMPARE(set.readable(), size_t(1));
}

void TestRankSummaries::ranksOnSummariesEqualRanksOnCaptures() {
    const QString out = dir_.filePath("sums");
    const Run s = cli(QStringList{"summarize"} + captures_ + QStringList{"-o", out});
    QCOMPARE(s.code, 0);
    QCOMPARE(s.out.trimmed().split('\n').size(), 4); // one summary per capture, its path on a line
    QCOMPARE(QDir(out).entryList(QDir::Files | QDir::Hidden).size(), 4); // no temporary left behind
    const Run onCaptures = cli(QStringList{"ranks", "--json"} + captures_);
    const Run onSummaries = cli({"ranks", "--json", out});
    QCOMPARE(onCaptures.code, 0);
    QCOMPARE(onSummaries.code, 0);
    QCOMPARE(onSummaries.out, onCaptures.out); // every rank, figure, outlier and sentence
    const QJsonObject d = QJsonDocument::fromJson(onSummaries.out).object();
    QCOMPARE(d["outliers"].toArray().size(), 1);
    QCOMPARE(d["outliers"].toArray()[0].toObject()["rank"].toInt(), 2);
    QCOMPARE(d["ranks"].toArray()[2].toObject()["file"].toString(), captures_[2]); // the source named
}

void TestRankSummaries::summaryStandsInForItsCapture() {
    // captures and their summaries in one folder: four ranks, each read once (from its summary)
    const QString mixed = dir_.filePath("mixed");
    QVERIFY(QDir().mkpath(mixed));
    for (int r = 0; r < 4; ++r) QVERIFY(QFile::copy(captures_[r], mixed + QString("/rank%1.pickle").arg(r)));
    QCOMPARE(cli({"summarize", mixed + "/rank1.pickle", mixed + "/rank2.pickle", "-o", mixed}).code, 0);
    RankSet set = loadRanks(rankFiles(mixed.toStdString()));
    QCOMPARE(set.ranks.size(), size_t(4));
    QVERIFY(set.warnings.empty());
    for (int r = 0; r < 4; ++r)
        QCOMPARE(set.ranks[size_t(r)].path, (mixed + QString("/rank%1.pickle").arg(r)).toStdString());
    // the summary is what was read: rank 2's capture, cut to nothing, is not opened
    QVERIFY(QFile::resize(mixed + "/rank3.pickle", 0) && QFile::remove(mixed + "/rank3.pickle"));
    QFile cut(mixed + "/rank2.pickle");
    QVERIFY(cut.open(QIODevice::ReadWrite));
    const QByteArray keep = cut.readAll();
    cut.resize(0), cut.close();
    set = loadRanks(rankFiles(mixed.toStdString()));
    QCOMPARE(set.ranks.size(), size_t(3));
    QVERIFY(set.ranks[2].ok());
    QCOMPARE(set.ranks[2].rank, 2);
    QCOMPARE(set.outliers.size(), size_t(1));
    QVERIFY(!set.warnings.empty()); // its capture changed since: stale, said
    // an unreadable summary gives way to its capture, with a warning
    QVERIFY(cut.open(QIODevice::WriteOnly) && cut.write(keep) == keep.size());
    cut.close();
    QFile bad(mixed + "/rank1.pickle.vsrank");
    QVERIFY(bad.open(QIODevice::ReadWrite) && bad.resize(40));
    bad.close();
    set = loadRanks(rankFiles(mixed.toStdString()));
    QCOMPARE(set.ranks.size(), size_t(3));
    QVERIFY(set.ranks[1].ok());
    QCOMPARE(set.ranks[1].path, (mixed + "/rank1.pickle").toStdString());
    const auto said = std::find_if(set.warnings.begin(), set.warnings.end(), [](const std::string& w) {
        return w.find("rank1.pickle.vsrank is not a readable rank summary") == 0;
    });
    QVERIFY(said != set.warnings.end());
    QVERIFY2(said->find("rank1.pickle was read instead") != std::string::npos, said->c_str());
}

void TestRankSummaries::staleSummaryWarned() {
    const QString folder = dir_.filePath("stale");
    QVERIFY(QDir().mkpath(folder));
    const QString capture = folder + "/rank0.pickle";
    QVERIFY(QFile::copy(captures_[0], capture));
    QCOMPARE(cli({"summarize", capture, "-o", folder + "/s"}).code, 0);
    QCOMPARE(cli({"ranks", folder + "/s"}).out.contains("Warning"),
             false); // its source, where it was made, unchanged
    QFile f(capture);
    QVERIFY(f.open(QIODevice::ReadWrite));
    QVERIFY(f.setFileTime(QDateTime::currentDateTime().addSecs(-3600), QFileDevice::FileModificationTime));
    f.close();
    const Run r = cli({"ranks", folder + "/s", "--json"});
    QCOMPARE(r.code, 0);
    const QJsonArray w = QJsonDocument::fromJson(r.out).object()["warnings"].toArray();
    QCOMPARE(w.size(), 1);
    QVERIFY2(w[0].toString().startsWith("rank0.pickle.vsrank is stale: " + capture),
             qPrintable(w[0].toString()));
}

void TestRankSummaries::badInputFailsAlone() {
    const QString out = dir_.filePath("bad-out");
    const QString junk = dir_.filePath("junk.pickle");
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly) && f.write("not a pickle") > 0);
    f.close();
    const Run r = cli({"summarize", junk, captures_[1], dir_.filePath("missing.pickle"), "-o", out});
    QCOMPARE(r.code, 2);
    const QList<QByteArray> lines = r.err.trimmed().split('\n');
    QCOMPARE(lines.size(), 3); // one per bad file, then how many failed
    QVERIFY2(lines[0].startsWith("vramscope-cli: error: " + junk.toUtf8()), lines[0].constData());
    QCOMPARE(lines[2], QByteArray("vramscope-cli: error: 2 of 3 files could not be summarised"));
    QCOMPARE(QDir(out).entryList(QDir::Files | QDir::Hidden), QStringList{"rank1.pickle.vsrank"});
    QCOMPARE(cli({"summarize", captures_[1]}).code, 2); // no -o
    // two captures of one name: the second would overwrite the first's summary, and is refused
    const QString twin = dir_.filePath("twin");
    QVERIFY(QDir().mkpath(twin) && QFile::copy(captures_[2], twin + "/rank1.pickle"));
    const Run same = cli({"summarize", captures_[1], twin + "/rank1.pickle", "-o", out});
    QCOMPARE(same.code, 2);
    QVERIFY2(same.err.contains("has the file name of " + captures_[1].toUtf8()), same.err.constData());
    QCOMPARE(readRankSummaryFile((out + "/rank1.pickle.vsrank").toStdString()).source.path,
             captures_[1].toStdString());
}

void TestRankSummaries::cutAndFlippedFilesRefused() {
    const auto source = SourceStamp::of(captures_[0].toStdString());
    const std::string file =
        encodeRankSummary(summariseRank(*openAnalysis(captures_[0].toStdString())), *source);
    for (size_t n = 0; n < file.size(); ++n) // every cut
        QVERIFY2(!refusal(file.substr(0, n)).empty(),
                 qPrintable(QString("cut to %1 of %2 bytes, read").arg(n).arg(file.size())));
    const RankSummary whole = decodeRankSummary(bytesOf(file)).summary;
    for (size_t at = 0; at < file.size(); ++at) { // every byte flipped: refused, or read as it was
        std::string flipped = file;               // (the minor version; bits zstd's frame ignores)
        flipped[at] = char(flipped[at] ^ 0x10);
        try {
            compareSummaries(decodeRankSummary(bytesOf(flipped)).summary, whole);
        } catch (const RankSummaryError&) {
        }
    }
    std::string newer = file;
    newer[8] = 2;
    const std::string why = refusal(newer);
    QVERIFY2(why.find("format version 2 (this build reads version 1") != std::string::npos, why.c_str());
}

void TestRankSummaries::hostileFieldsRefusedOrUsable() {
    std::mt19937_64 rng(7);
    size_t read = 0, refused = 0;
    for (int n = 0; n < 3000; ++n) {
        std::vector<uint8_t> recipe(16 + rng() % 200);
        for (auto& b : recipe) b = uint8_t(rng());
        fuzz::FuzzBytes in(recipe.data(), recipe.size());
        const std::string file = fuzz::HostileRankSummary(in).build();
        try {
            const RankSummaryFile f = decodeRankSummary(bytesOf(file));
            QVERIFY(usable(f.summary));
            RankSet set;
            set.ranks = {f.summary, f.summary};
            set.ranks[1].rank = 9;
            finishRankSet(set);
            QVERIFY(set.firstUs <= set.lastUs);
            ++read;
        } catch (const RankSummaryError& e) {
            QVERIFY(std::string(e.what()).rfind("not a readable rank summary: ", 0) == 0);
            ++refused;
        }
    }
    // both ways taken often: the generator reaches past the frame into the fields' checks
    QVERIFY2(read > 100 && refused > 1000, qPrintable(QString("%1 read, %2 refused").arg(read).arg(refused)));
}

QTEST_GUILESS_MAIN(TestRankSummaries)
#include "tst_rank_summaries.moc"
