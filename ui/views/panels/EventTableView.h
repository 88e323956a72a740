#pragma once
// The event list's view: a QTableView over an EventTableModel that turns its pages as the user
// scrolls past either end (the model keeps one page of rows: see EventTableModel), so that every
// event of a 100M-event capture is reachable by scrolling without a row per event in the header.
#include <QTableView>

#include <cstdint>

namespace vs::ui {

class EventTableModel;

class EventTableView : public QTableView {
    Q_OBJECT
  public:
    EventTableView(EventTableModel* model, QWidget* parent = nullptr);

    // Selects `event` (its row becomes current: currentRowChanged follows) and scrolls it to the
    // middle, turning the page first when it lies on another.
    void goToEvent(size_t event);
    // The current row's event, or -1 when no row is current.
    int64_t currentEvent() const;

  private:
    void followScroll(); // at the top or bottom of a page that is not the capture's: the next page
    void describePage();
    EventTableModel* model_;
};

} // namespace vs::ui
