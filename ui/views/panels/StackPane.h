#pragma once
// Details of the selected event: what happened and its call stack, user frames emphasised and
// internal frames (PyTorch, CPython, C++ runtime) folded behind a toggle; copy, open in editor.
#include "session/CaptureLoader.h"

#include <QWidget>

class QAction;
class QCheckBox;
class QLabel;
class QModelIndex;
class QTreeView;
class QPushButton;

namespace vs::ui {

class Session;
class StackFrameModel;

class StackPane : public QWidget {
    Q_OBJECT
  public:
    explicit StackPane(QWidget* parent = nullptr);
    // Shows the session's selected event, cleared when the device or capture changes.
    void follow(Session* session);
    void showEvent(AnalysisPtr analysis, size_t device, size_t event, int64_t originUs);
    void clear();
    void setShowInternal(bool on);
    bool showInternal() const;
    QAction* showInternalAction() const { return internalAct_; } // for the View menu
    QString stackText() const;                                   // what "Copy stack" puts on the clipboard
    int visibleFrameCount() const;

  signals:
    void showInternalChanged(bool on);

  private:
    void rebuild();
    void openInEditor(const QModelIndex& row);

    AnalysisPtr analysis_;
    size_t device_ = 0, event_ = 0;
    int64_t originUs_ = 0;
    QLabel* header_;
    StackFrameModel* model_;
    QTreeView* frames_;
    QCheckBox* internal_;
    QAction* internalAct_;
    QPushButton *copyButton_, *openButton_;
};

// Opens file:line with the user's configured editor command ({file} and {line} are replaced), or
// with the desktop's default application for the file.
void openInEditor(const QString& file, int line);
// The same without the message box: why the file could not be opened, or empty when it was.
QString openInEditorReason(const QString& file, int line);

} // namespace vs::ui
