#pragma once
// The event list's find bar (Edit > Find in Events, Ctrl+F): a text matched against each event's
// action, allocation site (function, file, line) or exact address, or "#N" for event N; Enter and
// the arrows step to the next and previous match and select it.
#include <QWidget>

class QLabel;
class QLineEdit;

namespace vs::ui {

class EventTableModel;
class EventTableView;

class EventFindBar : public QWidget {
    Q_OBJECT
  public:
    EventFindBar(EventTableView* table, EventTableModel* model, QWidget* parent);
    void open();                                 // shown, its text selected and focused
    int find(const QString& text, bool forward); // selects the match; its event, or -1
    QLineEdit* field() const { return field_; }

  private:
    EventTableView* table_;
    EventTableModel* model_;
    QLineEdit* field_;
    QLabel* status_;
};

} // namespace vs::ui
