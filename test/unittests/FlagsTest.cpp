//===- FlagsTest.cpp - The runtime tools' flag library --------------------===//
//
// telar/tools/Flags.h: values inline and as the next argument, switches,
// positional arguments and "--", integers with bounds, each error naming
// the flag as given, duplicate declarations, and the generated help.
// (Exiting paths, --help and usage errors, are the tools' lit tests.)
//
//===----------------------------------------------------------------------===//

#include "telar/tools/Flags.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace telar::tools::flags;

namespace {

/// Parses `args` (argv[0] added); the error, "" when none.
std::string parse(const FlagParser &flags, std::vector<std::string> args) {
  args.insert(args.begin(), "tool");
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  try {
    flags.parse(int(argv.size()), argv.data());
  } catch (const UsageError &e) {
    return e.what();
  }
  return "";
}

struct Options {
  int ranks = 0, threads = 0;
  int64_t nodeSize = -1;
  std::string output = "default", name;
  bool quiet = false, quick = false;
  std::vector<std::string> positional, inputs;
};

/// A parser over `o`, declared as a tool would.
struct Tool {
  Options o;
  FlagParser flags{"tool", "-n N [options]"};
  Tool() {
    flags.addInt({"-n", "--ranks"}, "N", o.ranks, 1, "ranks");
    flags.addInt({"--threads"}, "T", o.threads, 1, "threads");
    flags.addInt64({"--node-size"}, "K", o.nodeSize, 0, 1000, "node size");
    flags.addString({"-o", "--output"}, "FILE", o.output, "where",
                    "option '-o' expects a file name");
    flags.addString({"--name"}, "NAME", o.name, "a name");
    flags.addSwitch({"-q", "--quiet"}, o.quiet, "quiet");
    flags.addSwitch({"--quick"}, o.quick, "quick");
    flags.addValue({"--input"}, "NAME=FILE", "an input",
                   [this](const std::string &, const std::string &v) {
                     if (v.find('=') == std::string::npos)
                       throw UsageError("--input expects NAME=FILE, got '" + v +
                                        "'");
                     o.inputs.push_back(v);
                   });
    flags.setPositionalHandler(
        [this](const std::string &a) { o.positional.push_back(a); });
  }
};

TEST(Flags, ValuesInlineAndSeparate) {
  Tool t;
  EXPECT_EQ(parse(t.flags, {"-n", "4", "--threads=2", "--output", "p.json",
                            "--name=", "--node-size", "0", "--input", "a=b",
                            "--input=c=d"}),
            "");
  EXPECT_EQ(t.o.ranks, 4);
  EXPECT_EQ(t.o.threads, 2);
  EXPECT_EQ(t.o.output, "p.json");
  EXPECT_EQ(t.o.name, ""); // no emptyError: empty is a value
  EXPECT_EQ(t.o.nodeSize, 0);
  EXPECT_EQ(t.o.inputs, (std::vector<std::string>{"a=b", "c=d"}));
  EXPECT_FALSE(t.o.quiet);
}

TEST(Flags, NextArgumentIsTheValueWhateverItStartsWith) {
  Tool t;
  EXPECT_EQ(parse(t.flags, {"--name", "-q"}), "");
  EXPECT_EQ(t.o.name, "-q");
  EXPECT_FALSE(t.o.quiet);
}

TEST(Flags, SwitchesAndPositionals) {
  Tool t;
  EXPECT_EQ(parse(t.flags, {"a", "-q", "-", "--quick", "--", "--threads", "-n"}),
            "");
  EXPECT_TRUE(t.o.quiet);
  EXPECT_TRUE(t.o.quick);
  EXPECT_EQ(t.o.positional,
            (std::vector<std::string>{"a", "-", "--threads", "-n"}));
  EXPECT_EQ(t.o.threads, 0);
}

TEST(Flags, ErrorsNameTheFlagAsGiven) {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const Case cases[] = {
      {{"--frobnicate"}, "unknown option '--frobnicate'"},
      {{"--frobnicate=1"}, "unknown option '--frobnicate'"},
      {{"-x"}, "unknown option '-x'"},
      // A short flag's '=' is part of its name.
      {{"-n=2"}, "unknown option '-n=2'"},
      {{"--output"}, "option '--output' expects a value"},
      {{"-o"}, "option '-o' expects a value"},
      {{"-n", "0"}, "option '-n' expects an integer >= 1, got '0'"},
      {{"--ranks=x"}, "option '--ranks' expects an integer >= 1, got 'x'"},
      {{"--threads", "2.5"}, "option '--threads' expects an integer >= 1, got '2.5'"},
      {{"--threads", " 2"}, "option '--threads' expects an integer >= 1, got ' 2'"},
      {{"--threads", "99999999999"},
       "option '--threads' expects an integer >= 1, got '99999999999'"},
      {{"--node-size=-1"},
       "option '--node-size' expects an integer >= 0, got '-1'"},
      {{"--node-size=1001"},
       "option '--node-size' expects an integer >= 0, got '1001'"},
      {{"-o", ""}, "option '-o' expects a file name"},
      {{"--quiet=yes"}, "option '--quiet' takes no value"},
      {{"--input", "x"}, "--input expects NAME=FILE, got 'x'"},
  };
  for (const Case &c : cases) {
    Tool t;
    EXPECT_EQ(parse(t.flags, c.args), c.error) << c.args[0];
  }
}

TEST(Flags, FirstErrorWins) {
  Tool t;
  EXPECT_EQ(parse(t.flags, {"-n", "x", "--frobnicate"}),
            "option '-n' expects an integer >= 1, got 'x'");
}

TEST(Flags, PositionalsAreErrorsUnlessHandled) {
  int n = 0;
  FlagParser flags("tool", "[options]");
  flags.addInt({"-n"}, "N", n, 0, "n");
  EXPECT_EQ(parse(flags, {"-n", "1", "extra"}), "unexpected argument 'extra'");
  EXPECT_EQ(n, 1);
}

TEST(Flags, DeclaredTwiceIsAProgrammingError) {
  bool a = false, b = false;
  FlagParser flags("tool", "[options]");
  flags.addSwitch({"-a"}, a, "a");
  EXPECT_THROW(flags.addSwitch({"-b", "-a"}, b, "b"), std::logic_error);
  EXPECT_THROW(flags.addSwitch({"--help"}, b, "b"), std::logic_error);
  EXPECT_THROW(flags.addSwitch({"b"}, b, "b"), std::logic_error);
}

TEST(Flags, GeneratedHelp) {
  Tool t;
  t.flags.setDescription("Does things.");
  t.flags.setEpilog("Exit status: 0 on success.");
  t.flags.addAction({"--version"}, "print the version", [] {});
  t.flags.addSwitch({"--a-very-long-switch-name"}, t.o.quick,
                    "its text goes on the next line, and this long help "
                    "wraps at the 79th column with a hanging indent under "
                    "the flag's text column.\nA new line where asked.");
  // The texts start 3 columns after the longest names, at most at column
  // 24 (longer names put their text on the next line); -h, --help comes
  // before the first flag that exits.
  EXPECT_EQ(t.flags.help(),
            "usage: tool -n N [options]\n"
            "\n"
            "Does things.\n"
            "\n"
            "Options:\n"
            "  -n, --ranks N         ranks\n"
            "  --threads T           threads\n"
            "  --node-size K         node size\n"
            "  -o, --output FILE     where\n"
            "  --name NAME           a name\n"
            "  -q, --quiet           quiet\n"
            "  --quick               quick\n"
            "  --input NAME=FILE     an input\n"
            "  -h, --help            print this help\n"
            "  --version             print the version\n"
            "  --a-very-long-switch-name\n"
            "                        its text goes on the next line, and this "
            "long help\n"
            "                        wraps at the 79th column with a hanging "
            "indent under\n"
            "                        the flag's text column.\n"
            "                        A new line where asked.\n"
            "\n"
            "Exit status: 0 on success.\n");
}

} // namespace
