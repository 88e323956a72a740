#pragma once
// Helpers shared by the test suites: the bundled samples and their PyTorch ground truth.
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <string>
#include <vector>

namespace vs::test {

QString samplesDir();
QStringList sampleNames();                    // clean_loop, leak_list, ...
std::string samplePath(const QString& name);  // the compressed or plain pickle
QJsonObject sampleTruth(const QString& name); // NAME.truth.json
std::vector<uint8_t> readFile(const std::string& path);

} // namespace vs::test
