#pragma once
// Capture > Record on a Remote Machine...: the host (as ssh knows it), the command line to record
// there (python train.py ... under the Python recorder, any other program under the CUPTI agent)
// and the directory to run it in (empty: the remote home).
#include "util/RemoteScripts.h"
#include "util/SshTarget.h"

#include <QDialog>

#include <optional>
#include <utility>

class QLabel;
class QLineEdit;
class QPushButton;

namespace vs::ui {

class RecordRemoteDialog : public QDialog {
    Q_OBJECT
  public:
    explicit RecordRemoteDialog(QWidget* parent = nullptr);
    // nullopt (with the reason shown in the dialog) while the fields cannot be recorded.
    std::optional<std::pair<SshTarget, RemoteProgram>> request() const;
    static std::optional<std::pair<SshTarget, RemoteProgram>> ask(QWidget* parent);

  private:
    void update();
    QLineEdit* host_;
    QLineEdit* command_;
    QLineEdit* dir_;
    QLabel* why_;
    QPushButton* ok_;
};

} // namespace vs::ui
