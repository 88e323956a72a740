#pragma once
// What a freshly opened capture shows first, without a click: a run that ran out of memory opens at the
// failed request with its explanation (the Leaks tab); a capture with a finding opens on it
// (RegionSelector); one with nothing to report opens on its peak, explained (the Peak tab). Nothing
// moves once the user has selected something.
#include <QObject>

namespace vs::ui {

class Session;

class OpeningFocus : public QObject {
    Q_OBJECT
  public:
    OpeningFocus(Session* session, QObject* parent);

  signals:
    void leaksWanted(); // the OOM is selected: its explanation is the Leaks tab's
    void peakWanted();  // the peak is selected: its explanation is the Peak tab's

  private:
    void reset();
    void onGrowth();
    void onPeak();
    bool untouched() const; // nothing chosen by the user since the capture or device was shown
    Session* session_;
    bool decided_ = false;  // the focus was set (or left to the findings) for this capture and device
    bool quietRun_ = false; // the growth analysis found nothing and the run did not fail
};

} // namespace vs::ui
