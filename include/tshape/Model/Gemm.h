//===- Gemm.h - One GEMM of a model, with where its sizes came from -*- C++ -*-===//
//
// A GEMM of the model: its role (an enum with a group), the pass (forward,
// or the gradient of its A or B operand), its layer, its batch, M, N and K
// as values and as expressions over named parameters (DimExpr.h), and its
// operand layouts. The block models (Model/Blocks) are the only place
// that defines these; the lowering emits them, and the analysis reads the
// expressions back to trace a loss to a hyperparameter.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_MODEL_GEMM_H
#define TSHAPE_MODEL_GEMM_H

#include "tshape/Model/DimExpr.h"
#include "tshape/Model/Recompute.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tshape::model {

/// What a GEMM computes in the model.
enum class Role : uint8_t {
  Qkv,       ///< fused query/key/value projection
  AttnScore, ///< Q . K^T per head
  AttnValue, ///< P . V per head
  AttnOut,   ///< attention output projection
  MlpGate,   ///< gate projection of a gated MLP
  MlpUp,     ///< up projection
  MlpGateUp, ///< gate and up projections as one GEMM (a fused layout)
  MlpDown,   ///< down projection
  Logits,    ///< LM head
  Attention, ///< a fused attention kernel (scores, softmax and values)
  Collective, ///< a collective of the parallel layout
  MoeRouter,       ///< router logits of a mixture of experts
  MoeExpertGate,   ///< routed experts' gate projections (grouped)
  MoeExpertUp,     ///< routed experts' up projections (grouped)
  MoeExpertGateUp, ///< both as one grouped GEMM (a fused layout)
  MoeExpertDown,   ///< routed experts' down projections (grouped)
  MoeSharedGate,   ///< shared experts' gate projection
  MoeSharedGateUp, ///< shared experts' gate and up as one GEMM (fused layout)
  MoeSharedUp,     ///< shared experts' up projection
  MoeSharedDown,   ///< shared experts' down projection
  MoeDispatch,     ///< all-to-all sending tokens to their experts' ranks
  MoeCombine,      ///< all-to-all bringing the experts' outputs back
  MlaQ,         ///< MLA query projection without a query latent (h -> a(dn+dr))
  MlaQDown,     ///< MLA query down projection (h -> r_q)
  MlaQUp,       ///< MLA query up projection (r_q -> a(dn+dr))
  MlaKvDown,    ///< MLA key/value down projection (h -> r_kv + dr)
  MlaKvUp,      ///< MLA key/value up projection (r_kv -> a(dn+dv))
  MlaQAbsorb,   ///< decode: each head's query through W_UK (dn -> r_kv)
  MlaOutAbsorb, ///< decode: each head's latent output through W_UV (r_kv -> dv)
  MlaContextUp, ///< prefill over a cache: the cached latents through kv_up (r_kv -> a(dn+dv))
  MlaContextAttention, ///< prefill over a cache: the chunk's queries over the context
  MlaMerge,     ///< prefill over a cache: the two partial outputs merged by LSE
  Scan,         ///< a chunked linear recurrence (ScanSpec)
  /// Where a tensor-parallel region begins (Megatron-LM's f: nothing
  /// forward, the input gradient's all-reduce backward; all-gather forward
  /// and reduce-scatter backward under sequence parallelism) and where it
  /// ends (g: the all-reduce of the partial outputs forward, nothing
  /// backward; reduce-scatter forward and all-gather backward under
  /// sequence parallelism). Blocks/Block.h, tpCollectives.
  TpEnter,
  TpLeave,
  IndexerTopK, ///< a sparse attention's top-k over its indexer's scores
};
/// Where a role's time is booked in "where the time goes": the built-in
/// groups, then the ones blocks register (registerRoleGroup: a recurrent
/// layer's, an indexer's). Communication is booked with what no group
/// holds ("other").
enum class RoleGroup : uint8_t { Attention, Mlp, Logits, Communication };

/// Forward, or the gradient with respect to the A or the B operand.
enum class GemmPass : uint8_t { Forward, GradA, GradB };

struct RoleInfo {
  Role role;
  const char *name;
  RoleGroup group;
  /// B is a weight (Y = X . W^T, W stored [N, K]); its gradients are named
  /// _dgrad/_wgrad, and the weight gradient is computed as X^T . dY.
  bool weight;
  /// Names of the two gradients ("dgrad"/"wgrad", "dq"/"dk", "dp"/"dv").
  const char *gradA, *gradB;
  /// The attention core (its score and value products, or the fused kernel
  /// of both): what selective recompute runs again (Korthikanti et al.
  /// 2022) and what a context-parallel ring runs in cp blocks of s/cp
  /// queries against the whole sequence's keys.
  bool core = false;
  /// A weight GEMM the frameworks keep in the model's element type under
  /// a low-precision run (Megatron-LM's output layer and router are not
  /// Transformer Engine linear layers; vLLM leaves its LM head, routers and
  /// absorbed MLA's per-head products unquantized). Every other weight GEMM
  /// runs at the run's precision (quantized).
  bool keepsModelType = false;
  /// The selective recompute modules whose recompute runs this role's
  /// forward kernels again (Recompute.h): the attention core's under
  /// core_attn, the dense MLP's under mlp, the routed experts' and the
  /// router under moe, the shared experts' under moe or shared_experts,
  /// MLA's up projections under mla_up_proj.
  RecomputeModules recomputedBy = 0;
  /// Whether a GEMM of this role runs at a low-precision run's precision.
  bool quantized() const { return weight && !keepsModelType; }
};
const RoleInfo &roleInfo(Role r);
/// "attention", "mlp", "logits", "communication", or a registered name.
const char *roleGroupName(RoleGroup g);
/// Every group: the built-in ones, then the registered ones.
std::vector<RoleGroup> allRoleGroups();
/// Adds a group (a block defined outside this library, or a family's);
/// returns it, or the existing one of that name. Call at start-up.
RoleGroup registerRoleGroup(const char *name);
/// Adds a role for a block defined outside this library (a test block, an
/// out-of-tree block); `info.role` is ignored. Returns the new role, or the
/// existing one of that name. Call at start-up, before any use.
Role registerRole(RoleInfo info);

/// A GEMM's full name: the role, with "_<grad>" for a backward pass.
std::string gemmName(Role r, GemmPass p);
/// Parses a name of gemmName; nullopt when it is none.
std::optional<std::pair<Role, GemmPass>> parseGemmName(std::string_view name);

/// One size: its value and the expression it was computed from.
struct Dim {
  int64_t value = 1;
  DimExpr expr;
};

/// One GEMM: batch x (M x K) . (K x N).
struct GemmSpec {
  Role role = Role::Qkv;
  GemmPass pass = GemmPass::Forward;
  int64_t layer = -1; ///< -1 for once-per-model GEMMs (logits)
  Dim batch, m, n, k;
  bool transA = false; ///< A is stored K x M
  bool transB = false; ///< B is stored N x K (nn.Linear weights)
  /// The values of every parameter the expressions use.
  Bindings env;
  /// A size overflowed int64 (its value is then 0).
  bool overflow = false;
  /// Forward: A is the x of the GEMM before it, a gated pair's up
  /// projection (the frameworks' fused gate/up layer casts x once for both:
  /// cost::gemmProblem).
  bool inputShared = false;

  std::string name() const { return gemmName(role, pass); }
  RoleGroup group() const { return roleInfo(role).group; }
  /// 2 * batch * m * n * k, or nullopt on overflow.
  std::optional<int64_t> flops() const;
};

/// The gradient GEMMs of a forward GEMM, in the order they run.
std::vector<GemmSpec> backwardGemms(const GemmSpec &forward);

} // namespace tshape::model

#endif // TSHAPE_MODEL_GEMM_H
