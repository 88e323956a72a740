#pragma once
// What File > Open Remote and Capture > Record on a Remote Machine share: a sentence on how ssh is
// used, and the host field (as ssh knows the host; the last one used is offered again).
#include <QString>

class QDialog;
class QFormLayout;
class QLineEdit;

namespace vs::ui {

// Lays out `dialog` (a QVBoxLayout: the intro, then a form whose first row is the host) and returns
// the form for the dialog's own rows.
QFormLayout* remoteDialogForm(QDialog* dialog, const QString& intro, QLineEdit*& host);
void rememberHost(const QLineEdit* host);

} // namespace vs::ui
