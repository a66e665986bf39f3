//===- Kernel.cpp - One kernel of a model ---------------------------------===//

#include "tshape/Model/Kernel.h"
#include "tshape/Model/Transformer.h"

#include <algorithm>

using namespace tshape::model;

const char *tshape::model::kernelKindName(KernelKind k) {
  switch (k) {
  case KernelKind::Gemm:
    return "gemm";
  case KernelKind::Attention:
    return "attention";
  case KernelKind::Collective:
    return "collective";
  case KernelKind::Elementwise:
    return "elementwise";
  case KernelKind::Scan:
    return "scan";
  case KernelKind::TopK:
    return "top_k";
  }
  return "gemm";
}

namespace {
constexpr const char *kCollectiveNames[] = {
    "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "send_recv"};
} // namespace

const char *tshape::model::collectiveName(CollectiveOp op) {
  return kCollectiveNames[size_t(op)];
}

std::optional<CollectiveOp>
tshape::model::parseCollective(std::string_view name) {
  for (size_t i = 0; i < std::size(kCollectiveNames); ++i)
    if (name == kCollectiveNames[i])
      return CollectiveOp(i);
  return std::nullopt;
}

const char *tshape::model::tierName(Tier t) {
  return t == Tier::Node ? "node" : "network";
}

//===----------------------------------------------------------------------===//
// AttentionSpec
//===----------------------------------------------------------------------===//

std::vector<GemmSpec> AttentionSpec::gemms() const {
  // Scores S = Q . K^T: (q x d) . (d x kv), K stored [kv, d]; values
  // O = P . V: (q x kv) . (kv x dv), each over batch x heads. With GQA the
  // key/value heads are broadcast to their query heads first; grouped (a
  // decode kernel), the heads/kvHeads query heads of one key/value head
  // are rows of one product over batch x kvHeads.
  const Dim &over = grouped ? kvHeads : heads;
  Dim rows = queryLen;
  bool o = overflow;
  if (grouped && heads.expr.str() != kvHeads.expr.str()) {
    rows.expr = heads.expr / kvHeads.expr;
    if (!queryLen.expr.isConstant(1))
      rows.expr = rows.expr * queryLen.expr;
    rows.value = rows.expr.eval(env, &o).value_or(0);
  }
  auto make = [&](Role r, const Dim &m, const Dim &n, const Dim &k,
                  bool transB) {
    GemmSpec g;
    g.role = r;
    g.layer = layer;
    g.env = env;
    g.batch.expr = batch.expr * over.expr;
    g.batch.value = checkedMul(batch.value, over.value).value_or(0);
    g.m = m;
    g.n = n;
    g.k = k;
    g.transB = transB;
    g.overflow = o || !checkedMul(batch.value, over.value);
    return g;
  };
  if (!banded())
    return {make(Role::AttnScore, rows, kvLen, headDim, true),
            make(Role::AttnValue, rows, valueHeadDim, kvLen, false)};
  // Banded (docs/lowering.md#windows): the queries in blocks of W
  // (ceildiv(q, W) blocks, the last padded), each block over the keys any
  // of its queries sees: a sliding window's W before the block and the
  // block's own W (2W, or the kv length when shorter), a chunk's own W.
  const DimExpr w = window.expr;
  const DimExpr blocks = DimExpr::ceilDiv(queryLen.expr, w);
  Dim span = window;
  if (!chunked) {
    span.expr = DimExpr::constant(2) * w;
    span.value = 2 * window.value;
    if (kvLen.value < span.value)
      span = kvLen;
  }
  std::vector<GemmSpec> out = {make(Role::AttnScore, window, span, headDim, true),
                               make(Role::AttnValue, window, valueHeadDim, span,
                                    false)};
  for (GemmSpec &g : out) {
    g.batch.expr = g.batch.expr * blocks;
    g.batch.value = g.batch.expr.eval(env, &g.overflow).value_or(0);
  }
  return out;
}

std::vector<GemmSpec> AttentionSpec::passGemms() const {
  std::vector<GemmSpec> fwd = gemms();
  if (!backward)
    return fwd;
  std::vector<GemmSpec> out;
  for (auto g = fwd.rbegin(); g != fwd.rend(); ++g)
    for (GemmSpec &b : backwardGemms(*g))
      out.push_back(std::move(b));
  return out;
}

std::optional<int64_t> AttentionSpec::flops() const {
  std::optional<int64_t> sum = 0;
  for (const GemmSpec &g : passGemms())
    sum = checkedAdd(sum, g.flops());
  return sum;
}

std::vector<std::pair<const char *, Dim *>> AttentionSpec::dims() {
  return {{"batch", &batch},         {"heads", &heads},
          {"kv_heads", &kvHeads},    {"head_dim", &headDim},
          {"v_head_dim", &valueHeadDim}, {"q_len", &queryLen},
          {"kv_len", &kvLen},        {"window", &window}};
}

void AttentionSpec::rebind(const Bindings &newEnv) {
  env = newEnv;
  overflow = false;
  for (auto [name, d] : dims())
    d->value = d->expr.eval(env, &overflow).value_or(0);
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

Role Kernel::role() const {
  return std::visit([](const auto &k) { return k.role; }, body);
}

int64_t Kernel::layer() const {
  return std::visit([](const auto &k) { return k.layer; }, body);
}

const Bindings &Kernel::env() const {
  return std::visit([](const auto &k) -> const Bindings & { return k.env; },
                    body);
}

bool Kernel::backward() const {
  if (const GemmSpec *g = gemm())
    return g->pass != GemmPass::Forward;
  if (const AttentionSpec *a = attention())
    return a->backward;
  if (const ScanSpec *s = scan())
    return s->backward;
  if (const CollectiveSpec *c = collective())
    return c->backward;
  return false;
}

std::string Kernel::name() const {
  if (const GemmSpec *g = gemm())
    return g->name();
  if (const CollectiveSpec *c = collective())
    return collectiveName(c->op);
  if (const AttentionSpec *a = attention(); a && a->backward)
    return std::string(roleInfo(role()).name) + "_bwd";
  if (const ScanSpec *s = scan(); s && s->backward)
    return std::string(roleInfo(role()).name) + "_bwd";
  return roleInfo(role()).name;
}

std::vector<std::pair<const char *, Dim>> Kernel::dims() const {
  if (const GemmSpec *g = gemm())
    return {{"batch", g->batch}, {"m", g->m}, {"n", g->n}, {"k", g->k}};
  if (const AttentionSpec *a = attention()) {
    AttentionSpec copy = *a;
    std::vector<std::pair<const char *, Dim>> out;
    for (auto [name, d] : copy.dims())
      out.push_back({name, *d});
    return out;
  }
  if (const ElementwiseSpec *e = elementwise()) {
    Dim count;
    count.value = e->count;
    count.expr = DimExpr::constant(e->count);
    return {{"rows", e->rows}, {"width", e->width}, {"count", count}};
  }
  if (const ScanSpec *s = scan())
    return {{"batch", s->batch},   {"heads", s->heads},
            {"length", s->length}, {"chunk", s->chunk},
            {"key_dim", s->keyDim}, {"value_dim", s->valueDim}};
  if (const TopKSpec *t = topK())
    return {{"batch", t->batch},
            {"rows", t->rows},
            {"length", t->length},
            {"k", t->k}};
  const CollectiveSpec &c = *collective();
  return {{"bytes", c.bytes}, {"ranks", c.ranks}};
}

std::array<int64_t, 4> Kernel::columns() const {
  if (const GemmSpec *g = gemm())
    return {g->batch.value, g->m.value, g->n.value, g->k.value};
  if (const AttentionSpec *a = attention()) {
    const GemmSpec score = a->gemms()[0];
    return {score.batch.value, score.m.value, score.n.value, score.k.value};
  }
  if (const ElementwiseSpec *e = elementwise())
    return {e->count, e->rows.value, e->width.value, 0};
  if (const ScanSpec *s = scan())
    return {s->batch.value * s->heads.value, s->length.value,
            s->valueDim.value, s->keyDim.value};
  if (const TopKSpec *t = topK())
    return {t->batch.value, t->rows.value, t->length.value, t->k.value};
  const CollectiveSpec &c = *collective();
  return {c.ranks.value, 0, c.bytes.value, 0};
}

std::optional<KernelKind>
tshape::model::parseKernelKind(std::string_view name) {
  for (KernelKind k : {KernelKind::Gemm, KernelKind::Attention,
                       KernelKind::Collective, KernelKind::Elementwise,
                       KernelKind::Scan, KernelKind::TopK})
    if (name == kernelKindName(k))
      return k;
  return std::nullopt;
}

bool Kernel::hasOp() const {
  return gemm() || attention() || elementwise();
}

KernelFields Kernel::fields() const {
  KernelFields f;
  f.kind = kind();
  f.role = role();
  f.layer = layer();
  f.env = env();
  for (auto [name, d] : dims())
    f.sizes.push_back({name, d.expr});
  if (const CollectiveSpec *c = collective()) {
    f.words = {{"op", collectiveName(c->op)}, {"tier", tierName(c->tier)}};
    f.flags = {{"backward", c->backward}};
  } else if (const ScanSpec *s = scan()) {
    f.flags = {{"backward", s->backward}};
  } else if (const TopKSpec *t = topK()) {
    f.flags = {{"causal", t->causal}};
  }
  return f;
}

std::optional<Kernel> Kernel::fromFields(const KernelFields &f,
                                         std::string &error) {
  bool overflow = false;
  auto size = [&](const char *name, Dim &d) {
    for (const auto &[n, e] : f.sizes)
      if (n == name) {
        std::optional<int64_t> v = e.eval(f.env, &overflow);
        if (!v) {
          error = std::string("size '") + name + "' (" + e.str() +
                  ") has no value over its params";
          return false;
        }
        d.expr = e;
        d.value = *v;
        return true;
      }
    error = std::string("lacks the size '") + name + "'";
    return false;
  };
  auto word = [&](const char *name) -> std::optional<std::string> {
    for (const auto &[n, w] : f.words)
      if (n == name)
        return w;
    error = std::string("lacks the word '") + name + "'";
    return std::nullopt;
  };
  auto flag = [&](const char *name, bool &out) {
    for (const auto &[n, v] : f.flags)
      if (n == name) {
        out = v;
        return true;
      }
    error = std::string("lacks the flag '") + name + "'";
    return false;
  };
  // Each kind's sizes by name, after its role, layer and bindings.
  auto read = [&](auto &spec,
                  std::initializer_list<std::pair<const char *, Dim *>> ds) {
    spec.role = f.role;
    spec.layer = f.layer;
    spec.env = f.env;
    for (auto [name, d] : ds)
      if (!size(name, *d))
        return false;
    return true;
  };
  switch (f.kind) {
  case KernelKind::Collective: {
    CollectiveSpec c;
    std::optional<std::string> op = word("op");
    std::optional<std::string> tier = op ? word("tier") : std::nullopt;
    if (!tier || !read(c, {{"bytes", &c.bytes}, {"ranks", &c.ranks}}) ||
        !flag("backward", c.backward))
      return std::nullopt;
    std::optional<CollectiveOp> o = parseCollective(*op);
    if (!o) {
      error = "unknown collective '" + *op + "'";
      return std::nullopt;
    }
    c.op = *o;
    if (*tier != tierName(Tier::Node) && *tier != tierName(Tier::Network)) {
      error = "unknown tier '" + *tier + "'";
      return std::nullopt;
    }
    c.tier = *tier == tierName(Tier::Node) ? Tier::Node : Tier::Network;
    c.overflow = overflow;
    return Kernel(c);
  }
  case KernelKind::Scan: {
    ScanSpec s;
    if (!read(s, {{"batch", &s.batch},
                  {"heads", &s.heads},
                  {"length", &s.length},
                  {"chunk", &s.chunk},
                  {"key_dim", &s.keyDim},
                  {"value_dim", &s.valueDim}}) ||
        !flag("backward", s.backward))
      return std::nullopt;
    s.overflow = overflow;
    return Kernel(s);
  }
  case KernelKind::TopK: {
    TopKSpec t;
    if (!read(t, {{"batch", &t.batch},
                  {"rows", &t.rows},
                  {"length", &t.length},
                  {"k", &t.k}}) ||
        !flag("causal", t.causal))
      return std::nullopt;
    t.overflow = overflow;
    return Kernel(t);
  }
  default:
    error = std::string("a ") + kernelKindName(f.kind) +
            " kernel is carried by its own op, not by tshape.kernels";
    return std::nullopt;
  }
}

bool Kernel::causal() const {
  if (const AttentionSpec *a = attention())
    return a->causal;
  if (const TopKSpec *t = topK())
    return t->causal;
  return false;
}

void Kernel::rebind(const Bindings &newEnv) {
  if (AttentionSpec *a = attention()) {
    a->rebind(newEnv);
  } else if (GemmSpec *g = gemm()) {
    g->env = newEnv;
    for (Dim *d : {&g->batch, &g->m, &g->n, &g->k})
      d->value = d->expr.eval(newEnv).value_or(0);
  }
}

std::vector<GemmSpec> Kernel::parts() const {
  if (const AttentionSpec *a = attention())
    return a->passGemms();
  return {};
}

std::optional<int64_t> Kernel::flops() const {
  if (const GemmSpec *g = gemm())
    return g->flops();
  if (const AttentionSpec *a = attention())
    return a->flops();
  if (const ScanSpec *s = scan())
    return s->flops();
  return 0;
}

int64_t Kernel::ringElementsPerToken() const {
  const AttentionSpec *a = attention();
  if (!a || a->backward)
    return 0;
  return a->kvHeads.value * (a->headDim.value + a->valueHeadDim.value);
}

std::vector<GemmSpec> tshape::model::gemmsOf(const std::vector<Kernel> &ks) {
  std::vector<GemmSpec> out;
  for (const Kernel &k : ks)
    if (const GemmSpec *g = k.gemm())
      out.push_back(*g);
  return out;
}

std::vector<Kernel>
tshape::model::backwardKernels(const std::vector<Kernel> &forward) {
  std::vector<Kernel> out;
  auto gemmGrads = [&](const GemmSpec &g) {
    for (GemmSpec &b : backwardGemms(g))
      out.push_back(std::move(b));
  };
  for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
    if (const GemmSpec *g = it->gemm()) {
      gemmGrads(*g);
    } else if (const AttentionSpec *a = it->attention();
               a && !a->backward) {
      // The fused backward kernel (FlashAttention's): one kernel that
      // computes the gradients of the value product, then of the scores.
      AttentionSpec b = *a;
      b.backward = true;
      out.push_back(std::move(b));
    } else if (const ScanSpec *s = it->scan(); s && !s->backward) {
      ScanSpec b = *s;
      b.backward = true;
      out.push_back(std::move(b));
    } else if (const CollectiveSpec *c = it->collective();
               c && c->op == CollectiveOp::AllToAll) {
      // An all-to-all's gradient is the same exchange in the other
      // direction (a MoE layer's dispatch and combine). A tensor-parallel
      // region's collectives are the block's (tpCollectives).
      CollectiveSpec b = *c;
      b.backward = true;
      out.push_back(std::move(b));
    }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// ScanSpec
//===----------------------------------------------------------------------===//

int64_t ScanSpec::chunks() const {
  const int64_t q = std::max<int64_t>(1, std::min(chunk.value, length.value));
  return (length.value + q - 1) / q;
}

std::optional<int64_t> ScanSpec::flops() const {
  if (overflow)
    return std::nullopt;
  // Per head and chunk of q tokens: the causal products over the keys and
  // over the values (2 q^2 (dk + dv)), the chunk's state from its keys and
  // values and the outputs from the state entering it (4 q dk dv).
  const int64_t q = std::max<int64_t>(1, std::min(chunk.value, length.value));
  const int64_t dk = keyDim.value, dv = valueDim.value;
  std::optional<int64_t> perChunk = checkedAdd(
      checkedProduct({2, q, q, dk + dv}), checkedProduct({4, q, dk, dv}));
  std::optional<int64_t> all = checkedMul(
      perChunk, checkedProduct({batch.value, heads.value, chunks()}));
  return backward ? checkedMul(all, 2) : all;
}

double ScanSpec::bytes(double elementBytes) const {
  // Per token and head: keys and queries (2 dk) read, values (dv) read,
  // outputs (dv) written; per chunk and head the fp32 state written and
  // read back.
  const double dk = double(keyDim.value), dv = double(valueDim.value);
  const double seqHeads = double(batch.value) * double(heads.value);
  const double tokens = seqHeads * double(length.value) * 2 * (dk + dv) *
                        elementBytes;
  const double state = stateBytes() / (backward ? 2 : 1);
  return (tokens + state) * (backward ? 2 : 1);
}

double ScanSpec::stateBytes() const {
  return double(batch.value) * double(heads.value) * double(chunks()) * 2 *
         double(keyDim.value) * double(valueDim.value) * 4 *
         (backward ? 2 : 1);
}

//===----------------------------------------------------------------------===//
// TopKSpec
//===----------------------------------------------------------------------===//

double TopKSpec::scores() const {
  const double q = double(rows.value), n = double(length.value);
  if (!causal)
    return double(batch.value) * q * n;
  // Query i (0-based) of the last q sees n - q + 1 + i keys:
  // q (n - q + 1) + q (q - 1) / 2 in all.
  return double(batch.value) * (q * (n - q + 1) + q * (q - 1) / 2);
}

double TopKSpec::selected() const {
  const int64_t q = rows.value, n = length.value, kk = k.value;
  if (!causal)
    return double(batch.value) * double(q) * double(std::min(kk, n));
  // The first queries see fewer than k keys and keep them all: query i
  // sees v0 + i keys (v0 = n - q + 1); those with v0 + i <= k are
  // i <= k - v0, n1 of them, keeping n1 v0 + n1 (n1 - 1) / 2; the rest k.
  const int64_t v0 = n - q + 1;
  const int64_t n1 = std::clamp<int64_t>(kk - v0 + 1, 0, q);
  const double first = double(n1) * double(v0) +
                       double(n1) * double(n1 - 1) / 2;
  return double(batch.value) * (first + double(q - n1) * double(kk));
}
