//===- HFReader.h - A located reader of config.json objects ----*- C++ -*-===//
//
// Reads keys of a parsed JSON object (a Hugging Face config.json or a
// sub-object) and turns every problem into a diagnostic at the line and
// column where the key is written. Internal to lib/Interop: the importer of
// sizes (HFConfig.cpp) and of the architecture (HFArchitecture.cpp) share it.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_LIB_INTEROP_HFREADER_H
#define TSHAPE_LIB_INTEROP_HFREADER_H

#include "tshape/Interop/HFConfig.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tshape::hf {

namespace json = llvm::json;
using Keys = std::vector<const char *>;

/// The offset of the key `path.back()` in the object reached from the top
/// level through the keys before it; npos when there is none.
size_t keyOffset(llvm::StringRef text, llvm::ArrayRef<std::string> path);

/// Reads keys of one JSON object and records the first problem.
class Reader {
public:
  /// `origin`: the sub-object (DBRX's attn_config, Gemma 3's text_config)
  /// a key of a merged object was read from; absent: the root.
  Reader(llvm::StringRef text, const json::Object &obj, ImportDiagnostic &diag,
         const std::map<std::string, std::string> *origin = nullptr)
      : text(text), obj(obj), diag(diag), origin(origin) {}

  /// The first of `keys` present and not null, or nullptr.
  const char *find(const Keys &keys) const {
    for (const char *k : keys)
      if (const json::Value *v = obj.get(k); v && v->kind() != json::Value::Null)
        return k;
    return nullptr;
  }

  /// A positive integer under one of `keys`; `fallback` when absent (0:
  /// required).
  std::optional<int64_t> size(const Keys &keys, int64_t fallback,
                              const char *what) {
    const char *key = find(keys);
    if (!key) {
      if (fallback > 0)
        return fallback;
      return fail(nullptr, llvm::formatv("missing required key '{0}' ({1})",
                                         keys.empty() ? what : keys.front(),
                                         what));
    }
    const json::Value &v = *obj.get(key);
    std::optional<int64_t> i = v.getAsInteger();
    if (!i) {
      if (v.kind() == json::Value::Number)
        return fail(key, llvm::formatv("key '{0}': expected an integer that "
                                       "fits in 64 bits, got {1}",
                                       key, render(v)));
      return mistyped(key, "an integer");
    }
    if (*i <= 0)
      return fail(key, llvm::formatv("key '{0}': {1} must be positive, got "
                                     "{2}",
                                     key, what, *i));
    return i;
  }

  /// A boolean under one of `keys`, or `fallback`.
  std::optional<bool> flag(const Keys &keys, bool fallback) {
    const char *key = find(keys);
    if (!key)
      return fallback;
    if (auto b = obj.get(key)->getAsBoolean())
      return *b;
    return mistyped(key, "true or false");
  }

  /// A string under one of `keys`; nullopt when absent (no error) or
  /// mistyped (error).
  std::optional<std::string> string(const Keys &keys, const char **usedKey) {
    const char *key = find(keys);
    *usedKey = key;
    if (!key)
      return std::nullopt;
    if (auto s = obj.get(key)->getAsString())
      return s->str();
    return mistyped(key, "a string");
  }

  /// A non-negative integer under one of `keys`, or `fallback` when absent
  /// or null.
  std::optional<int64_t> count(const Keys &keys, int64_t fallback,
                               const char *what) {
    const char *key = find(keys);
    if (!key)
      return fallback;
    std::optional<int64_t> i = obj.get(key)->getAsInteger();
    if (!i || *i < 0)
      return fail(key, llvm::formatv("key '{0}': {1} must be a non-negative "
                                     "integer, got {2}",
                                     key, what, render(*obj.get(key))));
    return i;
  }

  /// A number (integer or not) under one of `keys`, or `fallback` when
  /// absent or null.
  std::optional<double> number(const Keys &keys, double fallback) {
    const char *key = find(keys);
    if (!key)
      return fallback;
    if (auto d = obj.get(key)->getAsNumber())
      return *d;
    return mistyped(key, "a number");
  }

  /// The object under `key`: nullptr when absent or null, and when it is
  /// not an object (then an error at the key).
  const json::Object *object(const char *key) {
    const json::Value *v = obj.get(key);
    if (!v || v->kind() == json::Value::Null)
      return nullptr;
    if (const json::Object *o = v->getAsObject())
      return o;
    mistyped(key, "an object");
    return nullptr;
  }

  /// A reader of `sub` (an object under a key of this one) whose keys are
  /// located under `key` in the text.
  Reader nested(const json::Object &sub, const char *key,
                std::map<std::string, std::string> &subOrigin) const {
    subOrigin.clear();
    for (const auto &kv : sub)
      subOrigin[kv.first.str()] = key;
    return Reader(text, sub, diag, &subOrigin);
  }

  bool failed() const { return !diag.message.empty(); }

  /// Records `message` at `key` (or the whole file); returns `ret`.
  template <typename T = std::optional<int64_t>>
  T fail(const char *key, const std::string &message, T ret = T()) {
    if (diag.message.empty()) {
      diag.message = message;
      if (key)
        locate(key);
    }
    return ret;
  }

  /// Records "key 'K': expected WHAT, got KIND VALUE" at `key`, which is
  /// present; nullopt for the caller to return.
  std::nullopt_t mistyped(const char *key, const char *what) {
    const json::Value &v = *obj.get(key);
    fail(key, llvm::formatv("key '{0}': expected {1}, got {2} {3}", key, what,
                            kindName(v), render(v)));
    return std::nullopt;
  }

  /// Sets the diagnostic's line and column to where `"key"` is written:
  /// in the sub-object it was read from, else at the top level (never a
  /// key of that name at another depth).
  void locate(const char *key) {
    std::vector<std::string> path;
    if (origin)
      if (auto it = origin->find(key); it != origin->end())
        path.push_back(it->second);
    path.push_back(key);
    size_t pos = keyOffset(text, path);
    if (pos == llvm::StringRef::npos)
      return;
    llvm::StringRef before = text.take_front(pos);
    diag.line = before.count('\n') + 1;
    size_t nl = before.rfind('\n');
    diag.column = pos - (nl == llvm::StringRef::npos ? 0 : nl + 1) + 1;
  }

  static const char *kindName(const json::Value &v) {
    switch (v.kind()) {
    case json::Value::Null:
      return "null";
    case json::Value::Boolean:
      return "boolean";
    case json::Value::Number:
      return "number";
    case json::Value::String:
      return "string";
    case json::Value::Array:
      return "array";
    case json::Value::Object:
      return "object";
    }
    return "value";
  }

  static std::string render(const json::Value &v) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << v;
    if (s.size() > 40)
      s = s.substr(0, 37) + "...";
    return s;
  }

private:
  llvm::StringRef text;
  const json::Object &obj;
  ImportDiagnostic &diag;
  const std::map<std::string, std::string> *origin;
};

} // namespace tshape::hf

#endif // TSHAPE_LIB_INTEROP_HFREADER_H
