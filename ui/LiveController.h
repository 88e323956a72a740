#pragma once
// The Capture menu's live side: listens (LiveSession), re-decodes and re-analyses what arrived a few
// times a second off the GUI thread, hands it to the window unless the view is frozen, and saves
// the session as a .vscap file.
#include "CaptureLoader.h"

#include <QFutureWatcher>
#include <QObject>
#include <QTimer>

#include <functional>

class QAction;
class QProcess;
class QMenu;
class QWidget;

namespace vs::ui {

class FileFollower;
class LiveSession;

class LiveController : public QObject {
    Q_OBJECT
  public:
    using Show = std::function<void(const QString& label, AnalysisPtr analysis)>;
    LiveController(QWidget* window, Show show);
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
    // follows that file. False (with a message box) when the agent library is missing.
    bool launch(const QString& program, const QStringList& arguments, const QString& output);
    static QString agentLibrary();
    void waitForRefresh(); // tests: the decode in flight, if any, has been shown

  signals:
    void status(const QString& text);

  private:
    void refresh();
    void showCommand();
    void askAndLaunch();
    QByteArray currentBytes() const;
    void updateActions();

    QWidget* window_;
    Show show_;
    LiveSession* session_;
    FileFollower* follower_;
    QProcess* process_ = nullptr;
    bool following_ = false; // the view shows the launched program's file, not the socket
    QTimer timer_;
    QFutureWatcher<AnalysisPtr> job_;
    qsizetype shownBytes_ = -1;
    bool frozen_ = false;
    QAction* listenAct_ = nullptr;
    QAction* stopAct_ = nullptr;
    QAction* freezeAct_ = nullptr;
    QAction* saveAct_ = nullptr;
    QAction* launchAct_ = nullptr;
    QAction* retentionAct_ = nullptr;
};

} // namespace vs::ui
