//===- MegatronArgs.h - Megatron-LM's command line, encoded ------*- C++ -*-===//
//
// Megatron-LM's own rules for a pretrain_gpt.py command line, as data: the
// flags tshape may write (name, kind, choices, where Megatron-LM declares
// it) and the start-up checks of validate_args and TransformerConfig's
// __post_init__ that concern a model's architecture and a training plan,
// each citing the line it encodes. Every command tshape writes is checked
// against them (megatronLaunch), and the tests run every family and plan
// kind through the check. Encoded from Megatron-LM at kMegatronCommit
// (docs/megatron.md). Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_INTEROP_MEGATRONARGS_H
#define TSHAPE_INTEROP_MEGATRONARGS_H

#include "tshape/Interop/CliFlags.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tshape {

/// The Megatron-LM commit (main, 2026-08-22) the table and rules encode.
inline constexpr const char *kMegatronCommit =
    "d98e8a64ddf34856e74b24714e3bedb2f5a39553";

/// One flag as Megatron-LM's parser declares it (CliFlags.h).
using MegatronFlag = CliFlag;

/// Every flag the table knows, in the order of Megatron-LM's parser.
llvm::ArrayRef<MegatronFlag> megatronFlags();
/// The row of `name` ("--num-layers"), or nullptr.
const MegatronFlag *findMegatronFlag(llvm::StringRef name);

/// A parsed pretrain_gpt.py argument line (CliFlags.h).
using MegatronArgs = CliArgs;

/// Parses `line` (flags and values separated by blanks, a value may be
/// double-quoted) against the table as argparse would: an unknown flag, a
/// missing value, a value of the wrong kind or outside its choices, a flag
/// given twice, each appended to `problems`.
MegatronArgs parseMegatronArguments(llvm::StringRef line,
                                    std::vector<std::string> &problems);

/// The launch's facts the argument line does not hold.
struct MegatronLaunchContext {
  int64_t worldSize = 0;          ///< GPUs; 0: the batch rule is not checked
  bool deviceMaxConnections1 = false; ///< CUDA_DEVICE_MAX_CONNECTIONS=1 set
  bool blackwell = false;         ///< compute capability 10 or later
};

/// Everything Megatron-LM would reject at start-up in `line`: the parse
/// (parseMegatronArguments), then each encoded rule that the line breaks,
/// as "rule ID (file:line): what, and what to change". Empty: the line
/// starts.
std::vector<std::string>
validateMegatronArguments(llvm::StringRef line,
                          const MegatronLaunchContext &context = {});

} // namespace tshape

#endif // TSHAPE_INTEROP_MEGATRONARGS_H
