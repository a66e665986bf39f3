//===- Gemm.cpp - One GEMM of a model -------------------------------------===//

#include "tshape/Model/Gemm.h"

using namespace tshape::model;

namespace {
// Which recompute modules run a role's forward kernels again (Recompute.h).
constexpr RecomputeModules kCore = RecomputeModules(RecomputeModule::CoreAttn),
                           kMlp = RecomputeModules(RecomputeModule::Mlp),
                           kMoe = RecomputeModules(RecomputeModule::Moe),
                           kShared = RecomputeModules(RecomputeModule::Moe) |
                                     RecomputeModules(
                                         RecomputeModule::SharedExperts),
                           kMlaUp =
                               RecomputeModules(RecomputeModule::MlaUpProj);

const RoleInfo kRoles[] = {
    {Role::Qkv, "qkv", RoleGroup::Attention, true, "dgrad", "wgrad"},
    {Role::AttnScore, "attn_score", RoleGroup::Attention, false, "dq", "dk",
     true, false, kCore},
    {Role::AttnValue, "attn_value", RoleGroup::Attention, false, "dp", "dv",
     true, false, kCore},
    {Role::AttnOut, "attn_out", RoleGroup::Attention, true, "dgrad", "wgrad"},
    {Role::MlpGate, "mlp_gate", RoleGroup::Mlp, true, "dgrad", "wgrad", false,
     false, kMlp},
    {Role::MlpUp, "mlp_up", RoleGroup::Mlp, true, "dgrad", "wgrad", false,
     false, kMlp},
    {Role::MlpGateUp, "mlp_gate_up", RoleGroup::Mlp, true, "dgrad", "wgrad", false,
     false, kMlp},
    {Role::MlpDown, "mlp_down", RoleGroup::Mlp, true, "dgrad", "wgrad", false,
     false, kMlp},
    {Role::Logits, "logits", RoleGroup::Logits, true, "dgrad", "wgrad", false,
     true},
    {Role::Attention, "attention", RoleGroup::Attention, false, "dq", "dkv",
     true, false, kCore},
    {Role::Collective, "collective", RoleGroup::Communication, false, "", ""},
    {Role::MoeRouter, "moe_router", RoleGroup::Mlp, true, "dgrad", "wgrad",
     false, true, kMoe},
    {Role::MoeExpertGate, "moe_expert_gate", RoleGroup::Mlp, true, "dgrad",
     "wgrad", false, false, kMoe},
    {Role::MoeExpertUp, "moe_expert_up", RoleGroup::Mlp, true, "dgrad",
     "wgrad", false, false, kMoe},
    {Role::MoeExpertGateUp, "moe_expert_gate_up", RoleGroup::Mlp, true,
     "dgrad", "wgrad", false, false, kMoe},
    {Role::MoeExpertDown, "moe_expert_down", RoleGroup::Mlp, true, "dgrad",
     "wgrad", false, false, kMoe},
    {Role::MoeSharedGate, "moe_shared_gate", RoleGroup::Mlp, true, "dgrad",
     "wgrad", false, false, kShared},
    {Role::MoeSharedGateUp, "moe_shared_gate_up", RoleGroup::Mlp, true,
     "dgrad", "wgrad", false, false, kShared},
    {Role::MoeSharedUp, "moe_shared_up", RoleGroup::Mlp, true, "dgrad",
     "wgrad", false, false, kShared},
    {Role::MoeSharedDown, "moe_shared_down", RoleGroup::Mlp, true, "dgrad",
     "wgrad", false, false, kShared},
    {Role::MoeDispatch, "moe_dispatch", RoleGroup::Communication, false, "",
     ""},
    {Role::MoeCombine, "moe_combine", RoleGroup::Communication, false, "", ""},
    {Role::MlaQ, "mla_q", RoleGroup::Attention, true, "dgrad", "wgrad"},
    {Role::MlaQDown, "mla_q_down", RoleGroup::Attention, true, "dgrad",
     "wgrad"},
    {Role::MlaQUp, "mla_q_up", RoleGroup::Attention, true, "dgrad", "wgrad", false, false, kMlaUp},
    {Role::MlaKvDown, "mla_kv_down", RoleGroup::Attention, true, "dgrad",
     "wgrad"},
    {Role::MlaKvUp, "mla_kv_up", RoleGroup::Attention, true, "dgrad",
     "wgrad", false, false, kMlaUp},
    {Role::MlaQAbsorb, "mla_q_absorb", RoleGroup::Attention, true, "dgrad",
     "wgrad", false, true},
    {Role::MlaOutAbsorb, "mla_out_absorb", RoleGroup::Attention, true, "dgrad",
     "wgrad", false, true},
    {Role::MlaContextUp, "mla_context_up", RoleGroup::Attention, true,
     "dgrad", "wgrad"},
    {Role::MlaContextAttention, "mla_context_attention", RoleGroup::Attention,
     false, "dq", "dkv"},
    {Role::MlaMerge, "mla_merge", RoleGroup::Attention, false, "", ""},
    {Role::Scan, "scan", RoleGroup::Attention, false, "", ""},
    {Role::TpEnter, "tp_enter", RoleGroup::Communication, false, "", ""},
    {Role::TpLeave, "tp_leave", RoleGroup::Communication, false, "", ""},
    {Role::IndexerTopK, "indexer_topk", RoleGroup::Attention, false, "", ""},
};

/// The built-in roles, then the registered ones; indexed by Role.
std::vector<RoleInfo> &roleTable() {
  static std::vector<RoleInfo> table(std::begin(kRoles), std::end(kRoles));
  return table;
}
} // namespace

const RoleInfo &tshape::model::roleInfo(Role r) {
  return roleTable()[size_t(r)];
}

Role tshape::model::registerRole(RoleInfo info) {
  for (const RoleInfo &i : roleTable())
    if (std::string_view(i.name) == info.name)
      return i.role;
  info.role = Role(roleTable().size());
  roleTable().push_back(info);
  return info.role;
}

namespace {
/// The group names, indexed by RoleGroup: the built-in ones, then the
/// registered ones.
std::vector<const char *> &groupTable() {
  static std::vector<const char *> table = {"attention", "mlp", "logits",
                                            "communication"};
  return table;
}
} // namespace

const char *tshape::model::roleGroupName(RoleGroup g) {
  return groupTable()[size_t(g)];
}

std::vector<RoleGroup> tshape::model::allRoleGroups() {
  std::vector<RoleGroup> out;
  for (size_t i = 0; i < groupTable().size(); ++i)
    out.push_back(RoleGroup(i));
  return out;
}

RoleGroup tshape::model::registerRoleGroup(const char *name) {
  std::vector<const char *> &t = groupTable();
  for (size_t i = 0; i < t.size(); ++i)
    if (std::string_view(t[i]) == name)
      return RoleGroup(i);
  t.push_back(name);
  return RoleGroup(t.size() - 1);
}

std::string tshape::model::gemmName(Role r, GemmPass p) {
  const RoleInfo &i = roleInfo(r);
  switch (p) {
  case GemmPass::Forward:
    return i.name;
  case GemmPass::GradA:
    return std::string(i.name) + "_" + i.gradA;
  case GemmPass::GradB:
    return std::string(i.name) + "_" + i.gradB;
  }
  return i.name;
}

std::optional<std::pair<Role, GemmPass>>
tshape::model::parseGemmName(std::string_view name) {
  for (const RoleInfo &i : roleTable())
    for (GemmPass p : {GemmPass::Forward, GemmPass::GradA, GemmPass::GradB})
      if (name == gemmName(i.role, p))
        return std::make_pair(i.role, p);
  return std::nullopt;
}

std::vector<GemmSpec> tshape::model::backwardGemms(const GemmSpec &f) {
  // Forward C[M,N] = A[M,K] . B[K,N] (B stored [N,K] when transB).
  //  gradient of A: dA[M,K] = dC[M,N] . B^T-of-storage  -> (M, K, N)
  //  gradient of B, a weight: dW^T[K,N] = A^T . dC        -> (K, N, M)
  //  gradient of B, an activation stored [N,K] (K of the scores):
  //                    dB[N,K] = dC^T . A                 -> (N, K, M)
  //                    stored [K,N] (V of the values): dB = A^T . dC
  GemmSpec a = f, b = f;
  a.pass = GemmPass::GradA;
  a.m = f.m;
  a.n = f.k;
  a.k = f.n;
  a.transA = false;
  a.transB = !f.transB;
  b.pass = GemmPass::GradB;
  b.transA = true;
  b.transB = false;
  b.k = f.m;
  if (roleInfo(f.role).weight || !f.transB) {
    b.m = f.k;
    b.n = f.n;
  } else {
    b.m = f.n;
    b.n = f.k;
  }
  return {a, b};
}
