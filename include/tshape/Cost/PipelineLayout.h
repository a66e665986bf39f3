//===- PipelineLayout.h - Megatron-LM's pipeline layout string --*- C++ -*-===//
//
// Megatron-LM's --pipeline-model-parallel-layout (megatron/core/transformer/
// pipeline_parallel_layer_layout.py at the commit MegatronArgs.h names):
// the model chunks of pp x v pipeline stages in order, each a run of
// symbols, E the embedding, t a decoder layer, m an MTP layer, L the loss;
// stages split by '|', 'x*n' and '(...)*n' repeat, commas are cosmetic.
// Chunk j runs on pipeline rank j % pp as its virtual stage j / pp. How
// Megatron-Bridge lays out DeepSeek-V3's 61 layers: "Etttt|(tttt|)*14tmL".
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_COST_PIPELINELAYOUT_H
#define TSHAPE_COST_PIPELINELAYOUT_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tshape::cost {

struct PipelineLayout {
  std::string text;                ///< as given (the command writes it)
  std::vector<std::string> chunks; ///< unrolled: "Etttt", "tttt", ..., "tmL"

  /// Model chunks per pipeline rank for `pp` ranks.
  int64_t virtualStages(int64_t pp) const;
  /// Decoder layers ('t') of chunk j.
  int64_t decoderLayers(size_t chunk) const;
  /// The pipeline rank that runs the MTP layers (-1: none).
  int64_t mtpRank(int64_t pp) const;
};

/// Parses a layout string as Megatron-LM does (parse_str_to_list); an
/// unknown symbol or a repetition without a count is the error.
std::optional<PipelineLayout> parsePipelineLayout(const std::string &text,
                                                  std::string &error);

/// Megatron-LM's checks of a layout for `pp` ranks, `layers` decoder layers
/// and `mtp` MTP layers (arguments.py:944; PipelineParallelLayerLayout's
/// validate_layer_layout, pipeline_parallel_layer_layout.py:86-146): the
/// first problem, or empty.
std::string checkPipelineLayout(const PipelineLayout &layout, int64_t pp,
                                int64_t layers, int64_t mtp);

} // namespace tshape::cost

#endif // TSHAPE_COST_PIPELINELAYOUT_H
