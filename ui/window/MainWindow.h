#pragma once
// The main window: timeline on top, event list and stack details below; menus, recent files,
// drag and drop, background loading with progress and Cancel, export, persisted state.
#include "session/CaptureLoader.h"

#include <QMainWindow>
#include <QPointer>

#include <functional>

class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QToolBar;

namespace vs::ui {

class AllocationBandsView;
class BlockMapPanel;
class CapturePropertiesDialog;
class DevicePicker;
class FragmentationOverlay;
class EventTableModel;
class EventTableView;
class EventFindBar;
class LeaksPanel;
class LiveController;
class MemoryMapView;
class CompositionView;
class RegionSelector;
class Session;
class RetentionPanel;
class StackPane;
class TimelinePlot;
class WelcomePage;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void openFile(const QString& path);
    // Only a window of the file (File > Open Range..., --from/--to), or the intact part of a
    // damaged one (offered when a load finds the damage).
    void openFileWith(const QString& path, const OpenOptions& options);
    // The CUPTI agent's part of a recording with both levels (record --native), in this window:
    // every driver allocation with native stacks; Reload returns to PyTorch's level.
    void openCudaLevel();
    CompositionView* composition() const { return composition_; }
    void setAnalysis(const QString& path, AnalysisPtr analysis); // also used headless and by tests
    TimelinePlot* timeline() const { return timeline_; }
    EventTableView* eventTable() const { return table_; }
    EventFindBar* findBar() const { return findBar_; }
    void goToTime(double seconds); // the event at that moment, selected and shown (Go > Go to Time)
    StackPane* stackPane() const { return stack_; }
    LeaksPanel* leaksPanel() const { return leaks_; }
    void showLeaksTab();
    void showBlockMapTab();
    BlockMapPanel* blockMap() const { return blockMap_; }
    RetentionPanel* retentionPanel() const { return retention_; }
    void showRetentionTab();
    CaptureLoader* loader() const { return loader_; }
    RegionSelector* regionSelector() const { return regions_; }
    QString regionStatus() const; // the selected region's sentence in the status bar
    // Bug reports (MainWindowExport.cpp): the title line of exported images and the Markdown report
    // (linking `image` when given), both from what the views show now.
    QString exportTitle() const;
    QString summaryMarkdown(const QString& image = {}) const;
    AnalysisPtr analysis() const;
    Session* session() const { return session_; }

    // First run and conventions (MainWindowShell.cpp): the welcome page while nothing is open, the toolbar.
    WelcomePage* welcomePage() const { return welcome_; }
    bool showingWelcome() const;
    QToolBar* mainToolBar() const { return toolBar_; }

  protected:
    void changeEvent(QEvent* e) override; // a new palette redraws the icons
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

  private:
    void buildMenus();
    void buildShell();
    void buildGoMenu();
    void linkViews(); // selections that follow each other across views (MainWindowLinks.cpp)
    void linkBlockMap();
    void stepMarkedEvent(bool forward);
    void buildStatusBar();
    void restoreSettings();
    void updateRecentMenu();
    void addRecent(const QString& path);
    void onLoaded(const QString& path, AnalysisPtr analysis);
    void onFailed(const QString& path, const QString& message);
    void onDamaged(const QString& path, const QString& message);
    void onCursor(double seconds);
    void onSelection(double from, double to);
    void selectEventAt(double seconds);
    void onEventSelected(int64_t event);
    void exportTimeline();
    void exportWindow();
    void exportBugReport();
    void copyImage();
    void copySummary();
    QString besideCapture(const QString& name) const; // where save dialogs start
    void exportWith(const QString& title, const QString& suggested,
                    const std::function<QString(const QString&)>& write, const QString& filter = {});
    void chooseEditor();
    void setBusy(bool busy);
    void chooseFragmentationRequest();

    void showAllWarnings();
    void onOpened();
    void onDeviceChanged(size_t device);
    QString fileText() const;

  public:
    MemoryMapView* memoryMap() const { return memoryMap_; }
    AllocationBandsView* allocationBands() const { return bands_; }
    void showAllocationBandsTab();
    // Waits for the leak analysis and the fragmentation series and shows them (headless use, tests).
    void waitForBackgroundWork();
    LiveController* live() const { return live_; }
    void showProperties();                       // File > Capture Properties (non-modal)
    CapturePropertiesDialog* properties() const; // the open one, or null

  private:
    CaptureLoader* loader_;
    LiveController* live_;
    TimelinePlot* timeline_;
    EventTableModel* model_;
    EventTableView* table_;
    EventFindBar* findBar_;
    StackPane* stack_;
    LeaksPanel* leaks_;
    BlockMapPanel* blockMap_;
    RetentionPanel* retention_;
    RegionSelector* regions_;
    class QTabWidget* details_;
    QSplitter *outer_, *lower_;
    QLabel *warnings_, *fileLabel_, *cursorLabel_, *selectionLabel_, *regionLabel_;
    QProgressBar* progress_;
    QPushButton* cancel_;
    QMenu* recentMenu_;
    Session* session_; // the open capture and what is selected in it: the one owner of that state
    DevicePicker* devices_;
    FragmentationOverlay* fragmentation_;
    bool clickedOnTimeline_ = false;
    bool fromBlockMap_ = false;
    bool keepDetails_ = false; // an event selected by a click on a ramp: leave the details tabs alone
    // What the load in flight and the capture shown were opened with (a window, the intact part of a
    // damaged file): Reload opens the same again.
    OpenOptions opening_, shown_;
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
