#pragma once
// File > Capture Properties: the facts about the open capture (core/analysis/CaptureFacts) in a tree
// of sections, with a button that copies them as text.
#include "analysis/CaptureFacts.h"

#include <QDialog>

class QTreeWidget;

namespace vs::ui {

class CapturePropertiesDialog : public QDialog {
    Q_OBJECT
  public:
    CapturePropertiesDialog(const std::vector<FactSection>& facts, QWidget* parent = nullptr);
    QTreeWidget* tree() const { return tree_; }
    QString text() const; // what Copy puts on the clipboard

  private:
    QTreeWidget* tree_;
    std::vector<FactSection> facts_;
};

} // namespace vs::ui
