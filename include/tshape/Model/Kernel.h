//===- Kernel.h - One kernel of a model: GEMM, attention, collective -*- C++ -*-===//
//
// What the blocks emit (Blocks/Block.h): a kernel is a GEMM (Gemm.h), a
// fused attention, a collective, a memory-bound elementwise kernel, a
// chunked scan or a top-k selection, each with its role, its layer and its
// sizes as values and as expressions over named parameters (DimExpr.h).
// The lowering emits them and stamps them on the IR; the analysis, the
// search and tshape-predict price them with one function
// (Cost/PredictKernel.h, predictKernel), whose estimate carries what every
// kind fills (its fixed cost, bound, bytes by kind), so that the serving
// and step models read kernels without naming a kind. A new kind joins
// here and in the price; the dialect's provenance attributes, the analysis
// records and the measured-row readers still switch on kinds
// (docs/architecture.md).
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_MODEL_KERNEL_H
#define TSHAPE_MODEL_KERNEL_H

#include "tshape/Model/Gemm.h"
#include "tshape/Support/DType.h"

#include <array>
#include <variant>

namespace tshape::model {

enum class KernelKind : uint8_t {
  Gemm,
  Attention,
  Collective,
  Elementwise,
  Scan,
  TopK
};
/// "gemm", "attention", "collective", "elementwise", "scan", "top_k".
const char *kernelKindName(KernelKind k);

/// A fused attention kernel (FlashAttention) on one rank: `batch`
/// sequences, `heads` query heads sharing `kvHeads` key/value heads, each of
/// `queryLen` queries over `kvLen` keys, with query/key head dim `headDim`
/// and value head dim `valueHeadDim`, causal or not, with a sliding window
/// of `window` keys (0: none).
struct AttentionSpec {
  Role role = Role::Attention;
  int64_t layer = -1;
  Dim batch, heads, kvHeads, headDim, valueHeadDim, queryLen, kvLen, window;
  bool causal = true;
  /// The window is aligned chunks of `window` keys (Llama 4), not a band
  /// sliding with the query.
  bool chunked = false;
  /// The query heads of one key/value head run as the rows of one product
  /// (a decode kernel's GQA grouping): the GEMMs are over batch x kvHeads
  /// with M = heads/kvHeads x queryLen, instead of over batch x heads with
  /// the key/value heads broadcast.
  bool grouped = false;
  /// The KV cache's element type when it differs from the model's (an fp8
  /// cache); what the decode model reads the cache in.
  std::optional<DType> cacheDType;
  /// The values are the first valueHeadDim elements of each key (absorbed
  /// MLA decode: one latent cache serves as both): the cache holds and a
  /// step reads the keys only.
  bool valuesInKeys = false;
  /// The keys are not the queries' own: each of the queryLen queries sees
  /// all kvLen keys, none of which is a query's token and none of which it
  /// writes to the cache (MLA's context attention of a prefill chunk over
  /// the cached tokens' up-projected keys and values, vLLM's
  /// _compute_prefill_context; not causal). Otherwise a kv length beyond
  /// the queries is that many cached keys before them.
  bool cross = false;
  /// The kernel's backward (FlashAttention's dQ/dK/dV kernel) rather than
  /// its forward: a training step's gradient of this attention. It computes
  /// the gradient products of the forward's score and value GEMMs
  /// (passGemms) and recomputes the scores, priced as the forward times
  /// the target's attentionBackwardFactor (Cost/PredictKernel.h).
  bool backward = false;
  Bindings env;
  bool overflow = false;

  /// The score and value products of the forward, as the batched GEMMs of the
  /// unfused form (over batch x heads, or batch x kvHeads when grouped):
  /// what the lowering emits in linalg and what a training step
  /// differentiates. Roles attn_score and attn_value. With a window W
  /// shorter than the queries (banded()), per block of W queries over the
  /// keys that block can see: W + W for a sliding window (capped at the
  /// kv length), W for a chunk (docs/lowering.md#windows).
  std::vector<GemmSpec> gemms() const;
  /// Whether the window bands the work: a window shorter than the query
  /// length (a prefill or training step; a decode step's window caps
  /// kvLen instead).
  bool banded() const {
    return window.value > 0 && !grouped && queryLen.value > window.value;
  }
  /// The GEMMs this kernel's pass computes: the forward's score and value
  /// products (gemms()), or for a backward their gradients in the order a
  /// backward computes them: dP and dV of the value product, then dQ and
  /// dK of the scores (backwardGemms). The first is the one the lowering
  /// stamps with the kernel.
  std::vector<GemmSpec> passGemms() const;
  /// The FLOPs of passGemms (no mask; a backward's recomputed scores are
  /// not counted), or nullopt on overflow.
  std::optional<int64_t> flops() const;
  /// Each size with its name, in a fixed order.
  std::vector<std::pair<const char *, Dim *>> dims();
  /// The same kernel with the parameters of `env`: every size evaluated
  /// again (0 where it has no value).
  void rebind(const Bindings &env);
};

enum class CollectiveOp : uint8_t {
  AllReduce,
  ReduceScatter,
  AllGather,
  AllToAll,
  SendRecv
};
/// "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "send_recv".
const char *collectiveName(CollectiveOp op);
std::optional<CollectiveOp> parseCollective(std::string_view name);

/// Where a collective's ranks talk: within a node (NVLink, NVSwitch) or
/// across nodes (InfiniBand, RoCE).
enum class Tier : uint8_t { Node, Network };
const char *tierName(Tier t);

/// A collective of `bytes` bytes per rank over `ranks` ranks of one tier.
struct CollectiveSpec {
  Role role = Role::Collective;
  int64_t layer = -1;
  CollectiveOp op = CollectiveOp::AllReduce;
  Dim bytes, ranks;
  Tier tier = Tier::Node;
  Bindings env;
  bool overflow = false;
  /// A collective of the backward pass (a tensor-parallel region's input
  /// gradient, Role::TpEnter), not the forward's.
  bool backward = false;
};

/// A memory-bound elementwise kernel run `count` times: each launch reads
/// and writes `tensors` tensors of `rows` x `width` elements in the model's
/// element type, plus `rowExtraBytes` bytes per row (fp32 statistics). MLA's
/// merge of two partial attention outputs by their log-sum-exp (vLLM's
/// merge_attn_states: reads both outputs and their LSEs, writes one).
struct ElementwiseSpec {
  Role role = Role::MlaMerge;
  int64_t layer = -1;
  Dim rows, width;
  int64_t count = 1;
  int64_t tensors = 1;
  double rowExtraBytes = 0;
  Bindings env;
  bool overflow = false;

  /// Bytes moved over all launches with `elementBytes` per element.
  double bytes(double elementBytes) const {
    return double(count) * double(rows.value) *
           (double(tensors) * double(width.value) * elementBytes +
            rowExtraBytes);
  }
};

/// A chunked linear recurrence over each sequence (Mamba-2's SSD scan, a
/// gated DeltaNet's or KDA's chunked delta rule): over `batch` sequences
/// and `heads` heads, `length` tokens in chunks of `chunk`, each head
/// carrying a state of keyDim x valueDim (Mamba-2: d_state x head_dim)
/// in fp32 from chunk to chunk. Per head and chunk of Q tokens it computes
/// the chunk's causal products (Q x Q over the keys, then over the values:
/// 2 Q^2 (keyDim + valueDim) FLOPs), the chunk's state from its keys and
/// values and the outputs from the incoming state (4 Q keyDim valueDim);
/// a decode step (length 1) is one state update. It reads the tokens'
/// keys, queries and values and writes their outputs in the model's
/// element type (2 keyDim + 2 valueDim a token and head) and reads and
/// writes the state once a chunk. The backward computes the gradients of
/// both operands of every product: twice the FLOPs and the bytes.
struct ScanSpec {
  Role role = Role::Scan;
  int64_t layer = -1;
  Dim batch, heads, length, chunk, keyDim, valueDim;
  bool backward = false;
  Bindings env;
  bool overflow = false;

  /// The chunks of one sequence: ceil(length / chunk).
  int64_t chunks() const;
  /// FLOPs over all sequences and heads; nullopt on overflow.
  std::optional<int64_t> flops() const;
  /// Bytes read and written over all sequences and heads, the tokens'
  /// at `elementBytes` an element, the state in fp32.
  double bytes(double elementBytes) const;
  /// Of them, the fp32 state's: written and read once a chunk (a decode
  /// step: the sequence's state read and written back).
  double stateBytes() const;
};

/// A top-k selection (a sparse attention's indexer: DeepSeek Sparse
/// Attention keeps, for each query, the `k` keys of highest index score):
/// in each of `batch` sequences, `rows` queries each choose min(k, visible)
/// of their scores over the `length` keys, causal (query i of the last
/// `rows` sees length - rows + 1 + i keys) unless `causal` is false. It
/// reads the fp32 scores and writes int32 indices; no tensor-core FLOPs, no
/// backward (the selection passes no gradient).
struct TopKSpec {
  Role role = Role::IndexerTopK;
  int64_t layer = -1;
  Dim batch, rows, length, k;
  bool causal = true;
  Bindings env;
  bool overflow = false;

  /// The scores it reads over all sequences (each query's visible keys).
  double scores() const;
  /// The indices it writes over all sequences.
  double selected() const;
  /// Bytes read and written: 4 a score, 4 an index.
  double bytes() const { return 4 * (scores() + selected()); }
};

/// A kernel as named fields, for a reader and writer that know no kind
/// (lowered IR's `tshape.kernels`): its kind, role, layer and bindings, its
/// sizes (dims(): each an expression over the bindings), its words (a
/// collective's op and tier) and its flags (backward, causal).
struct KernelFields {
  KernelKind kind = KernelKind::Gemm;
  Role role = Role::Collective;
  int64_t layer = -1;
  Bindings env;
  std::vector<std::pair<std::string, DimExpr>> sizes;
  std::vector<std::pair<std::string, std::string>> words;
  std::vector<std::pair<std::string, bool>> flags;
};

/// The kind named `name` (kernelKindName), if any.
std::optional<KernelKind> parseKernelKind(std::string_view name);

/// One kernel: exactly one of the six.
class Kernel {
public:
  Kernel(GemmSpec g) : body(std::move(g)) {}
  Kernel(AttentionSpec a) : body(std::move(a)) {}
  Kernel(CollectiveSpec c) : body(std::move(c)) {}
  Kernel(ElementwiseSpec e) : body(std::move(e)) {}
  Kernel(ScanSpec s) : body(std::move(s)) {}
  Kernel(TopKSpec t) : body(std::move(t)) {}

  KernelKind kind() const { return KernelKind(body.index()); }
  const GemmSpec *gemm() const { return std::get_if<GemmSpec>(&body); }
  const AttentionSpec *attention() const {
    return std::get_if<AttentionSpec>(&body);
  }
  const CollectiveSpec *collective() const {
    return std::get_if<CollectiveSpec>(&body);
  }
  const ElementwiseSpec *elementwise() const {
    return std::get_if<ElementwiseSpec>(&body);
  }
  const ScanSpec *scan() const { return std::get_if<ScanSpec>(&body); }
  const TopKSpec *topK() const { return std::get_if<TopKSpec>(&body); }
  GemmSpec *gemm() { return std::get_if<GemmSpec>(&body); }
  AttentionSpec *attention() { return std::get_if<AttentionSpec>(&body); }

  Role role() const;
  int64_t layer() const;
  /// A training step's gradient kernel (a GEMM's gradient, an attention's
  /// or a scan's backward) rather than a forward one.
  bool backward() const;
  /// The GEMM's name (gemmName), else the role's.
  std::string name() const;
  const Bindings &env() const;
  /// Each size with its name ("batch", "m", ...), in a fixed order per
  /// kind: what the consistency test compares and reports print. Copies, so
  /// that a temporary kernel's sizes outlive it.
  std::vector<std::pair<const char *, Dim>> dims() const;
  /// Its sizes as a report's four columns, batch x M x N x K: a GEMM's own;
  /// an attention's score GEMM's; an elementwise kernel's launches, rows
  /// and width; a scan's sequences x heads, length, value and key dims; a
  /// collective's ranks and bytes (in N); a top-k's sequences, queries,
  /// keys and k.
  std::array<int64_t, 4> columns() const;
  /// Whether it is causal: a causal attention or top-k selection.
  bool causal() const;
  /// The same kernel with the parameters of `env`: a GEMM's and an
  /// attention's sizes evaluated again (AttentionSpec::rebind); the other
  /// kinds, which no finding re-sizes, kept as they are.
  void rebind(const Bindings &env);
  /// Whether lowering to linalg emits an op that stands for it (a GEMM,
  /// a fused attention's GEMMs, an elementwise kernel such as MLA's merge).
  /// The others (a collective, a scan, a top-k) no single-rank op computes
  /// yet: the lowering carries them as `tshape.kernels` on their block's
  /// result (fields()), so the analysis of lowered IR reads them back.
  bool hasOp() const;
  /// Its fields (KernelFields), for a kind without an op (hasOp false).
  KernelFields fields() const;
  /// The kernel `f` describes, its sizes evaluated over `f.env`; nullopt
  /// with `error` set when a size, word or flag is missing or malformed,
  /// or when the kind has an op of its own (hasOp).
  static std::optional<Kernel> fromFields(const KernelFields &f,
                                          std::string &error);
  /// The GEMMs lowered IR runs it as, when it runs as several: a fused
  /// attention's (AttentionSpec::passGemms: its scores, then its values,
  /// each a linalg op the analysis reads back as a part of this kernel);
  /// empty for every kernel lowered as one op or not lowered.
  std::vector<GemmSpec> parts() const;
  /// The model FLOPs it computes (a GEMM's, an attention's, a scan's; 0
  /// for the memory-bound and communication kinds); nullopt on overflow.
  std::optional<int64_t> flops() const;
  /// The key and value elements per token of this rank that a
  /// context-parallel ring exchanges for it: an attention's kv heads x
  /// (key head dim + value head dim), 0 for every other kernel.
  int64_t ringElementsPerToken() const;

private:
  std::variant<GemmSpec, AttentionSpec, CollectiveSpec, ElementwiseSpec,
               ScanSpec, TopKSpec>
      body;
};

/// The kernels of `kernels` that are GEMMs, in order.
std::vector<GemmSpec> gemmsOf(const std::vector<Kernel> &kernels);

/// The kernels that compute the gradients of `forward` (in reverse order of
/// the forward): each GEMM's two gradient GEMMs (backwardGemms), for a
/// fused attention its backward kernel (AttentionSpec::backward), for a
/// scan its backward (ScanSpec::backward), for an all-to-all the same
/// exchange back.
std::vector<Kernel> backwardKernels(const std::vector<Kernel> &forward);

} // namespace tshape::model

#endif // TSHAPE_MODEL_KERNEL_H
