//===- Recompute.cpp - What a selective recompute runs again --------------===//

#include "tshape/Model/Recompute.h"

using namespace tshape::model;

namespace {
// In Megatron Core's order (transformer_config.py:562).
const RecomputeModule kModules[] = {
    RecomputeModule::CoreAttn,  RecomputeModule::MoeAct,
    RecomputeModule::LayerNorm, RecomputeModule::MlaUpProj,
    RecomputeModule::Mlp,       RecomputeModule::Moe,
    RecomputeModule::SharedExperts};
} // namespace

const char *tshape::model::recomputeModuleName(RecomputeModule m) {
  switch (m) {
  case RecomputeModule::CoreAttn:
    return "core_attn";
  case RecomputeModule::LayerNorm:
    return "layernorm";
  case RecomputeModule::MlaUpProj:
    return "mla_up_proj";
  case RecomputeModule::Mlp:
    return "mlp";
  case RecomputeModule::Moe:
    return "moe";
  case RecomputeModule::MoeAct:
    return "moe_act";
  case RecomputeModule::SharedExperts:
    return "shared_experts";
  }
  return "?";
}

std::vector<RecomputeModule>
tshape::model::recomputeModuleList(RecomputeModules set) {
  std::vector<RecomputeModule> out;
  for (RecomputeModule m : kModules)
    if (recomputes(set, m))
      out.push_back(m);
  return out;
}

std::string tshape::model::recomputeModulesText(RecomputeModules set,
                                                const char *separator) {
  std::string out;
  for (RecomputeModule m : recomputeModuleList(set)) {
    if (!out.empty())
      out += separator;
    out += recomputeModuleName(m);
  }
  return out;
}

std::optional<RecomputeModules>
tshape::model::parseRecomputeModules(const std::string &list,
                                     std::string &error) {
  RecomputeModules set = 0;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos)
      end = list.size();
    const std::string name = list.substr(start, end - start);
    if (name.empty()) {
      error = "an empty name in the recompute module list '" + list +
              "' (names are separated by commas: " +
              recomputeModulesText(kAllRecomputeModules, ", ") + ")";
      return std::nullopt;
    }
    bool known = false;
    for (RecomputeModule m : kModules)
      if (name == recomputeModuleName(m)) {
        set |= RecomputeModules(m);
        known = true;
      }
    if (!known) {
      error = "unknown recompute module '" + name + "' (" +
              recomputeModulesText(kAllRecomputeModules, ", ") + ")";
      return std::nullopt;
    }
    start = end + 1;
  }
  return set;
}
