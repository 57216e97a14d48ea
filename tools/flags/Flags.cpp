//===- Flags.cpp - Command-line flags of the runtime tools ----------------===//
//
// include/telar/tools/Flags.h.
//
//===----------------------------------------------------------------------===//

#include "telar/tools/Flags.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>

using namespace telar::tools::flags;

namespace {

/// The column --help's texts start at, at most (longer names and values
/// put their text on the next line), and the width it wraps them to.
constexpr size_t kMaxHelpColumn = 24;
constexpr size_t kWidth = 79;

/// `text` wrapped to `width` columns, each line indented by `indent`
/// spaces but the first (`firstIndent` already written); "\n" in `text`
/// starts a new line.
std::string wrap(const std::string &text, size_t indent, size_t firstIndent,
                 size_t width) {
  std::string out;
  size_t column = firstIndent;
  bool lineEmpty = true;
  auto newLine = [&] {
    out += "\n" + std::string(indent, ' ');
    column = indent;
    lineEmpty = true;
  };
  for (size_t start = 0; start < text.size();) {
    if (text[start] == '\n') {
      newLine();
      ++start;
      continue;
    }
    if (text[start] == ' ') {
      ++start;
      continue;
    }
    size_t end = text.find_first_of(" \n", start);
    if (end == std::string::npos)
      end = text.size();
    std::string word = text.substr(start, end - start);
    start = end;
    if (!lineEmpty && column + 1 + word.size() > width)
      newLine();
    if (!lineEmpty) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    lineEmpty = false;
  }
  return out;
}

} // namespace

int64_t telar::tools::flags::parseInteger(const std::string &spelled,
                                   const std::string &value, int64_t minimum,
                                   int64_t maximum) {
  int64_t n = 0;
  const char *end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, n);
  if (value.empty() || ec != std::errc() || ptr != end || n < minimum ||
      n > maximum)
    throw UsageError("option '" + spelled + "' expects an integer >= " +
                     std::to_string(minimum) + ", got '" + value + "'");
  return n;
}

FlagParser::FlagParser(std::string tool, std::string synopsis)
    : tool(std::move(tool)), synopsis(std::move(synopsis)) {
  positional = [](const std::string &arg) {
    throw UsageError("unexpected argument '" + arg + "'");
  };
  add(Flag{{"-h", "--help"}, "", "print this help", nullptr,
           [this] { std::fputs(help().c_str(), stdout); }, true});
}

void FlagParser::add(Flag flag) {
  for (const std::string &name : flag.names)
    if (name.size() < 2 || name[0] != '-' || find(name))
      throw std::logic_error("flag '" + name + "' declared twice or badly");
  flags.push_back(std::move(flag));
}

const FlagParser::Flag *FlagParser::find(const std::string &name) const {
  for (const Flag &f : flags)
    if (std::find(f.names.begin(), f.names.end(), name) != f.names.end())
      return &f;
  return nullptr;
}

void FlagParser::addSwitch(std::initializer_list<const char *> names,
                           bool &target, std::string help) {
  add(Flag{{names.begin(), names.end()}, "", std::move(help), nullptr,
           [&target] { target = true; }, false});
}

void FlagParser::addValue(std::initializer_list<const char *> names,
                          std::string valueName, std::string help,
                          ValueHandler handler) {
  add(Flag{{names.begin(), names.end()}, std::move(valueName), std::move(help),
           std::move(handler), nullptr, false});
}

void FlagParser::addString(std::initializer_list<const char *> names,
                           std::string valueName, std::string &target,
                           std::string help, std::string emptyError) {
  addValue(names, std::move(valueName), std::move(help),
           [&target, emptyError](const std::string &, const std::string &v) {
             if (v.empty() && !emptyError.empty())
               throw UsageError(emptyError);
             target = v;
           });
}

void FlagParser::addInt(std::initializer_list<const char *> names,
                        std::string valueName, int &target, int minimum,
                        std::string help) {
  addValue(names, std::move(valueName), std::move(help),
           [&target, minimum](const std::string &spelled,
                              const std::string &v) {
             target = int(parseInteger(spelled, v, minimum, INT32_MAX));
           });
}

void FlagParser::addInt64(std::initializer_list<const char *> names,
                          std::string valueName, int64_t &target,
                          int64_t minimum, int64_t maximum, std::string help) {
  addValue(names, std::move(valueName), std::move(help),
           [&target, minimum, maximum](const std::string &spelled,
                                       const std::string &v) {
             target = parseInteger(spelled, v, minimum, maximum);
           });
}

void FlagParser::addAction(std::initializer_list<const char *> names,
                           std::string help, std::function<void()> action) {
  add(Flag{{names.begin(), names.end()}, "", std::move(help), nullptr,
           std::move(action), true});
}

void FlagParser::parse(int argc, char **argv) const {
  bool positionalOnly = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (positionalOnly || arg.empty() || arg[0] != '-' || arg == "-") {
      positional(arg);
      continue;
    }
    if (arg == "--") {
      positionalOnly = true;
      continue;
    }
    // "--name=value"; a short flag's '=' is part of its name.
    std::string name = arg, value;
    bool inlineValue = false;
    if (size_t eq = arg.find('='); eq != std::string::npos && arg[1] == '-') {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inlineValue = true;
    }
    const Flag *flag = find(name);
    if (!flag)
      throw UsageError("unknown option '" + name + "'");
    if (flag->onSwitch) {
      if (inlineValue)
        throw UsageError("option '" + name + "' takes no value");
      flag->onSwitch();
      if (flag->exits) {
        std::fflush(stdout);
        std::exit(0);
      }
      continue;
    }
    if (!inlineValue) {
      if (i + 1 >= argc)
        throw UsageError("option '" + name + "' expects a value");
      value = argv[++i];
    }
    flag->onValue(name, value);
  }
}

void FlagParser::parseOrExit(int argc, char **argv) const {
  try {
    parse(argc, argv);
  } catch (const UsageError &e) {
    usageError(e.what());
  }
}

void FlagParser::usageError(const std::string &message) const {
  std::fprintf(stderr, "%s: error: %s\nrun '%s --help' for usage\n",
               tool.c_str(), message.c_str(), tool.c_str());
  std::exit(2);
}

std::string FlagParser::help() const {
  std::string out = "usage: " + tool + " " + synopsis + "\n";
  if (!description.empty())
    out += "\n" + description + (description.back() == '\n' ? "" : "\n");
  // -h/--help (declared first) follows the tool's own flags, before the
  // first other flag that exits (--version).
  std::vector<const Flag *> order;
  for (size_t i = 1; i < flags.size(); ++i) {
    if (flags[i].exits && order.size() == i - 1)
      order.push_back(&flags[0]);
    order.push_back(&flags[i]);
  }
  if (order.size() < flags.size())
    order.push_back(&flags[0]);
  auto label = [](const Flag &f) {
    std::string s;
    for (const std::string &n : f.names)
      s += (s.empty() ? "" : ", ") + n;
    return f.valueName.empty() ? s : s + " " + f.valueName;
  };
  size_t column = 0;
  for (const Flag *f : order)
    column = std::max(column, 2 + label(*f).size() + 3);
  column = std::min(column, kMaxHelpColumn);
  out += "\n";
  if (!heading.empty())
    out += heading + "\n";
  for (const Flag *f : order) {
    std::string line = "  " + label(*f);
    if (line.size() + 1 > column) {
      out += line;
      out += "\n" + std::string(column, ' ');
    } else {
      out += line + std::string(column - line.size(), ' ');
    }
    out += wrap(f->help, column, column, kWidth) + "\n";
  }
  if (!epilog.empty())
    out += "\n" + epilog + (epilog.back() == '\n' ? "" : "\n");
  return out;
}
