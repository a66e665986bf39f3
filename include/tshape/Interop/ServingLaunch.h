//===- ServingLaunch.h - The serving engines' launch commands ---*- C++ -*-===//
//
// One writer per engine for a serving configuration (cost::ServingConfig
// and the workload's context length): `vllm serve`, SGLang's
// `python3 -m sglang.launch_server`, and `trtllm-serve` with its
// extra_llm_api_options YAML. Each engine's own flags are encoded as a
// table (CliFlags.h: name, kind, choices, where the engine declares it),
// with the start-up rules that concern a layout, each citing the file
// and commit it encodes (docs/serving.md#launch-commands); every command
// written is checked against them, and a layout the engine cannot say is
// refused with the reason. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_INTEROP_SERVINGLAUNCH_H
#define TSHAPE_INTEROP_SERVINGLAUNCH_H

#include "tshape/Cost/Serving.h"
#include "tshape/Interop/CliFlags.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>
#include <vector>

namespace tshape {

/// The engine versions the tables encode.
inline constexpr const char *kVllmCommit =
    "002f10e0cfa1373a19a0d2756598a34b700d20e5";
inline constexpr const char *kSglangCommit =
    "001067fffe33427bee0ed2f007fb7551a1d76b44";
inline constexpr const char *kTrtllmServeCommit =
    "00209af149e7774406881a37283dce303571eb11";

/// The flags tshape may write for `e`, as its parser declares them.
llvm::ArrayRef<CliFlag> servingFlags(cost::Engine e);

/// A launch: the command line (program, model, flags), the flags alone,
/// for TensorRT-LLM the YAML of --extra_llm_api_options, and the notes.
struct ServingLaunch {
  std::string command;
  std::string arguments;
  std::string optionsYaml; ///< TensorRT-LLM's, else empty
  std::vector<std::string> notes;
};

/// Why `cfg.engine` cannot run `cfg` as priced (a layout or precision it
/// cannot say, speculative decoding not written yet), or nullopt. The
/// serving search skips what its engine cannot launch.
std::optional<std::string> launchRefusal(const cost::ServingConfig &cfg);

/// The launch of `cfg` (its estimate `est`: the limits in effect) for a
/// context of `contextTokens` tokens, serving `model` (a Hugging Face id
/// or a local directory); nullopt with `error` when the engine cannot say
/// the layout or the precision, or the line breaks the engine's rules.
std::optional<ServingLaunch>
servingLaunch(const cost::ServingConfig &cfg, const cost::ServingEstimate &est,
              const std::string &model, int64_t contextTokens,
              std::string &error);

/// Everything `e` would reject at start-up in the flags `arguments` (and
/// TensorRT-LLM's options `yaml`): the parse against the table, then
/// each rule, as "rule ID (file @ commit): what". Empty: it starts.
std::vector<std::string> validateServingLaunch(cost::Engine e,
                                               llvm::StringRef arguments,
                                               llvm::StringRef yaml = "");

} // namespace tshape

#endif // TSHAPE_INTEROP_SERVINGLAUNCH_H
