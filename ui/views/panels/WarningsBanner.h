#pragma once
// The banner above the views with the open capture's read warnings: a few of them, the rest behind a
// link that lists them all (a file with a thousand devices has a thousand warnings, and the banner
// must not push the views off the window). Hidden when there are none.
#include <QLabel>

namespace vs::ui {

class Session;

class WarningsBanner : public QLabel {
    Q_OBJECT
  public:
    WarningsBanner(Session* session, QWidget* parent);

  private:
    void fill();
    void showAll();
    Session* session_;
};

} // namespace vs::ui
