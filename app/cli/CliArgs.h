#pragma once
// Command-line parsing for vramscope-cli: `COMMAND FILE [--flag [VALUE]]...`.
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace vs::cli {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class CliArgs {
  public:
    // `flags` take no value, `options` take one; up to `maxFiles` positional files (at least one).
    // Throws UsageError.
    CliArgs(const std::vector<std::string>& args, const std::set<std::string>& flags,
            const std::set<std::string>& options, size_t maxFiles = 1);
    const std::string& file() const { return files_.front(); }
    const std::vector<std::string>& files() const { return files_; }
    bool has(const std::string& flag) const { return flags_.count(flag) > 0; }
    std::optional<std::string> option(const std::string& name) const;
    std::optional<double> number(const std::string& name) const;
    std::optional<int> integer(const std::string& name) const;

  private:
    std::vector<std::string> files_;
    std::set<std::string> flags_;
    std::map<std::string, std::string> options_;
};

} // namespace vs::cli
