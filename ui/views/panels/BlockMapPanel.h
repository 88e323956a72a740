#pragma once
// The block map with its controls: colour mode, the moment shown, and Play to animate the
// allocator's state through time at a chosen speed.
#include "views/panels/BlockMapView.h"

#include <QTimer>
#include <QWidget>

class QComboBox;
class QLabel;
class QToolButton;

namespace vs::ui {

class Session;

class BlockMapPanel : public QWidget {
    Q_OBJECT
  public:
    explicit BlockMapPanel(QWidget* parent = nullptr);
    // Shows the session's device (at its end until a moment is chosen), its moment and its marks; a
    // click on a block selects it in the session (Session::selectBlock).
    void follow(Session* session);
    void setAnalysis(AnalysisPtr analysis, size_t device, int64_t originUs);
    size_t device() const { return device_; }
    void setMoment(size_t eventsApplied); // shows that moment (follow(): the session's moment calls it)
    BlockMapView* view() const { return view_; }
    void setPlaying(bool on);
    // Marks blocks in the map (see BlockMapView) and counts the marked ones in the label.
    void markAllocations(std::vector<uint32_t> allocEvents);
    void markAddresses(std::vector<uint64_t> addresses);

    size_t eventsPerStep() const; // Play's: the chosen speed, or Auto's for this capture
    static constexpr int kAutoPlaySeconds = 10;
    QLabel* legend() const { return legend_; }

  protected:
    void changeEvent(QEvent* e) override;

  protected:
    void showEvent(QShowEvent* e) override;

  private:
    void moveTo(size_t eventsApplied);
    void updateLabel();
    QString oomText(size_t moment);
    void updateLegend();

    AnalysisPtr analysis_;
    void classify();
    Session* session_ = nullptr;
    size_t device_ = 0;
    int64_t originUs_ = 0;
    BlockMapView* view_;
    QComboBox *colour_, *speed_;
    QToolButton* play_;
    QLabel *label_, *legend_;
    class OomRequestBars* oomBars_;
    QTimer timer_;
};

} // namespace vs::ui
