//===- HFReader.cpp - A located reader of config.json objects -------------===//

#include "HFReader.h"

using namespace tshape;

namespace {

/// A small scanner over JSON text (already parsed, so well formed): where
/// each value starts and ends, to find where a key is written.
struct JsonScan {
  llvm::StringRef t;
  size_t i = 0;
  void ws() {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' ||
                            t[i] == '\r'))
      ++i;
  }
  /// Reads a string at i (at its opening quote); its unescaped-enough
  /// contents (keys of configs have no escapes worth decoding).
  std::string str() {
    std::string out;
    for (++i; i < t.size() && t[i] != '"'; ++i) {
      if (t[i] == '\\' && i + 1 < t.size())
        ++i;
      out += t[i];
    }
    ++i;
    return out;
  }
  void skipValue() {
    ws();
    if (i >= t.size())
      return;
    if (t[i] == '"') {
      str();
      return;
    }
    if (t[i] == '{' || t[i] == '[') {
      int depth = 0;
      for (; i < t.size(); ++i) {
        if (t[i] == '"') {
          str();
          --i;
        } else if (t[i] == '{' || t[i] == '[') {
          ++depth;
        } else if ((t[i] == '}' || t[i] == ']') && --depth == 0) {
          ++i;
          return;
        }
      }
      return;
    }
    while (i < t.size() && !llvm::StringRef(",}] \t\r\n").contains(t[i]))
      ++i;
  }
};
} // namespace

/// The offset of the key `path.back()` in the object reached from the top
/// level through the keys before it; npos when there is none.
size_t tshape::hf::keyOffset(llvm::StringRef text, llvm::ArrayRef<std::string> path) {
  JsonScan s{text};
  s.ws();
  for (size_t depth = 0; depth < path.size(); ++depth) {
    if (s.i >= text.size() || text[s.i] != '{')
      return llvm::StringRef::npos;
    ++s.i;
    bool found = false;
    while (true) {
      s.ws();
      if (s.i >= text.size() || text[s.i] != '"')
        return llvm::StringRef::npos;
      const size_t at = s.i;
      const std::string key = s.str();
      s.ws();
      ++s.i; // ':'
      s.ws();
      if (key == path[depth]) {
        if (depth + 1 == path.size())
          return at;
        found = true;
        break;
      }
      s.skipValue();
      s.ws();
      if (s.i >= text.size() || text[s.i] != ',')
        return llvm::StringRef::npos;
      ++s.i;
    }
    if (!found)
      return llvm::StringRef::npos;
  }
  return llvm::StringRef::npos;
}
