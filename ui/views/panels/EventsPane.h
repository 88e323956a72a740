#pragma once
// The events pane under the timeline: the device picker, the find bar and the event list of the
// session's device. It follows the session: another device fills the list, a grown live capture
// appends rows, the selected event becomes the current row (scrolled to), allocations listed on
// request (Leaks: "Show Allocations in the Event List") are marked; and a row the user makes current
// becomes the session's selected event.
#include <QWidget>

#include <cstdint>

namespace vs::ui {

class DevicePicker;
class EventFindBar;
class EventTableModel;
class EventTableView;
class Session;

class EventsPane : public QWidget {
    Q_OBJECT
  public:
    EventsPane(Session* session, QWidget* parent);
    void openFind();                // Edit > Find in Events
    bool stepMarked(bool forward);  // Go > Next/Previous Marked Event; false when none is marked
    void goToTime(double seconds);  // Go > Go to Time: the event at that moment, selected
    QByteArray columnState() const; // the list's columns, saved with the window
    void restoreColumns(const QByteArray& state);

  private:
    void showDevice(size_t device);
    void fitColumns();

    Session* session_;
    EventTableModel* model_;
    EventTableView* table_;
    EventFindBar* findBar_;
    DevicePicker* devices_;
};

} // namespace vs::ui
