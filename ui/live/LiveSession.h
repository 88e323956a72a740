#pragma once
// Capture > Listen: a Unix socket (mode 0600, peer uid checked) that one recorder at a time streams
// .vscap bytes into. Every arriving piece is validated by the incremental decoder at once, so a
// hostile or broken producer is cut off with a message; the complete chunks received so far are
// kept, can be decoded any time (bytes()) and saved as a .vscap file.
#include "model/Capture.h"

#include <QByteArray>
#include <QObject>
#include <QString>

#include <memory>

class QLocalServer;
class QLocalSocket;

namespace vs::vscap {
class StreamAssembler;
}

namespace vs::ui {

class LiveSession : public QObject {
    Q_OBJECT
  public:
    explicit LiveSession(QObject* parent = nullptr);
    ~LiveSession() override;

    static QString defaultSocketPath();
    // Starts listening; false with errorString() when the socket cannot be made.
    bool listen(const QString& path = defaultSocketPath());
    void stop();
    bool isListening() const;
    QString socketPath() const { return path_; }
    // The command that records a program into this session (for the user to copy).
    QString command() const;

    QByteArray bytes() const; // header + complete chunks: a valid .vscap prefix
    QByteArray bytesFrom(qsizetype offset) const; // bytes().mid(offset) without copying the rest
    qsizetype byteCount() const;
    // Counts the programs received: bytes() starts over with each (a live view must start over too).
    quint64 generation() const { return generation_; }
    bool connected() const { return socket_ != nullptr; }
    // Asks the connected recorder for a retention graph now (it arrives as a Retention record).
    bool requestRetention();
    uint64_t events() const;
    QString errorString() const { return error_; }
    // Tests only: accept a different peer uid than our own.
    void setAllowedUid(uint32_t uid) { allowedUid_ = uid; }

  signals:
    void dataArrived(); // new complete chunks
    void statusChanged(const QString& text);

  private:
    void onNewConnection();
    void onReadyRead();
    void onDisconnected();
    void reject(QLocalSocket* s, const QString& why);

    QLocalServer* server_ = nullptr;
    QLocalSocket* socket_ = nullptr;
    QString path_;
    QString error_;
    std::unique_ptr<vscap::StreamAssembler> stream_; // header + complete chunks so far
    uint32_t allowedUid_;
    quint64 generation_ = 0;
};

} // namespace vs::ui
