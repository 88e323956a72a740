#pragma once
// Capture > Record on a Remote Machine: runs a program on another host under its recorder, through
// the user's own ssh, with the recorder's live stream forwarded back (ssh -R) to this viewer's
// listening socket. Two connections: the first makes a private directory on the host (mktemp -d)
// and checks the recorder is installed there, the second forwards the socket into that directory
// and starts the program in its own session, its output in a log beside its recording, so that a
// closed viewer or a dropped connection never ends it; only stop() does (Ctrl-C on the host).
#include "util/RemoteScripts.h"
#include "util/SshTarget.h"

#include <QObject>
#include <QProcess>
#include <QString>

namespace vs::ui {

class RemoteRun : public QObject {
    Q_OBJECT
  public:
    explicit RemoteRun(QObject* parent = nullptr);
    ~RemoteRun() override; // disconnects: the program goes on running
    // `localSocket`: where the viewer listens (LiveSession). Throws RemoteProgramError for a command
    // line the recorders cannot run.
    void start(const SshTarget& target, const RemoteProgram& program, const QString& localSocket);
    bool running() const { return prepare_ || (run_ && run_->state() != QProcess::NotRunning); }
    bool programStarted() const { return !pid_.isEmpty(); }
    void stop();   // interrupts the program on the host (SIGINT to its process group)
    void detach(); // disconnects, leaving the program running
    QString host() const { return QString::fromStdString(target_.destination()); }
    QString remoteOutput() const { return output_; } // the recording's absolute path on the host
    QString remotePid() const { return pid_; }
    QString log() const { return log_; } // the program's output so far (its last 64 KB, escaped)

  signals:
    void started(const QString& remoteOutput); // the program runs; its recording is there
    void finished(int exitCode, const QString& remoteOutput);
    void failed(const QString& message); // one sentence; what arrived live is kept

  private:
    void onPrepared(int code, QProcess::ExitStatus status);
    void onOutput();
    void onFinished(int code, QProcess::ExitStatus status);
    // slot stays null if ssh cannot start; `keepIn`: stdin stays open for stop()
    void startSshIn(QProcess*& slot, const std::vector<std::string>& argv, const RemoteScript& script,
                    bool keepIn);

    SshTarget target_;
    RemoteProgram program_;
    QString localSocket_;
    QProcess* prepare_ = nullptr;
    QProcess* run_ = nullptr;
    QByteArray lines_;
    QString pid_, output_, log_;
    int exit_ = -1;
    bool detached_ = false;
    bool keptDir_ = false; // the host was told to keep its private directory
};

} // namespace vs::ui
