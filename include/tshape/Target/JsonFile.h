//===- JsonFile.h - Reading a JSON description file -------------*- C++ -*-===//
//
// The one way a description file (a GPU target, a cluster) is read: the
// file's text goes to its parser, and every error starts with the path
// ("PATH: key 'x': ..."), or says the file cannot be read. Plain C++ and
// LLVM Support: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_TARGET_JSONFILE_H
#define TSHAPE_TARGET_JSONFILE_H

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <optional>
#include <string>

namespace tshape::target {

/// `text` as JSON whose top level is an object; nullopt with `error`
/// ("malformed JSON: ..." with line:column, or "expected a JSON object at
/// the top level") otherwise.
inline std::optional<llvm::json::Value> parseJsonObject(const std::string &text,
                                                        std::string &error) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    error = "malformed JSON: " + llvm::toString(parsed.takeError());
    return std::nullopt;
  }
  if (!parsed->getAsObject()) {
    error = "expected a JSON object at the top level";
    return std::nullopt;
  }
  return std::move(*parsed);
}

/// The built-in description that `o`'s "base" key names (`find(name)`, a
/// pointer or nullptr), copied into `out`; `fromBase` says whether there
/// was one. An unknown name is an error: "key 'base': unknown built-in
/// WHAT 'x' (known: NAMES)".
template <class T, class Find>
bool readBase(const llvm::json::Object &o, const char *what, Find find,
              const std::string &names, T &out, bool &fromBase,
              std::string &error) {
  fromBase = false;
  const llvm::json::Value *base = o.get("base");
  if (!base)
    return true;
  auto name = base->getAsString();
  const T *b = name ? find(name->str()) : nullptr;
  if (!b) {
    error = std::string("key 'base': unknown built-in ") + what +
            (name ? " '" + name->str() + "'" : std::string()) + " (known: " +
            names + ")";
    return false;
  }
  out = *b;
  fromBase = true;
  return true;
}

/// Reads `path` and parses it with `parse(text, error)`; `what` names the
/// kind of file in the read error ("target", "cluster").
template <class T, class Parse>
std::optional<T> loadJsonFile(const std::string &path, const char *what,
                              Parse parse, std::string &error) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) {
    error = std::string("cannot read ") + what + " file '" + path +
            "': " + buf.getError().message();
    return std::nullopt;
  }
  std::optional<T> t = parse((*buf)->getBuffer().str(), error);
  if (!t)
    error = path + ": " + error;
  return t;
}

} // namespace tshape::target

#endif // TSHAPE_TARGET_JSONFILE_H
