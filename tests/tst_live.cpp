// Capture > Listen against a fake producer on a real Unix socket: the stream arrives and decodes,
// the window follows it (and stops following when frozen), the session saves as .vscap; hostile or
// broken producers (garbage, bad lengths, early disconnect, another user, a second program, silence,
// trickling, more than the budget) are refused with a message and never crash or corrupt what was
// received; the socket lives only in a private directory; Launch Program never follows a planted path.
#include "TestData.h"
#include "VscapChunks.h"
#include "WindowParts.h"
#include "analysis/CaptureAnalysis.h"
#include "io/CaptureFile.h"
#include "io/VscapExport.h"
#include "io/VscapReader.h"
#include "live/FileFollower.h"
#include "live/LiveController.h"
#include "live/LiveSession.h"
#include "load/LiveCapture.h"
#include "load/OpenAnalysis.h"
#include "models/EventTableModel.h"
#include "session/Session.h"
#include "timeline/TimelinePlot.h"
#include "util/Format.h"
#include "views/panels/EventTableView.h"
#include "window/MainWindow.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QInputDialog>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace vs;
using namespace vs::test;

namespace {
// A producer: a plain POSIX client socket, as the Python recorder uses.
class Producer {
  public:
    explicit Producer(const QString& path) {
        fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        const QByteArray p = QFile::encodeName(path);
        std::memcpy(a.sun_path, p.constData(), std::min<size_t>(p.size(), sizeof a.sun_path - 1));
        ok_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    }
    ~Producer() { close(); }
    bool ok() const { return ok_; }
    // Sends in small pieces, letting the GUI's event loop run in between.
    void send(std::string_view bytes, size_t piece = 37) {
        for (size_t i = 0; i < bytes.size(); i += piece) {
            const size_t n = std::min(piece, bytes.size() - i);
            if (::send(fd_, bytes.data() + i, n, MSG_NOSIGNAL) != ssize_t(n)) return;
            if ((i / piece) % 16 == 0) QCoreApplication::processEvents();
        }
        QCoreApplication::processEvents();
    }
    void close() {
        if (fd_ >= 0) ::close(fd_), fd_ = -1;
    }
    // What the viewer sent back (requests), without waiting.
    std::string received() {
        char buf[64];
        const ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
        return n > 0 ? std::string(buf, size_t(n)) : std::string();
    }

  private:
    int fd_ = -1;
    bool ok_ = false;
};

std::string sampleBytes(const QString& name, size_t chunkBytes = 400) {
    vscap::Writer::Options o;
    o.chunkBytes = chunkBytes;
    o.eventsPerRecord = 64;
    return encodeVscap(*loadCaptureFile(test::samplePath(name), {}), o);
}

size_t eventCount(const CaptureAnalysis& a) {
    size_t n = 0;
    for (size_t i = 0; i < a.deviceCount(); ++i) n += a.trace(i).eventCount();
    return n;
}

using vs::test::afterChunk;
} // namespace

class TestLive : public QObject {
    Q_OBJECT
  private slots:
    void init() { QVERIFY(dir_.isValid()); }
    void streamArrivesAndDecodes();
    void socketIsPrivate();
    void socketDirectoryMustBePrivate_data();
    void socketDirectoryMustBePrivate();
    void defaultDirectoryWithoutRuntimeDir();
    void onlyAStaleSocketIsReplaced();
    void silentProducerTimesOut();
    void idleProducerTimesOut();
    void keepaliveHoldsAnIdleProgram();
    void tricklingProducerIsCutOff();
    void oversizedStreamHitsTheBudget();
    void tooManyEventsHitTheBudget();
    void hostileProducers_data();
    void hostileProducers();
    void earlyDisconnectKeepsCompleteChunks();
    void anotherUserIsRefused();
    void secondProgramIsRefused();
    void retentionIsRequestedFromTheProgram();
    void windowFollowsFreezesAndSaves();
    void liveViewGrowsInPlace();
    void windowGrowsKeepingSelection();
    void launchedProgramIsFollowed();
    void launchedProgramWithoutCudaSaysSo();
    void launchNeverFollowsAPlantedOutput();
    void launchWritesIntoAFreshPrivateDirectory();

  private:
    // A session whose stream limits are `edit`ed from the defaults, listening in the test's directory.
    template <typename Edit> void listenWith(ui::LiveSession& s, const char* name, Edit edit) {
        ui::LiveSession::Limits l;
        edit(l);
        s.setLimits(l);
        QVERIFY(s.listen(socketPath(name)));
    }
    QString socketPath(const char* name) { return dir_.filePath(QString::fromLatin1(name)); }
    QTemporaryDir dir_;
};

void TestLive::streamArrivesAndDecodes() {
    ui::LiveSession s;
    QVERIFY(s.listen(socketPath("a.sock")));
    const std::string bytes = sampleBytes("leak_list");
    Producer p(s.socketPath());
    QVERIFY(p.ok());
    p.send(bytes);
    QTRY_COMPARE(s.bytes().size(), qsizetype(bytes.size()));
    QVERIFY(s.bytes() == QByteArray(bytes.data(), qsizetype(bytes.size())));
    const auto want = loadCaptureFile(test::samplePath("leak_list"), {});
    QCOMPARE(s.events(), uint64_t(want->devices[0].eventCount()));
    QSignalSpy status(&s, &ui::LiveSession::statusChanged);
    p.close();
    QTRY_VERIFY(!status.isEmpty());
    QVERIFY2(status.last()[0].toString().contains("finished"), qPrintable(status.last()[0].toString()));
}

void TestLive::socketIsPrivate() {
    ui::LiveSession s;
    QVERIFY(s.listen(socketPath("b.sock")));
    struct stat st {};
    QCOMPARE(::stat(QFile::encodeName(s.socketPath()).constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, mode_t(0600));
    QVERIFY(s.command().contains("VRAMSCOPE_LIVE=" + s.socketPath()));
    QVERIFY(s.command().contains("python -m vramscope record"));
}

// Where the socket goes: the directory must be ours, a real directory and closed to others; one
// that is not is refused with the reason (and left as it is), a missing one is made 0700.
void TestLive::socketDirectoryMustBePrivate_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("open to others") << "0755"
                                    << "has mode 0755";
    QTest::newRow("symlink to a private directory") << "symlink"
                                                    << "symbolic link";
    QTest::newRow("owned by nobody") << "nobody"
                                     << "belongs to uid 65534";
    QTest::newRow("missing: made") << "missing"
                                   << "";
}

void TestLive::socketDirectoryMustBePrivate() {
    QFETCH(QString, kind);
    QFETCH(QString, message);
    const QString dir = dir_.filePath("d-" + kind);
    const QByteArray d = QFile::encodeName(dir);
    if (kind == "symlink") {
        QVERIFY(QDir().mkpath(dir_.filePath("real")));
        QCOMPARE(::chmod(QFile::encodeName(dir_.filePath("real")).constData(), 0700), 0);
        QCOMPARE(::symlink(QFile::encodeName(dir_.filePath("real")).constData(), d.constData()), 0);
    } else if (kind != "missing") {
        QCOMPARE(::mkdir(d.constData(), 0700), 0);
        if (kind == "0755") QCOMPARE(::chmod(d.constData(), 0755), 0);
        if (kind == "nobody" && ::chown(d.constData(), 65534, 65534) != 0) QSKIP("not root: cannot chown");
    }
    ui::LiveSession s;
    const bool ok = s.listen(dir + "/live.sock");
    if (message.isEmpty()) {
        QVERIFY2(ok, qPrintable(s.errorString()));
        struct stat st {};
        QCOMPARE(::lstat(d.constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0700));
        return;
    }
    QVERIFY(!ok);
    QVERIFY(!s.isListening());
    QVERIFY2(s.errorString().contains(message), qPrintable(s.errorString()));
    QVERIFY(s.errorString().contains(dir));
    QVERIFY(!QFileInfo::exists(dir + "/live.sock")); // nothing was made in it
}

// Without XDG_RUNTIME_DIR the socket goes to TMPDIR/vramscope-UID: made 0700 on first use, refused
// when another user (here: anyone with the directory at mode 0777) got there first.
void TestLive::defaultDirectoryWithoutRuntimeDir() {
    const QByteArray xdg = qgetenv("XDG_RUNTIME_DIR"), tmp = qgetenv("TMPDIR");
    qunsetenv("XDG_RUNTIME_DIR");
    qputenv("TMPDIR", QFile::encodeName(dir_.path()));
    const QString expected = dir_.filePath(QStringLiteral("vramscope-%1").arg(::geteuid()));
    const QString path = ui::LiveSession::defaultSocketPath();
    QCOMPARE(QFileInfo(path).absolutePath(), expected);
    {
        ui::LiveSession s;
        QVERIFY2(s.listen(path), qPrintable(s.errorString()));
        struct stat st {};
        QCOMPARE(::lstat(QFile::encodeName(expected).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0700));
        QCOMPARE(::lstat(QFile::encodeName(path).constData(), &st), 0);
        QVERIFY(S_ISSOCK(st.st_mode));
        QCOMPARE(st.st_mode & 0777, mode_t(0600));
    }
    QCOMPARE(::chmod(QFile::encodeName(expected).constData(), 0777), 0);
    ui::LiveSession s;
    QVERIFY(!s.listen(ui::LiveSession::defaultSocketPath()));
    QVERIFY2(s.errorString().contains("mode 0777"), qPrintable(s.errorString()));
    for (const auto& [name, value] : {std::pair{"XDG_RUNTIME_DIR", xdg}, std::pair{"TMPDIR", tmp}})
        value.isNull() ? void(qunsetenv(name)) : void(qputenv(name, value));
}

// A socket left by a crashed session is replaced; a file or a symlink at the socket's path is not
// removed or followed.
void TestLive::onlyAStaleSocketIsReplaced() {
    const QString stale = socketPath("stale.sock");
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0); // as a crashed session leaves it: bound, closed
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strcpy(a.sun_path, QFile::encodeName(stale).constData());
    QCOMPARE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ::close(fd);
    ui::LiveSession s;
    QVERIFY2(s.listen(stale), qPrintable(s.errorString()));
    Producer p(stale);
    QVERIFY(p.ok());

    const QString file = socketPath("file.sock"), link = socketPath("link.sock"),
                  victim = socketPath("victim");
    QFile f(file), v(victim);
    QVERIFY(f.open(QIODevice::WriteOnly) && v.open(QIODevice::WriteOnly));
    f.write("mine"), v.write("precious"), f.close(), v.close();
    QCOMPARE(::symlink(QFile::encodeName(victim).constData(), QFile::encodeName(link).constData()), 0);
    for (const QString& path : {file, link}) {
        ui::LiveSession t;
        QVERIFY(!t.listen(path));
        QVERIFY2(t.errorString().contains("not a socket"), qPrintable(t.errorString()));
    }
    QCOMPARE(QFileInfo(file).size(), qint64(4));
    QVERIFY(QFileInfo(link).isSymLink());
    QCOMPARE(QFileInfo(victim).size(), qint64(8));
}

// A program that connects and says nothing holds the session only until the handshake timeout;
// the next program can connect.
void TestLive::silentProducerTimesOut() {
    ui::LiveSession s;
    listenWith(s, "silent.sock", [](auto& l) { l.handshakeMs = 300; });
    QSignalSpy status(&s, &ui::LiveSession::statusChanged);
    for (const size_t sent : {size_t(0), vscap::kHeaderSize - 1}) { // nothing, then not a whole header
        Producer p(s.socketPath());
        QTRY_VERIFY(s.connected());
        p.send(sampleBytes("oom").substr(0, sent));
        QTRY_VERIFY_WITH_TIMEOUT(!s.connected(), 3000);
        QVERIFY2(status.last()[0].toString().contains("no .vscap header within 0.3 s"),
                 qPrintable(status.last()[0].toString()));
        QCOMPARE(s.bytes().size(), qsizetype(0));
    }
    Producer next(s.socketPath());
    next.send(sampleBytes("oom").substr(0, 64));
    QTRY_VERIFY(s.connected());
}

// After its last complete chunk a program may be silent for idleMs; then the session ends, with
// what arrived kept.
void TestLive::idleProducerTimesOut() {
    ui::LiveSession s;
    listenWith(s, "idle.sock", [](auto& l) { l.idleMs = 400; });
    const std::string bytes = sampleBytes("leak_list");
    const size_t two = afterChunk(bytes, 1);
    QSignalSpy status(&s, &ui::LiveSession::statusChanged);
    Producer p(s.socketPath());
    p.send(std::string_view(bytes).substr(0, two));
    QTRY_COMPARE(s.bytes().size(), qsizetype(two));
    QElapsedTimer t;
    t.start();
    QTRY_VERIFY_WITH_TIMEOUT(!s.connected(), 3000);
    QVERIFY(t.elapsed() >= 300); // not before the timeout (less the time the two chunks took)
    QVERIFY2(status.last()[0].toString().contains("sent nothing for 0.4 s"),
             qPrintable(status.last()[0].toString()));
    QVERIFY(s.bytes() == QByteArray(bytes.data(), qsizetype(two)));
    QVERIFY(s.isListening());
}

// The recorder's keepalive (recorder.py _keep_alive): an empty chunk, codec none, as Python's
// vscap.chunk(b"", CODEC_NONE) writes it. A program that sends one within every idle period keeps
// its session past the timeout, adds no events, and the kept stream still decodes.
void TestLive::keepaliveHoldsAnIdleProgram() {
    ui::LiveSession s;
    listenWith(s, "keepalive.sock", [](auto& l) { l.idleMs = 400; });
    const std::string bytes = sampleBytes("leak_list");
    size_t chunks = 1;
    while (afterChunk(bytes, chunks - 1) + vscap::kChunkHeaderSize <= bytes.size()) ++chunks;
    const size_t two = afterChunk(bytes, chunks / 2); // half the chunks: allocations, not only the preamble
    Producer p(s.socketPath());
    p.send(std::string_view(bytes).substr(0, two));
    QTRY_COMPARE(s.bytes().size(), qsizetype(two));
    const std::string empty = std::string("VSCK") + std::string(16, '\0'); // codec 0, sizes 0, crc32("") = 0
    QCOMPARE(empty.size(), size_t(vscap::kChunkHeaderSize));
    QElapsedTimer t;
    t.start();
    size_t sent = 0;
    while (t.elapsed() < 1200) { // three idle periods
        p.send(empty), ++sent;
        QTest::qWait(150);
        QVERIFY2(s.connected(), qPrintable(QString::number(t.elapsed())));
    }
    QTRY_COMPARE(s.bytes().size(), qsizetype(two + sent * empty.size()));
    const auto kept = loadCaptureBytes(
        {reinterpret_cast<const uint8_t*>(s.bytes().constData()), size_t(s.bytes().size())}, {});
    const auto prefix = loadCaptureBytes({reinterpret_cast<const uint8_t*>(bytes.data()), two}, {});
    QCOMPARE(kept->devices.size(), prefix->devices.size());
    QCOMPARE(kept->devices.front().eventCount(), prefix->devices.front().eventCount());
    QTRY_VERIFY_WITH_TIMEOUT(!s.connected(), 3000); // silent again: the timeout applies as before
}

// A byte every 50 ms keeps the connection busy but never completes its chunk: cut after stallMs,
// even though bytes kept arriving well within the idle timeout.
void TestLive::tricklingProducerIsCutOff() {
    ui::LiveSession s;
    listenWith(s, "trickle.sock", [](auto& l) { l.stallMs = 500; });
    const std::string bytes = sampleBytes("leak_list");
    const size_t one = afterChunk(bytes, 0);
    QSignalSpy status(&s, &ui::LiveSession::statusChanged);
    Producer p(s.socketPath());
    p.send(std::string_view(bytes).substr(0, one));
    QTRY_COMPARE(s.bytes().size(), qsizetype(one));
    size_t sent = one;
    QElapsedTimer t;
    t.start();
    while (s.connected() && t.elapsed() < 5000 && sent < bytes.size()) {
        p.send(std::string_view(bytes).substr(sent++, 1));
        QTest::qWait(50);
    }
    QVERIFY(!s.connected());
    QVERIFY2(status.last()[0].toString().contains("not complete after 0.5 s"),
             qPrintable(status.last()[0].toString()));
    QVERIFY(t.elapsed() >= 450);
    QVERIFY(sent < afterChunk(bytes, 1)); // it never finished the second chunk
    QVERIFY(s.bytes() == QByteArray(bytes.data(), qsizetype(one)));
}

// More bytes than the budget: the program is cut off; what is kept is a whole-chunk prefix within
// the budget, and the message names the budget.
void TestLive::oversizedStreamHitsTheBudget() {
    const std::string bytes = sampleBytes("leak_list");
    const qint64 budget = qint64(afterChunk(bytes, 3)) + 10;
    ui::LiveSession s;
    listenWith(s, "big.sock", [&](auto& l) { l.maxBytes = budget; });
    QSignalSpy status(&s, &ui::LiveSession::statusChanged);
    Producer p(s.socketPath());
    p.send(bytes, 97);
    QTRY_VERIFY(!status.isEmpty() && status.last()[0].toString().contains("budget"));
    QVERIFY2(status.last()[0].toString().contains(QString::fromStdString(humanBytes(budget))),
             qPrintable(status.last()[0].toString()));
    QVERIFY(!s.connected());
    QVERIFY(s.byteCount() <= budget);
    QVERIFY(s.byteCount() >= qsizetype(afterChunk(bytes, 2))); // all whole chunks under the budget
    QVERIFY(s.bytes() == QByteArray(bytes.data(), s.byteCount()));
}

void TestLive::tooManyEventsHitTheBudget() {
    const std::string bytes = sampleBytes("leak_list");
    ui::LiveSession s;
    listenWith(s, "many.sock", [](auto& l) { l.maxEvents = 100; });
    QSignalSpy status(&s, &ui::LiveSession::statusChanged);
    Producer p(s.socketPath());
    p.send(bytes);
    QTRY_VERIFY(!status.isEmpty() && status.last()[0].toString().contains("more than 100 events"));
    QVERIFY(!s.connected());
    QVERIFY(s.events() > 100);
    QVERIFY(s.events() < 100 + 64 * 8); // cut within the chunk that crossed it (64 events a record)
}

void TestLive::hostileProducers_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    const std::string good = sampleBytes("oom");
    const QByteArray header(good.data(), vscap::kHeaderSize);
    QTest::newRow("not vscap") << QByteArray("GET / HTTP/1.1\r\nHost: x\r\n\r\n") << "not a .vscap";
    QByteArray damaged(good.data(), qsizetype(good.size()));
    damaged[qsizetype(vscap::kHeaderSize + vscap::kChunkHeaderSize + 5)] ^= 1;
    QTest::newRow("damaged chunk") << damaged << "checksum";
    QTest::newRow("huge length") << header +
                                        QByteArray("VSCK\x01\0\0\0\xff\xff\xff\xff\x10\0\0\0\0\0\0\0", 20)
                                 << "size field is out of range";
    QTest::newRow("garbage after header") << header + QByteArray(64, 'z') << "no chunk starts there";
}

void TestLive::hostileProducers() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    ui::LiveSession s;
    QVERIFY(s.listen(socketPath("h.sock")));
    QSignalSpy status(&s, &ui::LiveSession::statusChanged);
    Producer p(s.socketPath());
    p.send(std::string_view(bytes.constData(), size_t(bytes.size())));
    QTRY_VERIFY(!status.isEmpty() && status.last()[0].toString().contains(message));
    QVERIFY(!s.connected());
    QVERIFY(s.isListening()); // the next program can still connect
}

void TestLive::earlyDisconnectKeepsCompleteChunks() {
    ui::LiveSession s;
    QVERIFY(s.listen(socketPath("e.sock")));
    const std::string bytes = sampleBytes("leak_list");
    const size_t two = afterChunk(bytes, 1), cut = two + (afterChunk(bytes, 2) - two) / 2;
    QSignalSpy status(&s, &ui::LiveSession::statusChanged);
    Producer p(s.socketPath());
    p.send(std::string_view(bytes).substr(0, cut));
    QTRY_COMPARE(s.bytes().size(), qsizetype(two));
    p.close();
    QTRY_VERIFY(!status.isEmpty() && status.last()[0].toString().contains("incomplete last chunk"));
    // What was kept is the stream's prefix of whole chunks: it decodes to the last byte.
    const QByteArray kept = s.bytes();
    QVERIFY(kept == QByteArray(bytes.data(), qsizetype(two)));
    Capture c;
    vscap::Decoder d(c);
    QCOMPARE(d.consume({reinterpret_cast<const uint8_t*>(kept.constData()), size_t(kept.size())}, 0),
             size_t(two));
}

void TestLive::anotherUserIsRefused() {
    ui::LiveSession s;
    QVERIFY(s.listen(socketPath("u.sock")));
    s.setAllowedUid(geteuid() + 1); // as if this peer (us) were another user: SO_PEERCRED is real
    QSignalSpy status(&s, &ui::LiveSession::statusChanged);
    Producer p(s.socketPath());
    p.send(sampleBytes("oom"));
    QTRY_VERIFY(!status.isEmpty() && status.last()[0].toString().contains("another user"));
    QCOMPARE(s.bytes().size(), qsizetype(0));
}

void TestLive::secondProgramIsRefused() {
    ui::LiveSession s;
    QVERIFY(s.listen(socketPath("2.sock")));
    Producer first(s.socketPath());
    first.send(sampleBytes("oom").substr(0, 100));
    QTRY_VERIFY(s.connected());
    QSignalSpy status(&s, &ui::LiveSession::statusChanged);
    Producer second(s.socketPath());
    second.send("x");
    QTRY_VERIFY(!status.isEmpty() && status.last()[0].toString().contains("second program"));
    QVERIFY(s.connected()); // the first one is still being received
}

void TestLive::retentionIsRequestedFromTheProgram() {
    ui::LiveSession s;
    QVERIFY(!s.requestRetention()); // nobody to ask
    QVERIFY(s.listen(socketPath("r.sock")));
    Producer p(s.socketPath());
    p.send(sampleBytes("oom").substr(0, 64));
    QTRY_VERIFY(s.connected());
    QVERIFY(s.requestRetention());
    std::string got;
    QTRY_VERIFY((got += p.received()) == "R");
}

void TestLive::windowFollowsFreezesAndSaves() {
    ui::MainWindow w;
    QVERIFY(liveOf(w)->listen(socketPath("w.sock")));
    const std::string bytes = sampleBytes("clean_loop", 300);
    size_t chunks = 0;
    while (afterChunk(bytes, chunks) < bytes.size()) ++chunks;
    const size_t half = afterChunk(bytes, chunks * 3 / 4); // tables come first, events after
    Producer p(liveOf(w)->session()->socketPath());
    p.send(std::string_view(bytes).substr(0, half));
    QTRY_COMPARE(liveOf(w)->session()->bytes().size(), qsizetype(half));
    liveOf(w)->waitForRefresh();
    QVERIFY(w.analysis());
    const size_t partial = eventCount(*w.analysis());
    QVERIFY(partial > 0);
    QVERIFY(partial < loadCaptureFile(test::samplePath("clean_loop"), {})->devices[0].eventCount());
    liveOf(w)->setFrozen(true);
    p.send(std::string_view(bytes).substr(half));
    QTRY_COMPARE(liveOf(w)->session()->bytes().size(), qsizetype(bytes.size()));
    liveOf(w)->waitForRefresh();
    QCOMPARE(eventCount(*w.analysis()), partial); // frozen: the view did not move
    liveOf(w)->setFrozen(false);
    liveOf(w)->waitForRefresh();
    const auto full = loadCaptureFile(test::samplePath("clean_loop"), {});
    QCOMPARE(eventCount(*w.analysis()), full->devices[0].eventCount());
    QVERIFY(w.analysis()->warnings().empty()); // a complete stream: nothing to warn about
    const QString saved = dir_.filePath("saved.vscap");
    QVERIFY(liveOf(w)->save(saved));
    QCOMPARE(openAnalysis(saved.toStdString())->trace(0).eventCount(), full->devices[0].eventCount());
}

// Refreshes append: after the first snapshot, each one only adds events to the one shown, and a
// view that can grow (here the event table) gets them through the Extend hook as inserted rows;
// the final block list (the stream's end) brings a full analysis, shown whole.
void TestLive::liveViewGrowsInPlace() {
    QWidget window;
    ui::EventTableModel table;
    size_t shown = 0; // snapshots shown whole (not kept: the window lets go of what it showed)
    std::vector<std::pair<size_t, size_t>> grown; // (events before, events now)
    ui::AnalysisPtr current;                      // what the table shows
    ui::LiveController c(&window, [&](const QString&, ui::AnalysisPtr a) {
        table.setDevice(current = a, 0, a->originUs());
        ++shown;
    });
    c.setExtend([&](const ui::AnalysisPtr& now, const ui::AnalysisPtr& before) {
        if (before != current) return false; // it must grow what is shown; the check below catches it
        current = now;
        grown.emplace_back(eventCount(*before), eventCount(*now));
        table.appendRows(now);
        return true;
    });
    QSignalSpy inserted(&table, &QAbstractItemModel::rowsInserted);
    QVERIFY(c.listen(socketPath("g.sock")));
    const std::string bytes = sampleBytes("clean_loop", 300);
    size_t chunks = 0;
    while (afterChunk(bytes, chunks) < bytes.size()) ++chunks;
    Producer p(c.session()->socketPath());
    size_t sent = 0;
    for (size_t part = 1; part <= 4; ++part) {
        const size_t end = part == 4 ? bytes.size() : afterChunk(bytes, chunks * (part + 1) / 5);
        p.send(std::string_view(bytes).substr(sent, end - sent));
        sent = end;
        QTRY_COMPARE(c.session()->bytes().size(), qsizetype(end));
        c.waitForRefresh();
        QVERIFY(current);
        QCOMPARE(size_t(table.rowCount()), eventCount(*current));
        // Snapshots are recycled: only what the window let go of is reused, never copied anew.
        QVERIFY(c.liveCapture().analysis().snapshotsMade() <= 2);
    }
    QCOMPARE(shown, size_t(2));        // the first snapshot and the final full analysis
    QCOMPARE(grown.size(), size_t(2)); // the two refreshes between them only appended
    for (const auto& [before, now] : grown) QVERIFY(now > before);
    QCOMPARE(inserted.size(), 2);
    const auto full = loadCaptureFile(test::samplePath("clean_loop"), {});
    QCOMPARE(eventCount(*current), full->devices[0].eventCount());
    QCOMPARE(size_t(table.rowCount()), full->devices[0].eventCount());
}

// The real window on a growing session: refreshes that only append keep the capture open (no
// "opened"), the selected event and the growth-region-free state stay, the table gains the rows, and
// the timeline, which showed the whole run, shows the longer run with its true maximum.
void TestLive::windowGrowsKeepingSelection() {
    ui::MainWindow w;
    QSignalSpy opened(w.session(), &ui::Session::opened);
    QSignalSpy extended(w.session(), &ui::Session::extended);
    QVERIFY(liveOf(w)->listen(socketPath("k.sock")));
    const std::string bytes = sampleBytes("clean_loop", 300);
    size_t chunks = 0;
    while (afterChunk(bytes, chunks) < bytes.size()) ++chunks;
    Producer p(liveOf(w)->session()->socketPath());
    size_t sent = 0;
    for (size_t part = 1; part <= 3; ++part) {
        const size_t end = afterChunk(bytes, chunks * (part + 1) / 5); // the stream's end is not sent
        p.send(std::string_view(bytes).substr(sent, end - sent));
        sent = end;
        QTRY_COMPARE(liveOf(w)->session()->bytes().size(), qsizetype(end));
        liveOf(w)->waitForRefresh();
        if (part == 1) w.session()->selectEvent(3); // the user picks an event in the first snapshot
        const ui::AnalysisPtr a = w.analysis();
        QCOMPARE(size_t(eventTableOf(w)->model()->rowCount()), a->trace(0).eventCount());
        QCOMPARE(w.session()->selectedEvent(), std::optional<size_t>(3));
        // the timeline fits the whole (longer) run, and its highest allocated point is the replay's
        const auto& r = a->replay(0);
        const double truth = double(*std::max_element(r.allocated.begin(), r.allocated.end()));
        double drawn = 0;
        for (const auto& d :
             *timelineOf(w)->seriesGraph(0, ui::TimelinePlot::Series::Allocated, true)->data())
            drawn = std::max(drawn, d.value);
        QCOMPARE(drawn, truth);
        const double last = a->secondsAt(0, uint32_t(a->trace(0).eventCount() - 1));
        QVERIFY(timelineOf(w)->visibleRange().upper >= last);
    }
    QCOMPARE(opened.size(), 1);   // the first snapshot only
    QCOMPARE(extended.size(), 2); // the two refreshes after it grew the views in place
}

// Capture > Launch Program: the program (here a shell standing in for a CUDA program, which would
// have the agent injected) writes $VRAMSCOPE_OUTPUT in two steps; the window follows the file.
void TestLive::launchedProgramIsFollowed() {
    const std::string bytes = sampleBytes("leak_list", 300);
    const QString sample = dir_.filePath("sample.vscap"), output = dir_.filePath("launched.vscap");
    QFile f(sample);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes.data(), qsizetype(bytes.size()));
    f.close();
    qputenv("VRAMSCOPE_CUPTI_LIB", QFile::encodeName(sample)); // any existing file: sh ignores it
    ui::MainWindow w;
    const size_t half = afterChunk(bytes, 6);
    const QString script = QStringLiteral("head -c %1 '%2' > \"$VRAMSCOPE_OUTPUT\"; sleep 1; "
                                          "tail -c +%3 '%2' >> \"$VRAMSCOPE_OUTPUT\"")
                               .arg(half)
                               .arg(sample)
                               .arg(half + 1);
    QVERIFY(liveOf(w)->launch("/bin/sh", {"-c", script}, output));
    QTRY_COMPARE_WITH_TIMEOUT(liveOf(w)->follower()->bytes().size(), qsizetype(half), 5000);
    QTRY_COMPARE_WITH_TIMEOUT(liveOf(w)->follower()->bytes().size(), qsizetype(bytes.size()), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!liveOf(w)->follower()->active(), 5000); // the program exited
    liveOf(w)->waitForRefresh();
    QVERIFY(w.analysis());
    QCOMPARE(eventCount(*w.analysis()),
             loadCaptureFile(test::samplePath("leak_list"), {})->devices[0].eventCount());
    qunsetenv("VRAMSCOPE_CUPTI_LIB");
}

void TestLive::launchedProgramWithoutCudaSaysSo() {
    qputenv("VRAMSCOPE_CUPTI_LIB", QFile::encodeName(QCoreApplication::applicationFilePath()));
    ui::MainWindow w;
    QSignalSpy status(liveOf(w), &ui::LiveController::status);
    QVERIFY(liveOf(w)->launch("/bin/sh", {"-c", "exit 4"}, dir_.filePath("never.vscap")));
    QTRY_VERIFY_WITH_TIMEOUT(
        !status.isEmpty() && status.last().at(0).toString().contains("nothing was recorded"), 5000);
    QVERIFY(status.last().at(0).toString().contains("status 4"));
    qunsetenv("VRAMSCOPE_CUPTI_LIB");
}

// Launch Program creates its output itself (O_EXCL|O_NOFOLLOW): a symlink planted at the path, or
// a file already there, is refused with a message, and the file it points to is not touched.
void TestLive::launchNeverFollowsAPlantedOutput() {
    qputenv("VRAMSCOPE_CUPTI_LIB", QFile::encodeName(QCoreApplication::applicationFilePath()));
    const QString victim = dir_.filePath("victim"), planted = dir_.filePath("planted.vscap");
    QFile v(victim);
    QVERIFY(v.open(QIODevice::WriteOnly));
    v.write("precious");
    v.close();
    QCOMPARE(::symlink(QFile::encodeName(victim).constData(), QFile::encodeName(planted).constData()), 0);
    ui::MainWindow w;
    QString shown;
    QTimer closer; // the refusal is a modal message box: read it and close it
    QObject::connect(&closer, &QTimer::timeout, [&] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget()))
            shown = box->text(), box->accept();
    });
    closer.start(20);
    QVERIFY(!liveOf(w)->launch("/bin/sh", {"-c", "echo x > \"$VRAMSCOPE_OUTPUT\""}, planted));
    QVERIFY2(shown.contains("already exists"), qPrintable(shown));
    QCOMPARE(QFileInfo(victim).size(), qint64(8));
    QVERIFY(!liveOf(w)->follower()->active());
    // A fresh name is made 0600 before the program starts, then written by it.
    const QString fresh = dir_.filePath("fresh.vscap");
    QVERIFY(liveOf(w)->launch("/bin/sh", {"-c", "sleep 0.3; echo x > \"$VRAMSCOPE_OUTPUT\""}, fresh));
    struct stat st {};
    QCOMPARE(::lstat(QFile::encodeName(fresh).constData(), &st), 0);
    QVERIFY(S_ISREG(st.st_mode));
    QCOMPARE(st.st_mode & 07777, mode_t(0600));
    QTRY_VERIFY_WITH_TIMEOUT(!liveOf(w)->follower()->active(), 5000);
    qunsetenv("VRAMSCOPE_CUPTI_LIB");
}

// Capture > Launch Program, as a user runs it (the dialog answered): the file is made 0600 in a new
// 0700 directory under TMPDIR, never at a predictable name; a program that records nothing leaves
// neither behind.
void TestLive::launchWritesIntoAFreshPrivateDirectory() {
    QStandardPaths::setTestModeEnabled(true); // the dialog remembers the command line in QSettings
    const QByteArray tmp = qgetenv("TMPDIR");
    qputenv("TMPDIR", QFile::encodeName(dir_.path()));
    qputenv("VRAMSCOPE_CUPTI_LIB", QFile::encodeName(QCoreApplication::applicationFilePath()));
    ui::MainWindow w;
    QAction* launch = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L)) launch = a;
    QVERIFY(launch);
    QString command;
    QTimer answer; // the command-line dialog is modal: answer it
    QObject::connect(&answer, &QTimer::timeout, [&] {
        if (auto* d = qobject_cast<QInputDialog*>(QApplication::activeModalWidget()))
            d->setTextValue(command), d->accept();
    });
    answer.start(20);
    struct stat st {};
    command = QStringLiteral("/bin/sh -c \"sleep 0.3; echo x >> $VRAMSCOPE_OUTPUT\"");
    launch->trigger();
    const QString first = liveOf(w)->follower()->path();
    const QFileInfo dir(QFileInfo(first).absolutePath());
    QVERIFY2(dir.fileName().startsWith("vramscope-launch-") && dir.absolutePath() == dir_.path(),
             qPrintable(first));
    QCOMPARE(::lstat(QFile::encodeName(dir.filePath()).constData(), &st), 0);
    QCOMPARE(st.st_mode & 07777, mode_t(0700));
    QCOMPARE(::lstat(QFile::encodeName(first).constData(), &st), 0);
    QCOMPARE(st.st_mode & 07777, mode_t(0600));
    QTRY_VERIFY_WITH_TIMEOUT(!liveOf(w)->follower()->active(), 5000);
    QTRY_COMPARE_WITH_TIMEOUT(QFileInfo(first).size(), qint64(2), 5000); // the program wrote into it

    command = QStringLiteral("/bin/sh -c \"exit 3\"");
    QSignalSpy status(liveOf(w), &ui::LiveController::status);
    launch->trigger();
    const QString second = liveOf(w)->follower()->path();
    QVERIFY(QFileInfo(second).absolutePath() != dir.filePath()); // a new directory each time
    QTRY_VERIFY_WITH_TIMEOUT(
        !status.isEmpty() && status.last().at(0).toString().contains("nothing was recorded"), 5000);
    QVERIFY(!QFileInfo::exists(second));
    QVERIFY(!QFileInfo::exists(QFileInfo(second).absolutePath()));
    QVERIFY(QFileInfo::exists(first)); // the earlier recording stays
    tmp.isNull() ? void(qunsetenv("TMPDIR")) : void(qputenv("TMPDIR", tmp));
    qunsetenv("VRAMSCOPE_CUPTI_LIB");
}

QTEST_MAIN(TestLive)
#include "tst_live.moc"
