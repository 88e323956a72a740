#pragma once
// The What-if tab: replays the shown device's requests through PyTorch's caching allocator under
// settings the user chooses (PYTORCH_CUDA_ALLOC_CONF keys, a memory fraction, a device capacity) and
// shows the simulated reserved curve over the recorded one, the peaks, fragmentation, the first
// out-of-memory and the request that failed, a one-sentence verdict, and a sweep of common settings
// ranked by peak reserved. Simulations run on the session's JobRunner, never on the GUI thread.
#include "session/CaptureLoader.h"

#include "sim/WhatIf.h"

#include <QVector>
#include <QWidget>

#include <optional>

class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace vs::ui {

class Session;
class JobRunner;

// What one run of the panel computed, in a form the GUI thread only draws.
struct WhatIfOutcome {
    SimResult recorded, chosen; // simulations under the recorded and the chosen settings
    Reproduction reproduction;  // the recorded-settings simulation against the recorded run
    Capacity capacity;
    bool startsMidRun = false;
    QVector<double> time, recordedReserved, chosenReserved; // seconds; bytes, peaks kept per pixel
    double oomTime = -1, peakTime = 0;
    QString sentence;
};

class WhatIfPanel : public QWidget {
    Q_OBJECT
  public:
    explicit WhatIfPanel(QWidget* parent = nullptr);
    void follow(Session* session);
    // Simulates the conf in the settings box (and the capacity box); an error shows in the panel.
    void simulate();
    void sweep();
    void setConf(const QString& conf);
    void setCapacityText(const QString& text);
    const std::optional<WhatIfOutcome>& outcome() const { return outcome_; }
    QString sentence() const;
    QString errorText() const;
    QTableWidget* sweepTable() const { return table_; }

  private:
    void reset();
    bool readInputs(SimConfig& config, std::optional<uint64_t>& capacity);
    void show(const WhatIfOutcome& o);
    void showSweep(const std::vector<SimResult>& results);
    void fail(const QString& message);

    Session* session_ = nullptr;
    std::optional<WhatIfOutcome> outcome_;
    QComboBox* presets_;
    QLineEdit* conf_;
    QLineEdit* capacity_;
    QPushButton* run_;
    QPushButton* sweepButton_;
    QLabel* sentence_;
    QLabel* figures_;
    QLabel* error_;
    QCustomPlot* plot_;
    QTableWidget* table_;
};

} // namespace vs::ui
