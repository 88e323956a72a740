#pragma once
// The window's status bar: the open file (devices, events), the selected growth region in a
// sentence, the selected range's change in allocated and reserved, the time under the pointer, and
// a load's progress with its Cancel button. It follows the session, the timeline's pointer, the
// loader and the live controller; the window only says when a load starts and ends.
#include <QStatusBar>

#include <optional>
#include <utility>

class QLabel;
class QProgressBar;
class QPushButton;

namespace vs::ui {

class CaptureLoader;
class LiveController;
class Session;
class TimelinePlot;

class StatusBar : public QStatusBar {
    Q_OBJECT
  public:
    StatusBar(Session* session, TimelinePlot* timeline, CaptureLoader* loader, LiveController* live,
              QWidget* parent);
    void setBusy(bool busy);               // the progress bar and Cancel
    void showOpening(const QString& text); // in place of the file while a load runs
    void showFile();                       // the capture shown, with its event count
    QString regionText() const;

  private:
    QString fileText() const;
    void showRange(std::optional<std::pair<double, double>> range);
    void showRegion();

    Session* session_;
    TimelinePlot* timeline_;
    QLabel *file_, *cursor_, *selection_, *region_;
    QProgressBar* progress_;
    QPushButton* cancel_;
};

} // namespace vs::ui
