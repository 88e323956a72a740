#pragma once
// File > Open Remote and `vramscope ssh://host/path`: a capture read through the user's own ssh
// (OpenSSH checks the host key and logs in; nothing listens on a network port here). A .vscap file
// is followed (`tail -f` on the host): each complete chunk is validated and kept as it arrives, as
// FileFollower does for a local file, so a recording still being written grows in the view; it
// ends with the file's end record, on cancel(), or with one message when ssh fails (what arrived
// is kept). Any other capture (a snapshot pickle) is copied into a private temporary directory,
// never more than the size the host declared for it, then opened as a local file. Neither passes
// --max-memory.
#include "util/SshTarget.h"

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QString>

#include <memory>

class QFile;

namespace vs::vscap {
class StreamAssembler;
}

namespace vs::ui {

class RemoteFile : public QObject {
    Q_OBJECT
  public:
    explicit RemoteFile(QObject* parent = nullptr);
    ~RemoteFile() override;
    void open(const SshTarget& target);
    void cancel(); // stops reading; what arrived stays
    bool active() const { return process_ && process_->state() != QProcess::NotRunning; }
    bool following() const { return stream_ != nullptr; } // a .vscap, read as it grows
    QByteArray bytes() const;                             // its complete chunks so far
    QByteArray bytesFrom(qsizetype offset) const;         // bytes().mid(offset) without copying the rest
    QString url() const { return QString::fromStdString(target_.url()); }
    QString host() const { return QString::fromStdString(target_.destination()); }
    qint64 received() const { return received_; }
    qint64 total() const { return total_; } // the file's size when reading began (-1: not known yet)

  signals:
    void dataArrived();
    void progress(qint64 received, qint64 total);
    void copied(const QString& localPath); // a file that is not .vscap, whole, to open
    void ended(const QString& status);     // complete, or cancelled
    void failed(const QString& message);   // ssh's reason in one sentence; what arrived is kept

  private:
    void onOutput();
    void onFinished(int code, QProcess::ExitStatus status);
    bool takePreamble(QByteArray& data); // false until the size marker was read
    void feed(const QByteArray& data);
    void finish();
    void finishCopy(); // the declared size arrived (or the file ended): open the copy
    void discardCopy();
    bool overBudget(uint64_t bytes); // true (and failed) when `bytes` pass --max-memory

    SshTarget target_;
    QProcess* process_ = nullptr;
    std::unique_ptr<vscap::StreamAssembler> stream_;
    std::unique_ptr<QFile> copy_; // the non-.vscap file being copied
    QString copyDir_, copyPath_;
    QByteArray preamble_;
    bool started_ = false, stopping_ = false;
    qint64 received_ = 0, total_ = -1;
};

} // namespace vs::ui
