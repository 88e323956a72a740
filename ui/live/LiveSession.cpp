#include "live/LiveSession.h"

#include "io/LoadError.h"
#include "io/VscapStream.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QLocalServer>
#include <QLocalSocket>
#include <QStandardPaths>

#include <sys/socket.h>
#include <sys/stat.h>
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
} // namespace

LiveSession::LiveSession(QObject* parent) : QObject(parent), allowedUid_(geteuid()) {}

LiveSession::~LiveSession() {
    stop();
}

QString LiveSession::defaultSocketPath() {
    // A private directory: XDG_RUNTIME_DIR is per user and 0700; else one made 0700 under /tmp.
    QString base = qEnvironmentVariable("XDG_RUNTIME_DIR");
    if (base.isEmpty())
        base = QDir::tempPath() + QStringLiteral("/vramscope-%1").arg(geteuid());
    else
        base += QStringLiteral("/vramscope");
    QDir().mkpath(base);
    ::chmod(QFile::encodeName(base).constData(), 0700);
    return base + QStringLiteral("/live-%1.sock").arg(QCoreApplication::applicationPid());
}

bool LiveSession::listen(const QString& path) {
    stop();
    server_ = new QLocalServer(this);
    server_->setSocketOptions(QLocalServer::UserAccessOption);
    QLocalServer::removeServer(path); // a stale socket of a crashed session
    if (!server_->listen(path)) {
        error_ = server_->errorString();
        delete server_, server_ = nullptr;
        return false;
    }
    ::chmod(QFile::encodeName(path).constData(), 0600);
    path_ = path;
    connect(server_, &QLocalServer::newConnection, this, &LiveSession::onNewConnection);
    emit statusChanged(tr("Listening on %1 \u2014 waiting for a program").arg(path));
    return true;
}

void LiveSession::stop() {
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
        connect(s, &QLocalSocket::readyRead, this, &LiveSession::onReadyRead);
        connect(s, &QLocalSocket::disconnected, this, &LiveSession::onDisconnected);
        emit statusChanged(tr("Receiving a live recording"));
        onReadyRead();
    }
}

void LiveSession::onReadyRead() {
    if (!socket_) return;
    const QByteArray data = socket_->readAll();
    size_t used = 0;
    try {
        used = stream_->feed({data.constData(), size_t(data.size())});
    } catch (const std::exception& e) { // LoadError from the stream, or memory: never trust a producer
        QLocalSocket* s = socket_;
        socket_ = nullptr;
        s->disconnect(this);
        reject(s, tr("Disconnected the program: %1").arg(QString::fromStdString(e.what())));
        return;
    }
    if (used) emit dataArrived();
}

void LiveSession::onDisconnected() {
    onReadyRead(); // whatever arrived with the close
    QLocalSocket* s = socket_;
    socket_ = nullptr;
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
