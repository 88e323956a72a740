#include "live/LiveSession.h"

#include "util/PrivateSocket.h"

#include "io/LoadError.h"
#include "io/VscapFormat.h"
#include "io/VscapStream.h"
#include "util/Format.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QLocalServer>
#include <QLocalSocket>
#include <QStandardPaths>

#include <limits>

#include <sys/socket.h>
#include <unistd.h>

namespace vs::ui {

namespace {
// The uid of the process at the other end of a Unix socket; -1 when it cannot be known.
int64_t peerUid(qintptr fd) {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    return cred.uid;
}

// A positive whole number from the environment, else `fallback` (unset, empty or not a number).
qint64 positiveEnv(const char* name, qint64 fallback) {
    bool ok = false;
    const qint64 v = qEnvironmentVariable(name).toLongLong(&ok);
    return ok && v > 0 ? v : fallback;
}

QString seconds(int ms) {
    return ms % 1000 == 0 ? QString::number(ms / 1000) : QString::number(ms / 1000.0, 'f', 1);
}
} // namespace

LiveSession::Limits LiveSession::Limits::fromEnvironment() {
    Limits l;
    const qint64 pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    // A live session holds about 296 bytes an event (the validating decoder's copy, the live
    // analysis and its snapshots; measured on the 2M-event transformer capture): one event per
    // 640 bytes of memory keeps it under half the machine.
    if (pages > 0 && page > 0) l.maxEvents = quint64(pages) * quint64(page) / 640;
    l.idleMs = int(std::min<qint64>(positiveEnv("VRAMSCOPE_LIVE_IDLE_S", l.idleMs / 1000), 86'400) * 1000);
    l.maxBytes =
        std::min<qint64>(positiveEnv("VRAMSCOPE_LIVE_MAX_MB", l.maxBytes >> 20), qint64(1) << 40 >> 20) << 20;
    return l;
}

LiveSession::LiveSession(QObject* parent)
    : QObject(parent), allowedUid_(geteuid()), limits_(Limits::fromEnvironment()) {
    watchdog_.setSingleShot(true);
    connect(&watchdog_, &QTimer::timeout, this, &LiveSession::onWatchdog);
}

LiveSession::~LiveSession() {
    stop();
}

QString LiveSession::defaultSocketPath() {
    // XDG_RUNTIME_DIR is per user and 0700; a shared temporary directory gets a per-user one, which
    // listen() makes 0700 or, when someone else made it first, refuses.
    QString base = qEnvironmentVariable("XDG_RUNTIME_DIR");
    if (base.isEmpty())
        base = QDir::tempPath() + QStringLiteral("/vramscope-%1").arg(geteuid());
    else
        base += QStringLiteral("/vramscope");
    return base + QStringLiteral("/live-%1.sock").arg(QCoreApplication::applicationPid());
}

bool LiveSession::listen(const QString& path) {
    stop();
    std::string why;
    const int fd = listenPrivately(QFile::encodeName(path).toStdString(), why);
    server_ = new QLocalServer(this);
    if (fd < 0 || !server_->listen(qintptr(fd))) {
        error_ = fd < 0 ? QString::fromLocal8Bit(why.c_str()) : server_->errorString();
        if (fd >= 0) ::close(fd), ::unlink(QFile::encodeName(path).constData());
        delete server_, server_ = nullptr;
        return false;
    }
    path_ = path;
    connect(server_, &QLocalServer::newConnection, this, &LiveSession::onNewConnection);
    emit statusChanged(tr("Listening on %1 \u2014 waiting for a program").arg(path));
    return true;
}

void LiveSession::stop() {
    watchdog_.stop();
    if (socket_) socket_->disconnect(this), socket_->abort(), socket_->deleteLater(), socket_ = nullptr;
    if (server_) server_->close(), delete server_, server_ = nullptr;
}

bool LiveSession::isListening() const {
    return server_ && server_->isListening();
}

QString LiveSession::command() const {
    return QStringLiteral("VRAMSCOPE_LIVE=%1 python -m vramscope record -o run.vscap -- your_script.py")
        .arg(path_);
}

QByteArray LiveSession::bytes() const {
    return stream_ ? QByteArray::fromStdString(stream_->complete()) : QByteArray();
}

QByteArray LiveSession::bytesFrom(qsizetype offset) const {
    if (!stream_ || offset >= byteCount()) return {};
    const std::string& all = stream_->complete();
    return QByteArray(all.data() + offset, qsizetype(all.size()) - offset);
}

qsizetype LiveSession::byteCount() const {
    return stream_ ? qsizetype(stream_->complete().size()) : 0;
}

uint64_t LiveSession::events() const {
    return stream_ ? stream_->events() : 0;
}

bool LiveSession::requestRetention() {
    if (!socket_) return false;
    socket_->write("R", 1); // the protocol's only request: see capture/python/vramscope/live.py
    return socket_->flush() || socket_->bytesToWrite() == 0;
}

void LiveSession::reject(QLocalSocket* s, const QString& why) {
    emit statusChanged(why);
    s->abort();
    s->deleteLater();
}

void LiveSession::cutOff(const QString& why) {
    QLocalSocket* s = socket_;
    socket_ = nullptr;
    watchdog_.stop();
    s->disconnect(this);
    reject(s, tr("Disconnected the program: %1; the %L2 events received are kept").arg(why).arg(events()));
}

// The stream kept (and what it decodes to) stays within the limits, whatever a producer sends or
// however well it compresses: true while it does, else the program is cut off.
bool LiveSession::withinBudget(bool bytesOver) {
    if (bytesOver)
        cutOff(tr("it sent more than %1, the live session's budget; its own recording file has everything "
                  "(VRAMSCOPE_LIVE_MAX_MB raises the budget)")
                   .arg(QString::fromStdString(humanBytes(limits_.maxBytes))));
    else if (events() > limits_.maxEvents)
        cutOff(
            tr("it sent more than %L1 events, the live session's budget for this machine's memory; its own "
               "recording file has everything")
                .arg(limits_.maxEvents));
    return socket_ != nullptr;
}

// The next deadline of the current program: its header, the end of a chunk under way, or the next chunk.
void LiveSession::armWatchdog() {
    if (!socket_) return;
    qint64 left = limits_.idleMs - sinceChunk_.elapsed();
    if (byteCount() == 0)
        left = limits_.handshakeMs - sinceConnect_.elapsed();
    else if (sincePartial_.isValid())
        left = std::min(left, limits_.stallMs - sincePartial_.elapsed());
    watchdog_.start(int(std::clamp<qint64>(left, 0, std::numeric_limits<int>::max())));
}

void LiveSession::onWatchdog() {
    if (!socket_) return;
    onReadyRead(); // what arrived meanwhile counts
    if (!socket_) return;
    if (byteCount() == 0 && sinceConnect_.elapsed() >= limits_.handshakeMs)
        return cutOff(
            tr("it sent no .vscap header within %1 s of connecting").arg(seconds(limits_.handshakeMs)));
    if (byteCount() > 0 && sincePartial_.isValid() && sincePartial_.elapsed() >= limits_.stallMs)
        return cutOff(tr("a chunk started arriving but was not complete after %1 s (%L2 bytes of it so far)")
                          .arg(seconds(limits_.stallMs))
                          .arg(stream_->pendingBytes()));
    if (byteCount() > 0 && sinceChunk_.elapsed() >= limits_.idleMs)
        return cutOff(tr("it sent nothing for %1 s (VRAMSCOPE_LIVE_IDLE_S sets how long to wait)")
                          .arg(seconds(limits_.idleMs)));
    armWatchdog();
}

void LiveSession::onNewConnection() {
    while (QLocalSocket* s = server_->nextPendingConnection()) {
        if (peerUid(s->socketDescriptor()) != int64_t(allowedUid_)) {
            reject(s, tr("Refused a connection from another user"));
            continue;
        }
        if (socket_) {
            reject(s, tr("Refused a second program: this session is already receiving one"));
            continue;
        }
        socket_ = s;
        stream_ = std::make_unique<vscap::StreamAssembler>();
        ++generation_;
        sinceConnect_.start(), sinceChunk_.start(), sincePartial_.invalidate();
        connect(s, &QLocalSocket::readyRead, this, &LiveSession::onReadyRead);
        connect(s, &QLocalSocket::disconnected, this, &LiveSession::onDisconnected);
        emit statusChanged(tr("Receiving a live recording"));
        armWatchdog(); // a program that never sends a byte must time out too
        onReadyRead();
    }
}

void LiveSession::onReadyRead() {
    if (!socket_) return;
    const QByteArray data = socket_->readAll();
    if (data.isEmpty()) return;
    // Only what fits the byte budget is taken: the whole chunks within it are kept.
    const qint64 room = std::max<qint64>(0, limits_.maxBytes - byteCount() - qint64(stream_->pendingBytes()));
    const bool over = data.size() > room;
    size_t used = 0;
    try {
        used = stream_->feed({data.constData(), size_t(over ? room : data.size())});
    } catch (const std::exception& e) { // LoadError from the stream, or memory: never trust a producer
        return cutOff(QString::fromStdString(e.what()));
    }
    if (used) sinceChunk_.start();
    if (stream_->pendingBytes() == 0)
        sincePartial_.invalidate();
    else if (used || !sincePartial_.isValid())
        sincePartial_.start(); // a new chunk began
    if (withinBudget(over)) armWatchdog();
    if (used) emit dataArrived();
}

void LiveSession::onDisconnected() {
    onReadyRead(); // whatever arrived with the close
    QLocalSocket* s = socket_;
    socket_ = nullptr;
    watchdog_.stop();
    if (s) s->deleteLater();
    const bool clean = stream_ && stream_->ended();
    const size_t pending = stream_ ? stream_->pendingBytes() : 0;
    emit statusChanged(
        clean ? tr("The program finished: %L1 events received").arg(events())
              : tr("The program disconnected (%L1 events received%2)")
                    .arg(events())
                    .arg(pending == 0
                             ? QString()
                             : tr("; an incomplete last chunk of %L1 bytes was dropped").arg(pending)));
}

} // namespace vs::ui
