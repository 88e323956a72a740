#pragma once
// File > Open Remote...: a host (as ssh knows it: [user@]host[:port] or an alias of ~/.ssh/config)
// and a capture's path there; shows the ssh:// address it makes (the same as a command-line argument).
#include "util/SshTarget.h"

#include <QDialog>

#include <optional>

class QLabel;
class QLineEdit;
class QPushButton;

namespace vs::ui {

class OpenRemoteDialog : public QDialog {
    Q_OBJECT
  public:
    explicit OpenRemoteDialog(QWidget* parent = nullptr);
    std::optional<SshTarget> target() const; // nullopt while the fields do not make an address
    // Asks (starting from the last host and path); nullopt when cancelled.
    static std::optional<SshTarget> ask(QWidget* parent);

  private:
    void update();
    QLineEdit* host_;
    QLineEdit* path_;
    QLabel* url_;
    QPushButton* ok_;
};

} // namespace vs::ui
