//===- KernelRecords.cpp - One record per kernel of a program -------------===//

#include "tshape/Advise/KernelRecord.h"
#include "tshape/Model/Transformer.h"

using namespace tshape;
using namespace tshape::advise;

const model::GemmSpec *KernelRecord::spec() const {
  if (!kernel)
    return nullptr;
  if (const model::GemmSpec *g = kernel->gemm())
    return g;
  return partGemm ? &*partGemm : nullptr;
}

model::GemmSpec *KernelRecord::spec() {
  return const_cast<model::GemmSpec *>(
      static_cast<const KernelRecord *>(this)->spec());
}

bool KernelRecord::fused() const {
  return kernel && partGemm && !separate;
}

std::optional<model::RoleGroup> KernelRecord::roleGroup() const {
  if (const model::GemmSpec *g = spec())
    return g->group();
  if (kernel)
    return model::roleInfo(kernel->role()).group;
  return std::nullopt;
}

std::string KernelRecord::group() const {
  std::optional<model::RoleGroup> g = roleGroup();
  return g && *g != model::RoleGroup::Communication
             ? model::roleGroupName(*g)
             : "other";
}

double KernelRecord::flops() const {
  if (fused())
    return part == 0 ? estimate.attention.flops : 0;
  return estimate.flops;
}

namespace {
/// The record of `kernel`, or of its part `part` whose GEMM is `partGemm`.
KernelRecord make(const model::Kernel &kernel,
                  std::optional<model::GemmSpec> partGemm, int part,
                  model::DType dtype, const std::string &location,
                  const model::RunShape *run) {
  KernelRecord r = KernelRecord::bare(kernel, std::move(partGemm), part);
  r.location = location;
  if (run)
    r.run = *run;
  if (const model::GemmSpec *g = r.spec()) {
    r.name = g->name();
    r.layer = g->layer;
    r.problem = cost::gemmProblem(*g, dtype);
    return r;
  }
  r.name = kernel.name();
  r.layer = kernel.layer();
  const std::array<int64_t, 4> cols = kernel.columns();
  r.problem.batch = cols[0];
  r.problem.m = cols[1];
  r.problem.n = cols[2];
  r.problem.k = cols[3];
  r.problem.dtype = dtype;
  return r;
}
} // namespace

KernelRecord KernelRecord::bare(const model::Kernel &kernel,
                                std::optional<model::GemmSpec> partGemm,
                                int part) {
  KernelRecord r;
  r.kernel = kernel;
  r.part = part;
  r.partGemm = std::move(partGemm);
  return r;
}

KernelRecord KernelRecord::of(const model::Kernel &kernel, model::DType dtype,
                              const std::string &location,
                              const model::RunShape *run, int part) {
  std::vector<model::GemmSpec> parts = kernel.parts();
  std::optional<model::GemmSpec> g;
  if (!parts.empty())
    g = parts.at(size_t(part));
  return make(kernel, std::move(g), part, dtype, location, run);
}

std::vector<KernelRecord>
tshape::advise::recordsOf(const model::ModelConfig &c,
                          const std::vector<model::Kernel> &kernels,
                          const model::RunShape *run) {
  std::vector<KernelRecord> records;
  records.reserve(kernels.size());
  for (const model::Kernel &k : kernels) {
    std::vector<model::GemmSpec> parts = k.parts();
    if (parts.empty())
      records.push_back(make(k, std::nullopt, 0, c.dtype, c.name, run));
    for (size_t i = 0; i < parts.size(); ++i)
      records.push_back(
          make(k, std::move(parts[i]), int(i), c.dtype, c.name, run));
  }
  return records;
}

std::vector<KernelRecord>
tshape::advise::recordsFor(const model::ModelConfig &c,
                           const model::RunShape &run) {
  return recordsOf(c, model::modelKernels(c, run), &run);
}
