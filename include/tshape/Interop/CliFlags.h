//===- CliFlags.h - A command line's flags, encoded as data ------*- C++ -*-===//
//
// The command lines tshape writes for other systems (Megatron-LM's
// pretrain_gpt.py, vLLM's `vllm serve`, SGLang's launch_server,
// TensorRT-LLM's trtllm-serve) are checked against those systems' own
// parsers, encoded as tables of flags: name, kind, choices, where the
// system declares it. One parse of a line against any such table, as
// argparse (or click) would: unknown flags, missing values, values of the
// wrong kind or outside the choices, a flag given twice. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_INTEROP_CLIFLAGS_H
#define TSHAPE_INTEROP_CLIFLAGS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tshape {

/// One flag as a system's parser declares it.
struct CliFlag {
  enum Kind {
    Switch,  ///< store_true / store_false: takes no value
    Int,     ///< type=int
    Float,   ///< type=float
    String,  ///< type=str, free
    Choice,  ///< one of `choices`
    IntPair, ///< tuple_type: "L,R" or "(L,R)"
    Pattern, ///< moe_freq_type / no_rope_freq_type: an int or a list expression
  };
  const char *name;
  Kind kind;
  const char *choices; ///< comma-separated, for Choice
  bool many;           ///< nargs='+'
  const char *definedAt; ///< the declaring file and line, or the field
};

/// A parsed argument line: each flag with its values.
struct CliArgs {
  std::map<std::string, std::vector<std::string>> flags;
  bool has(llvm::StringRef name) const;
  /// The flag's (first) value as an integer; nullopt when absent.
  std::optional<int64_t> integer(llvm::StringRef name) const;
  /// The flag's (first) value as a number; nullopt when absent.
  std::optional<double> number(llvm::StringRef name) const;
  /// The flag's (first) value; "" when absent.
  std::string text(llvm::StringRef name) const;
};

/// The words of `line`: blank-separated, a double-quoted word kept whole
/// (without its quotes).
std::vector<std::string> splitWords(llvm::StringRef line);

/// Parses `line` against the table `find` looks flags up in, as argparse
/// would (a flag known by its whole name only): an unknown flag, a
/// missing value, a value of the wrong kind or outside its choices, a flag
/// given twice, each appended to `problems`.
CliArgs parseCliArguments(
    llvm::StringRef line,
    llvm::function_ref<const CliFlag *(llvm::StringRef)> find,
    std::vector<std::string> &problems);

} // namespace tshape

#endif // TSHAPE_INTEROP_CLIFLAGS_H
