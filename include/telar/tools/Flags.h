//===- Flags.h - Command-line flags of the runtime tools --------*- C++ -*-===//
//
// A small flag library for the tools that run on the runtime side and link
// no LLVM (telar-run, telar-calibrate), after IREE's
// iree/base/internal/flags.h: each flag is declared once with its names,
// the variable it sets and its help text; the parser takes `--flag=value`
// and `--flag value`, generates `--help` from the declarations, and names
// the flag in every error. Library telar_flags (tools/flags), plain C++17.
//
//   FlagParser flags("telar-calibrate", "-n N [-o profile.json] [options]");
//   flags.addInt({"-n", "--ranks"}, "N", options.ranks, 1, "measure N ...");
//   flags.addSwitch({"--quick"}, options.quick, "fewer sizes ...");
//   flags.parseOrExit(argc, argv); // usage errors: message, exit 2
//
// Errors read as the tools have always printed them:
//   unknown option '--frobnicate'
//   option '--report' expects a value
//   option '--threads' expects an integer >= 1, got '0'
//   option '--quiet' takes no value
// and parseOrExit prints "TOOL: error: MESSAGE" and "run 'TOOL --help' for
// usage" on stderr and exits with 2.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_TOOLS_FLAGS_H
#define TELAR_TOOLS_FLAGS_H

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace telar::tools::flags {

/// A usage error: the message names the flag or argument.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// "option '--threads' expects an integer >= 1, got '0'" unless `value` is
/// a whole decimal integer in [minimum, maximum]; `spelled` is the flag as
/// given.
int64_t parseInteger(const std::string &spelled, const std::string &value,
                     int64_t minimum, int64_t maximum);

class FlagParser {
public:
  /// `value`'s handler: sets what the flag sets, or throws UsageError.
  /// `spelled` is the name the flag was given by (e.g. "-n" or "--ranks").
  using ValueHandler =
      std::function<void(const std::string &spelled, const std::string &value)>;

  /// `synopsis` follows "usage: TOOL " on --help's first line.
  FlagParser(std::string tool, std::string synopsis);
  FlagParser(const FlagParser &) = delete;
  FlagParser &operator=(const FlagParser &) = delete;

  /// Text after the usage line, and after the flags, in --help.
  void setDescription(std::string text) { description = std::move(text); }
  void setEpilog(std::string text) { epilog = std::move(text); }
  /// The heading of the flags' list in --help (default "Options:"; ""
  /// for none).
  void setFlagsHeading(std::string text) { heading = std::move(text); }

  /// A flag without a value: sets `target` to true.
  void addSwitch(std::initializer_list<const char *> names, bool &target,
                 std::string help);
  /// A flag that takes a value (`valueName` in --help).
  void addValue(std::initializer_list<const char *> names,
                std::string valueName, std::string help, ValueHandler handler);
  /// A string value; empty values are refused with `emptyError` (the whole
  /// message) unless it is "".
  void addString(std::initializer_list<const char *> names,
                 std::string valueName, std::string &target, std::string help,
                 std::string emptyError = "");
  /// An integer value in [minimum, maximum] (parseInteger's message).
  void addInt(std::initializer_list<const char *> names, std::string valueName,
              int &target, int minimum, std::string help);
  void addInt64(std::initializer_list<const char *> names,
                std::string valueName, int64_t &target, int64_t minimum,
                int64_t maximum, std::string help);
  /// A flag that runs `action` when met and then exits with 0 (--version).
  void addAction(std::initializer_list<const char *> names, std::string help,
                 std::function<void()> action);
  /// Arguments that are not flags (and every argument after "--"), in
  /// order; by default each is an error "unexpected argument 'ARG'".
  void setPositionalHandler(std::function<void(const std::string &)> handler) {
    positional = std::move(handler);
  }

  /// Parses argv[1..argc): flags in any order, a flag's value inline
  /// (`--name=value`, long names only) or as the next argument (whatever
  /// it starts with). -h and --help, always declared, print help() on
  /// stdout and exit with 0 when met. Throws UsageError at the first bad
  /// argument.
  void parse(int argc, char **argv) const;
  /// parse, and on a UsageError usageError(its message).
  void parseOrExit(int argc, char **argv) const;

  /// Prints "TOOL: error: MESSAGE" and "run 'TOOL --help' for usage" on
  /// stderr and exits with 2.
  [[noreturn]] void usageError(const std::string &message) const;

  /// The generated help: the usage line, the description, every flag with
  /// its names, value and help text (wrapped to 79 columns) in the order
  /// declared, -h/--help before the first action (--version) or last, the
  /// epilog.
  std::string help() const;

private:
  struct Flag {
    std::vector<std::string> names;
    /// Empty for switches and actions.
    std::string valueName;
    std::string help;
    ValueHandler onValue;
    std::function<void()> onSwitch;
    bool exits = false;
  };
  void add(Flag flag);
  const Flag *find(const std::string &name) const;

  std::string tool, synopsis, description, epilog, heading = "Options:";
  std::vector<Flag> flags;
  std::function<void(const std::string &)> positional;
};

} // namespace telar::tools::flags

#endif // TELAR_TOOLS_FLAGS_H
