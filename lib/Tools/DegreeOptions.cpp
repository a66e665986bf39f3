//===- DegreeOptions.cpp - The degree and batch options, once -------------===//

#include "tshape/Tools/DegreeOptions.h"

#include <deque>

using namespace llvm;

namespace {
struct Row {
  const char *name, *help;
};
/// Each option's name and help, in DegreeOption order; the default is
/// appended per tool.
constexpr Row kRows[] = {
    {"tp", "tensor-parallel degree t (Megatron-LM's "
           "--tensor-model-parallel-size)"},
    {"pp", "pipeline-parallel degree (--pipeline-model-parallel-size); a "
           "step runs at least pp microbatches"},
    {"cp", "context-parallel degree: each rank holds s/cp tokens of every "
           "sequence (--context-parallel-size)"},
    {"vp", "virtual stages per pipeline rank; above 1 the interleaved "
           "schedule (--num-layers-per-virtual-pipeline-stage)"},
    {"ep", "expert-parallel degree of a MoE model: each rank holds E/ep "
           "experts, and each MoE layer exchanges its tokens all-to-all "
           "(--expert-model-parallel-size)"},
    {"microbatch", "sequences per microbatch b (of a prefill or a decode "
                   "step: its concurrent sequences)"},
    {"seq", "sequence length s (of a prefill: the prompt's tokens)"},
};
} // namespace

cl::opt<int64_t> &tshape::declareDegree(DegreeOption o, cl::SubCommand &sub,
                                        cl::OptionCategory &cat,
                                        int64_t init) {
  const Row &row = kRows[size_t(o)];
  // The options a tool declares at namespace scope live as long as the
  // program; so do these and their help texts (LLVM's option registry
  // points at both).
  static std::deque<std::string> helps;
  const std::string &help = helps.emplace_back(
      std::string(row.help) + " (default: " + std::to_string(init) + ")");
  return *new cl::opt<int64_t>(StringRef(row.name), cl::desc(help), cl::init(init),
                               cl::sub(sub), cl::cat(cat));
}

std::optional<std::string> tshape::checkDegrees(
    std::initializer_list<const cl::opt<int64_t> *> options) {
  for (const cl::opt<int64_t> *o : options)
    if (o->getValue() < 1)
      return "--" + o->ArgStr.str() + " must be at least 1, got " +
             std::to_string(o->getValue());
  return std::nullopt;
}
