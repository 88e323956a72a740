#pragma once
// The main window lays out the views and routes menu actions: timeline on top, the events pane and
// the details tabs below, the warnings banner and the status bar; menus, recent files, drag and
// drop, loading, export, persisted state. It holds no selection: the views follow the Session, and
// the window only brings a details tab forward when the selection asks for it.
#include "session/CaptureLoader.h"

#include <QMainWindow>
#include <QPointer>

#include <functional>

class QMenu;
class QSplitter;
class QStackedWidget;
class QToolBar;

namespace vs::ui {

class AllocationBandsView;
class BlockMapPanel;
class CapturePropertiesDialog;
class EventsPane;
class FragmentationOverlay;
class LeaksPanel;
class LiveController;
class MemoryMapView;
class OpeningFocus;
class PeakPanel;
class CompositionView;
class RegionSelector;
class Session;
class RetentionPanel;
class StackPane;
class StatusBar;
class TimelinePlot;
class WelcomePage;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void openFile(const QString& path);
    // Only a window of the file (File > Open Range..., --from/--to), or the intact part of a
    // damaged one (offered when a load finds the damage). A folder opens the ranks view.
    void openFileWith(const QString& path, const OpenOptions& options);
    // The CUPTI agent's part of a recording with both levels (record --native), in this window:
    // every driver allocation with native stacks; Reload returns to PyTorch's level.
    void openCudaLevel();
    void setAnalysis(const QString& path, AnalysisPtr analysis); // also used headless and by tests
    void goToTime(double seconds); // the event at that moment, selected and shown (Go > Go to Time)
    void showLeaksTab();
    void showBlockMapTab();
    void showRetentionTab();
    void showPeakTab();
    QString regionStatus() const; // the selected region's sentence in the status bar
    // Bug reports (MainWindowExport.cpp): the title line of exported images and the Markdown report
    // (linking `image` when given), both from what the views show now.
    QString exportTitle() const;
    QString summaryMarkdown(const QString& image = {}) const;
    AnalysisPtr analysis() const;
    Session* session() const { return session_; }

    // First run and conventions (MainWindowShell.cpp): the welcome page while nothing is open, the toolbar.
    bool showingWelcome() const;

  protected:
    void changeEvent(QEvent* e) override; // a new palette redraws the icons
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

  private:
    void buildMenus();
    void buildShell();
    void buildGoMenu();
    void buildDetails();
    void stepMarkedEvent(bool forward);
    void restoreSettings();
    void updateRecentMenu();
    void addRecent(const QString& path);
    void openRanks(bool folder);
    void onLoaded(const QString& path, AnalysisPtr analysis);
    void onFailed(const QString& path, const QString& message);
    void onDamaged(const QString& path, const QString& message);
    void onEventSelected();
    void exportTimeline();
    void exportWindow();
    void exportBugReport();
    void copyImage();
    void copySummary();
    QString besideCapture(const QString& name) const; // where save dialogs start
    void exportWith(const QString& title, const QString& suggested,
                    const std::function<QString(const QString&)>& write, const QString& filter = {});
    void chooseEditor();
    void chooseFragmentationRequest();
    void onOpened();

  public:
    void showAllocationBandsTab();
    // Waits for the leak analysis and the fragmentation series and shows them (headless use, tests).
    void waitForBackgroundWork();
    void showProperties(); // File > Capture Properties (non-modal)

  private:
    CaptureLoader* loader_;
    LiveController* live_;
    TimelinePlot* timeline_;
    EventsPane* events_;
    StackPane* stack_;
    LeaksPanel* leaks_;
    PeakPanel* peak_;
    OpeningFocus* focus_;
    BlockMapPanel* blockMap_;
    RetentionPanel* retention_;
    RegionSelector* regions_;
    class QTabWidget* details_;
    QSplitter *outer_, *lower_;
    StatusBar* status_;
    QMenu* recentMenu_;
    Session* session_; // the open capture and what is selected in it: the one owner of that state
    FragmentationOverlay* fragmentation_;
    // What the load in flight and the capture shown were opened with (a window, the intact part of a
    // damaged file): Reload opens the same again.
    OpenOptions opening_, shown_;
    bool copyOpening_ = false; // a remote capture's local copy is loading: Open Recent keeps its ssh:// name
    MemoryMapView* memoryMap_;
    AllocationBandsView* bands_;
    QAction* propertiesAct_ = nullptr;
    QAction* cudaLevelAct_ = nullptr; // enabled while the capture has a CUDA level
    CompositionView* composition_ = nullptr;
    QPointer<CapturePropertiesDialog> properties_;
    QStackedWidget* pages_ = nullptr; // the welcome page, then the views once a capture is open
    WelcomePage* welcome_ = nullptr;
    QToolBar* toolBar_ = nullptr;
};

} // namespace vs::ui
