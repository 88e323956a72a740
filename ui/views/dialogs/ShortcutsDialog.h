#pragma once
// Help > Keyboard Shortcuts: every menu and toolbar action that has a shortcut, by menu, and the
// mouse gestures of the timeline; filled from the live actions, so it never goes stale.
#include <QDialog>

class QMenuBar;
class QTreeWidget;

namespace vs::ui {

class ShortcutsDialog : public QDialog {
    Q_OBJECT
  public:
    ShortcutsDialog(QMenuBar* menus, QWidget* parent);
    struct Row {
        QString menu, action, keys;
    };
    static QList<Row> rows(QMenuBar* menus); // the keyboard part, in menu order

  private:
    QTreeWidget* tree_;
};

} // namespace vs::ui
