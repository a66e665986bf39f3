//===- Parallelism.cpp - Parallel degrees and per-rank sizes --------------===//

#include "tshape/Model/Parallelism.h"

using namespace tshape::model;

DimExpr tshape::model::perRank(Param p, const DimExpr &global) {
  std::optional<Param> by = paramInfo(p).splitBy;
  if (!by)
    return global;
  DimExpr share = global / DimExpr::param(*by);
  if (p == Param::KvHeads)
    return DimExpr::max(DimExpr::constant(1), share);
  return share;
}

DimExpr tshape::model::tokensPerRank() {
  return DimExpr::param(Param::Microbatch) * DimExpr::param(Param::Seq);
}
