#pragma once
// The Capture menu's live side: listens (LiveSession), and a few times a second, off the GUI
// thread, appends what arrived to the session's growing analysis (core/load/LiveCapture: decoding
// and replay continue where they stopped, O(new events)); hands each new immutable snapshot to the
// window unless the view is frozen, and saves the session as a .vscap file.
#include "session/CaptureLoader.h"
#include "session/JobRunner.h"
#include "util/RemoteScripts.h"
#include "util/SshTarget.h"

#include <QObject>
#include <QTimer>

#include <functional>
#include <memory>

class QAction;
class QProcess;
class QProgressDialog;
class QMenu;
class QWidget;

namespace vs {
class LiveCapture;
}

namespace vs::ui {

class FileFollower;
class LiveSession;
class RemoteFile;
class RemoteRun;

class LiveController : public QObject {
    Q_OBJECT
  public:
    using Show = std::function<void(const QString& label, AnalysisPtr analysis)>;
    LiveController(QWidget* window, Show show);
    // Optional: views that can grow in place. Called instead of Show when `now` only appends events
    // to `before` (the snapshot shown last; same events and values first, more after): a view
    // extends its level of detail, a table inserts rows. Return false to get Show after all.
    using Extend = std::function<bool(const AnalysisPtr& now, const AnalysisPtr& before)>;
    void setExtend(Extend extend) { extend_ = std::move(extend); }
    ~LiveController() override;

    void addActions(QMenu* menu);
    bool listen(const QString& path = QString()); // default: a private per-user socket
    void stopListening();
    void setFrozen(bool frozen);
    bool frozen() const { return frozen_; }
    bool save(const QString& path);
    LiveSession* session() const { return session_; }
    FileFollower* follower() const { return follower_; }
    // Capture > Launch Program: runs `program` with the CUPTI agent injected, writing `output`, and
    // follows that file. False (with a message box) when the agent library is missing or `output`
    // exists (a file or a symlink: it is created anew, O_EXCL|O_NOFOLLOW, never followed).
    bool launch(const QString& program, const QStringList& arguments, const QString& output);
    static QString agentLibrary();
    // File > Open Remote and ssh:// arguments (RemoteFile): a .vscap is followed live with progress
    // and cancel; another capture is copied, then handed to openCopy.
    void openRemote(const SshTarget& target);
    void askOpenRemote();
    // Capture > Record on a Remote Machine (RemoteRun): listens here, and has the program on the
    // host stream to this socket through ssh -R. False (with a message) when it cannot start.
    bool recordRemote(const SshTarget& target, const RemoteProgram& program);
    // Before the window closes: a remote program still running is stopped only when the user says
    // so; false when they cancel the close.
    bool confirmClose();
    RemoteFile* remoteFile() const { return remote_; }
    RemoteRun* remoteRun() const { return remoteRun_; }
    void waitForRefresh(); // tests: the decode in flight, if any, has been shown
    const LiveCapture& liveCapture() const { return *live_; } // tests

  signals:
    void status(const QString& text);
    void failed(const QString& title, const QString& message);     // shown by the window, without blocking
    void openCopy(const QString& localPath, const QString& label); // a remote non-.vscap file, copied

  private:
    struct Update {
        AnalysisPtr analysis;
        bool appended = false; // only events were appended to the previous snapshot of this session
    };
    void refresh();
    void onUpdate(const Update& u);
    void resetLive();
    void showLatest();
    void showCommand();
    void askAndLaunch();
    void removeEmptyOutput(const QString& output);
    void connectRemote();
    void askRecordRemote();
    void onRemoteProgress(qint64 received, qint64 total);
    QString sourceLabel() const;
    QByteArray currentBytes() const;
    void updateActions();

    QWidget* window_;
    Show show_;
    LiveSession* session_;
    FileFollower* follower_;
    RemoteFile* remote_;
    RemoteRun* remoteRun_;
    QProgressDialog* progress_ = nullptr; // while a remote file's first bytes come
    QProcess* process_ = nullptr;
    QString launchDir_; // the private directory made for the last launch's file
    // What the view follows: the listening socket, the launched program's file, or a remote file.
    enum class Source { Socket, File, Remote } source_ = Source::Socket;
    QTimer timer_;
    Extend extend_;
    JobRunner jobs_;                    // the live updates (JobKey::LiveUpdate), one at a time
    std::shared_ptr<LiveCapture> live_; // the session's growing analysis; one job uses it at a time
    qsizetype fedBytes_ = 0;            // of currentBytes(), given to live_
    quint64 generation_ = 0;            // of the session's stream that live_ follows
    AnalysisPtr latest_, shown_;        // the newest snapshot, and the one the window shows
    bool appendsSinceShown_ = false;    // every snapshot after shown_ up to latest_ only appended
    bool frozen_ = false;
    QAction* listenAct_ = nullptr;
    QAction* stopAct_ = nullptr;
    QAction* freezeAct_ = nullptr;
    QAction* saveAct_ = nullptr;
    QAction* launchAct_ = nullptr;
    QAction* remoteAct_ = nullptr;
    QAction* retentionAct_ = nullptr;
};

} // namespace vs::ui
