//===- CliFlags.cpp - A command line's flags, encoded as data -------------===//

#include "tshape/Interop/CliFlags.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cmath>

using namespace tshape;

namespace {
using K = CliFlag::Kind;
} // namespace

bool CliArgs::has(llvm::StringRef name) const {
  return flags.count(name.str()) != 0;
}

std::string CliArgs::text(llvm::StringRef name) const {
  auto it = flags.find(name.str());
  return it == flags.end() || it->second.empty() ? "" : it->second.front();
}

std::optional<int64_t> CliArgs::integer(llvm::StringRef name) const {
  int64_t v;
  if (!has(name) || llvm::StringRef(text(name)).getAsInteger(10, v))
    return std::nullopt;
  return v;
}

std::optional<double> CliArgs::number(llvm::StringRef name) const {
  double v;
  if (!has(name) || llvm::StringRef(text(name)).getAsDouble(v))
    return std::nullopt;
  return v;
}

std::vector<std::string> tshape::splitWords(llvm::StringRef line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false, any = false;
  for (char ch : line) {
    if (ch == '"') {
      quoted = !quoted;
      any = true;
    } else if (!quoted && (ch == ' ' || ch == '\t' || ch == '\n')) {
      if (any)
        out.push_back(cur);
      cur.clear();
      any = false;
    } else {
      cur += ch;
      any = true;
    }
  }
  if (any)
    out.push_back(cur);
  return out;
}

namespace {
/// Whether `v` is what a flag of kind `f` accepts (argparse's type=).
bool accepts(const CliFlag &f, llvm::StringRef v) {
  int64_t i;
  double d;
  switch (f.kind) {
  case K::Switch:
    return false;
  case K::Int:
    return !v.getAsInteger(10, i);
  case K::Float:
    return !v.getAsDouble(d) && std::isfinite(d);
  case K::String:
    return !v.empty();
  case K::Choice: {
    llvm::SmallVector<llvm::StringRef> choices;
    llvm::StringRef(f.choices).split(choices, ',');
    return llvm::is_contained(choices, v);
  }
  case K::IntPair: {
    llvm::StringRef s = v;
    s.consume_front("(");
    s.consume_back(")");
    auto [l, r] = s.split(',');
    return !l.trim().getAsInteger(10, i) && !r.trim().getAsInteger(10, i);
  }
  case K::Pattern: {
    // An integer, or a Python list expression of 0/1 lists, '*', '+' and
    // integers (_eval_pattern).
    if (!v.getAsInteger(10, i))
      return true;
    return !v.empty() && v.find_first_not_of("[]()0123456789*+, ") ==
                             llvm::StringRef::npos &&
           v.contains('[');
  }
  }
  return false;
}

const char *kindName(K k) {
  switch (k) {
  case K::Switch:
    return "no value";
  case K::Int:
    return "an integer";
  case K::Float:
    return "a number";
  case K::String:
    return "a string";
  case K::Choice:
    return "one of its choices";
  case K::IntPair:
    return "two integers L,R";
  case K::Pattern:
    return "an integer or a list expression";
  }
  return "?";
}
} // namespace

CliArgs tshape::parseCliArguments(
    llvm::StringRef line,
    llvm::function_ref<const CliFlag *(llvm::StringRef)> find,
    std::vector<std::string> &problems) {
  CliArgs args;
  std::vector<std::string> w = splitWords(line);
  for (size_t i = 0; i < w.size(); ++i) {
    const std::string &name = w[i];
    const CliFlag *f = find(name);
    if (!f) {
      problems.push_back(llvm::StringRef(name).starts_with("--")
                             ? "unrecognized argument " + name
                             : "unexpected value '" + name +
                                   "' (no flag takes it)");
      continue;
    }
    if (args.has(name)) {
      problems.push_back(name + " given twice");
      continue;
    }
    std::vector<std::string> &values = args.flags[name];
    if (f->kind == K::Switch)
      continue;
    while (i + 1 < w.size() && !llvm::StringRef(w[i + 1]).starts_with("--")) {
      values.push_back(w[++i]);
      if (!f->many)
        break;
    }
    if (values.empty()) {
      problems.push_back(name + " expects " + kindName(f->kind));
      continue;
    }
    for (const std::string &v : values)
      if (!accepts(*f, v))
        problems.push_back(name + " '" + v + "': expected " +
                           kindName(f->kind) +
                           (f->kind == K::Choice
                                ? std::string(" (") + f->choices + ")"
                                : std::string()) +
                           " (" + f->definedAt + ")");
  }
  return args;
}

