#pragma once
// Capture > Listen: a Unix socket (mode 0600 in a private directory, peer uid checked) that one
// recorder at a time streams .vscap bytes into. Every arriving piece is validated by the incremental
// decoder at once, so a hostile or broken producer is cut off with a message; so is one that stays
// silent, trickles, or sends more than the session's budget (Limits). The complete chunks received
// so far are kept, can be decoded any time (bytes()) and saved as a .vscap file.
#include "model/Capture.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>

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
    // What one program may cost the viewer. A real recorder sends its header at once and whole
    // chunks (every 100 ms while it allocates); anything slower is stuck or hostile.
    struct Limits {
        int handshakeMs = 10'000;          // from connecting to a complete .vscap header
        int stallMs = 30'000;              // from a chunk's first byte to its last
        int idleMs = 600'000;              // without a new complete chunk (VRAMSCOPE_LIVE_IDLE_S)
        qint64 maxBytes = qint64(1) << 30; // of stream kept per program (VRAMSCOPE_LIVE_MAX_MB)
        quint64 maxEvents = ~quint64(0);   // decoded per program (fromEnvironment: memory / 640 B)
        static Limits fromEnvironment();   // the defaults, with the variables above when set
    };

    explicit LiveSession(QObject* parent = nullptr);
    ~LiveSession() override;

    // XDG_RUNTIME_DIR/vramscope/live-PID.sock, or TMPDIR/vramscope-UID/live-PID.sock. Its directory
    // is made (0700) and checked by listen(), which refuses one that is not private.
    static QString defaultSocketPath();
    // Starts listening; false with errorString() when the socket cannot be made or its directory
    // is not private (not ours, a symlink, open to others).
    bool listen(const QString& path = defaultSocketPath());
    void stop();
    bool isListening() const;
    QString socketPath() const { return path_; }
    // The command that records a program into this session (for the user to copy).
    QString command() const;

    QByteArray bytes() const;                     // header + complete chunks: a valid .vscap prefix
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
    void setLimits(const Limits& limits) { limits_ = limits; }
    const Limits& limits() const { return limits_; }

  signals:
    void dataArrived(); // new complete chunks
    void statusChanged(const QString& text);

  private:
    void onNewConnection();
    void onReadyRead();
    void onDisconnected();
    void reject(QLocalSocket* s, const QString& why);
    void cutOff(const QString& why); // ends the current program's session, keeping what arrived
    bool withinBudget(bool bytesOver);
    void armWatchdog();
    void onWatchdog();

    QLocalServer* server_ = nullptr;
    QLocalSocket* socket_ = nullptr;
    QString path_;
    QString error_;
    std::unique_ptr<vscap::StreamAssembler> stream_; // header + complete chunks so far
    uint32_t allowedUid_;
    quint64 generation_ = 0;
    Limits limits_;
    QTimer watchdog_;                                        // fires at the current program's next deadline
    QElapsedTimer sinceConnect_, sinceChunk_, sincePartial_; // sincePartial_: a chunk is under way
};

} // namespace vs::ui
