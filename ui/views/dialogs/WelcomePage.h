#pragma once
// What an empty window shows: open a capture, the recent files, the bundled sample captures, Listen
// and Launch Program, and three sentences on how a leak is hunted. Its buttons trigger the window's
// own actions (same text, icon, shortcut and enabled state as the menus).
#include <QWidget>

class QAction;
class QListWidget;
class QListWidgetItem;

namespace vs::ui {

class WelcomePage : public QWidget {
    Q_OBJECT
  public:
    WelcomePage(const QList<QAction*>& actions, QWidget* parent);
    void setRecent(const QStringList& paths);
    QListWidget* recentList() const { return recent_; }
    QListWidget* sampleList() const { return samples_; }
    // The sample captures shipped with vramscope: beside an installed binary (../share/vramscope/
    // samples), else the source tree's samples/captures.
    static QStringList sampleFiles();

  signals:
    void openRequested(const QString& path);

  private:
    QListWidget* makeList(const QString& placeholder);

    QListWidget *recent_, *samples_;
};

} // namespace vs::ui
