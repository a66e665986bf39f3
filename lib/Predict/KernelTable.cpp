//===- KernelTable.cpp - Lists of kernels to predict ----------------------===//
//
// The header's column names decide the kind of every row; docs/predict.md
// lists them.
//
//===----------------------------------------------------------------------===//

#include "tshape/Predict/KernelTable.h"
#include "tshape/Support/Csv.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>

using namespace tshape;
using namespace tshape::predict;

const char *tshape::predict::kindName(KernelKind kind) {
  switch (kind) {
  case KernelKind::Gemm:
    return "gemm";
  case KernelKind::PrefillAttention:
    return "prefill attention";
  case KernelKind::DecodeAttention:
    return "decode attention";
  case KernelKind::Collective:
    return "nccl collective";
  case KernelKind::MoeLayer:
    return "moe layer";
  }
  return "gemm";
}

std::string tshape::predict::targetForGpu(const std::string &gpu) {
  if (gpu == "a100-sxm")
    return "a100-80gb";
  if (gpu == "h100-sxm" || gpu == "b200")
    return gpu;
  return "";
}

namespace {
/// Column indices of one header (-1: absent).
struct Columns {
  std::map<std::string, int> index;
  int operator[](const char *name) const {
    auto it = index.find(name);
    return it == index.end() ? -1 : it->second;
  }
  bool has(std::initializer_list<const char *> names) const {
    for (const char *n : names)
      if ((*this)[n] < 0)
        return false;
    return true;
  }
};

struct RowReader {
  const std::vector<std::string> &fields;
  const Columns &cols;
  std::string &why;

  /// An integer column in [lo, kMaxSize]; `fallback` when the column is
  /// absent or (for `emptyOk`) empty.
  bool integer(const char *name, int64_t lo, int64_t &out, int64_t fallback,
               bool emptyOk = false) {
    int c = cols[name];
    if (c < 0 || (emptyOk && fields[c].empty())) {
      out = fallback;
      return true;
    }
    const std::string &f = fields[c];
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(f.c_str(), &end, 10);
    if (f.empty() || *end || errno == ERANGE || v < lo || v > kMaxSize) {
      why = std::string("column '") + name + "' must be an integer in [" +
            std::to_string(lo) + ", " + std::to_string(kMaxSize) +
            "], got '" + f + "'";
      return false;
    }
    out = v;
    return true;
  }
  bool flag(const char *name, bool &out, bool fallback) {
    int64_t v = 0;
    if (!integer(name, 0, v, fallback ? 1 : 0))
      return false;
    if (v > 1) {
      why = std::string("column '") + name + "' must be 0 or 1, got '" +
            fields[cols[name]] + "'";
      return false;
    }
    out = v == 1;
    return true;
  }
  bool dtype(DType &out) {
    int c = cols["dtype"];
    if (c < 0) {
      out = DType::BF16;
      return true;
    }
    // aiconfigurator's word for a 128 x 128 block-scaled FP8 layer: fp8,
    // scaled by blocks unless its `scaling` column says otherwise.
    blockDType = fields[c] == "fp8_block";
    auto d = blockDType ? std::optional<DType>(DType::FP8)
                        : parseDType(fields[c]);
    if (!d) {
      why = "unknown dtype '" + fields[c] +
            "' (expected bf16, fp16, fp32, tf32, fp8 or fp8_block)";
      return false;
    }
    out = *d;
    return true;
  }
  /// The row's dtype was `fp8_block`.
  bool blockDType = false;
  /// The `scaling` column of an fp8 GEMM row: how the FP8 linear layer
  /// quantizes its input (`static`, the default: a per-tensor scale known
  /// in advance, one cast, what the measured files hold: aiconfigurator
  /// builds vLLM's layer with activation_scheme "static"; `tensor`:
  /// per-tensor current scaling, amax then cast; `block`: MXFP8; `none`:
  /// a bare FP8 GEMM on FP8 operands, as tshape-bench-gemms times it).
  bool scaling(DType dt, cost::Quantize &out) {
    int c = cols["scaling"];
    const std::string f = c < 0 ? std::string() : fields[c];
    if (dt != DType::FP8) {
      out = cost::Quantize::None;
      if (f.empty() || f == "none")
        return true;
      why = "column 'scaling' is '" + f + "' on a " + dtypeName(dt) +
            " row (only fp8 rows are scaled)";
      return false;
    }
    if (f.empty() && blockDType)
      out = cost::Quantize::Block;
    else if (f.empty() || f == "static")
      out = cost::Quantize::Static;
    else if (f == "tensor")
      out = cost::Quantize::PerTensor;
    else if (f == "block")
      out = cost::Quantize::Block;
    else if (f == "none")
      out = cost::Quantize::None;
    else {
      why = "unknown scaling '" + f +
            "' (expected static, tensor, block or none)";
      return false;
    }
    return true;
  }
  bool measured(std::optional<double> &out) {
    for (const char *name : {"latency_us", "measured_us"}) {
      int c = cols[name];
      if (c < 0)
        continue;
      char *end = nullptr;
      double v = std::strtod(fields[c].c_str(), &end);
      if (fields[c].empty() || *end || !std::isfinite(v) || !(v > 0)) {
        why = std::string("column '") + name +
              "' must be a positive time in microseconds, got '" + fields[c] +
              "'";
        return false;
      }
      out = v;
      return true;
    }
    return true;
  }
};

/// An NCCL row: `op` (nccl-tests' names, or tshape's), `dtype` (`half`,
/// `int8` or a tshape dtype), `gpus` and `message_elements`.
bool readCollective(RowReader &r, KernelRow &row) {
  const std::string &opName = r.fields[r.cols["op"]];
  std::optional<model::CollectiveOp> op =
      opName == "alltoall" ? std::optional(model::CollectiveOp::AllToAll)
                           : model::parseCollective(opName);
  if (!op) {
    r.why = "unknown collective '" + opName +
            "' (expected all_reduce, reduce_scatter, all_gather, alltoall "
            "or send_recv)";
    return false;
  }
  int64_t elementBytes = 2;
  if (int c = r.cols["dtype"]; c >= 0) {
    const std::string &d = r.fields[c];
    std::optional<DType> dt = d == "half"   ? std::optional(DType::FP16)
                              : d == "int8" ? std::optional(DType::FP8)
                                            : parseDType(d);
    if (!dt) {
      r.why = "unknown dtype '" + d +
              "' (expected half, int8, bf16, fp16, fp32, tf32 or fp8)";
      return false;
    }
    row.collectiveDType = *dt;
    elementBytes = int64_t(dtypeBytes(*dt));
  }
  int64_t elements = 0;
  cost::CollectiveProblem &p = row.collective;
  if (!r.integer("gpus", 1, p.ranks, 1) ||
      !r.integer("message_elements", 1, elements, 1))
    return false;
  row.kind = KernelKind::Collective;
  p.op = *op;
  p.bytes = double(elements) * double(elementBytes);
  p.tier = model::Tier::Node;
  row.key = std::string(model::collectiveName(p.op)) + "," +
            dtypeName(row.collectiveDType) + "," + std::to_string(p.ranks) +
            "," + std::to_string(elements);
  return true;
}

/// A fused MoE layer row: `tokens,hidden,inter,topk,experts`, optionally
/// `dtype` (bf16, fp16 or fp8), `moe_tp`, `moe_ep` (1) and `distribution`
/// (`balanced`, the default, or `power_law_A` with A > 1).
bool readMoe(RowReader &r, DType dt, KernelRow &row) {
  cost::MoeLayerProblem &p = row.moe;
  if (dt != DType::BF16 && dt != DType::FP16 && dt != DType::FP8) {
    r.why = std::string("no model for ") + dtypeName(dt) +
            " moe layer rows (expected bf16, fp16 or fp8)";
    return false;
  }
  p.dtype = dt;
  if (!r.integer("tokens", 1, p.tokens, 1) ||
      !r.integer("hidden", 1, p.hidden, 1) ||
      !r.integer("inter", 1, p.inter, 1) || !r.integer("topk", 1, p.topk, 1) ||
      !r.integer("experts", 1, p.experts, 1) ||
      !r.integer("moe_tp", 1, p.tp, 1) || !r.integer("moe_ep", 1, p.ep, 1))
    return false;
  auto bad = [&](const std::string &why) {
    r.why = why;
    return false;
  };
  auto num = [](int64_t v) { return std::to_string(v); };
  if (p.experts > cost::kMaxMoeExperts)
    return bad("experts (" + num(p.experts) + ") above " +
               num(cost::kMaxMoeExperts) +
               " (the routing model keeps a count per expert)");
  if (p.topk > p.experts)
    return bad("topk (" + num(p.topk) + ") exceeds experts (" +
               num(p.experts) + ")");
  if (p.experts % p.ep)
    return bad("experts (" + num(p.experts) + ") must be a multiple of "
               "moe_ep (" + num(p.ep) + ")");
  if (p.inter % p.tp)
    return bad("inter (" + num(p.inter) + ") must be a multiple of moe_tp (" +
               num(p.tp) + ")");
  std::string dist = "balanced";
  if (int c = r.cols["distribution"]; c >= 0 && !r.fields[c].empty())
    dist = r.fields[c];
  if (dist != "balanced") {
    const std::string prefix = "power_law_";
    char *end = nullptr;
    double a = dist.rfind(prefix, 0) == 0
                   ? std::strtod(dist.c_str() + prefix.size(), &end)
                   : 0;
    if (!end || *end || end == dist.c_str() + prefix.size() ||
        !std::isfinite(a) || !(a > 1) || a > 100)
      return bad("unknown distribution '" + dist +
                 "' (expected balanced or power_law_A with 1 < A <= 100, "
                 "e.g. power_law_1.2)");
    p.routing.powerLaw = a;
  }
  row.kind = KernelKind::MoeLayer;
  row.key = std::string(dtypeName(dt)) + "," + dist + "," + num(p.tokens) +
            "," + num(p.hidden) + "," + num(p.inter) + "," + num(p.topk) +
            "," + num(p.experts) + "," + num(p.tp) + "," + num(p.ep);
  return true;
}
} // namespace

bool tshape::predict::parseKernelTable(const std::string &text,
                                       const std::string &name,
                                       KernelTable &out, std::string &error) {
  out = KernelTable();
  out.name = name;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      if (start < text.size())
        out.lines.push_back(text.substr(start));
      break;
    }
    out.lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  auto fail = [&](int line, const std::string &why) {
    error = name + ":" + std::to_string(line) + ": error: " + why;
    return false;
  };
  Columns cols;
  size_t ncols = 0;
  enum { None, Gemm, Attention, Nccl, Moe } format = None;
  for (size_t i = 0; i < out.lines.size(); ++i) {
    std::string line = out.lines[i];
    int lineNo = int(i) + 1;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty() || line[0] == '#')
      continue;
    std::vector<std::string> fields = csv::splitFields(line);
    if (format == None) {
      for (size_t c = 0; c < fields.size(); ++c) {
        if (fields[c].empty() || !cols.index.emplace(fields[c], int(c)).second)
          return fail(lineNo, "header column " + std::to_string(c + 1) +
                                  (fields[c].empty() ? " is empty"
                                                     : " '" + fields[c] +
                                                           "' is repeated"));
      }
      ncols = fields.size();
      out.headerLine = lineNo;
      if (cols.has({"batch", "seq", "heads", "kv_heads", "head_dim"}))
        format = Attention;
      else if (cols.has({"m", "n", "k"}))
        format = Gemm;
      else if (cols.has({"op", "gpus", "message_elements"}))
        format = Nccl;
      else if (cols.has({"tokens", "experts", "topk"})) {
        format = Moe;
        for (const char *need : {"hidden", "inter"})
          if (cols[need] < 0)
            return fail(lineNo, std::string("a moe layer header needs "
                                            "column '") +
                                    need +
                                    "' (required: tokens,hidden,inter,"
                                    "topk,experts; docs/predict.md)");
      } else
        return fail(lineNo,
                    "unknown header: expected GEMM columns "
                    "'dtype,m,n,k[,batch,trans_a,trans_b]', attention "
                    "columns 'batch,seq,heads,kv_heads,head_dim[,step,"
                    "window]', collective columns 'op,gpus,"
                    "message_elements' or MoE layer columns 'tokens,hidden,"
                    "inter,topk,experts[,moe_tp,moe_ep,distribution]' "
                    "(docs/predict.md)");
      continue;
    }
    if (fields.size() != ncols)
      return fail(lineNo, "expected " + std::to_string(ncols) +
                              " fields as in the header, got " +
                              std::to_string(fields.size()));
    KernelRow row;
    row.line = lineNo;
    if (int c = cols["gpu"]; c >= 0)
      row.gpu = fields[c];
    std::string why;
    RowReader r{fields, cols, why};
    if (format == Nccl) {
      if (!r.measured(row.measuredUs) || !readCollective(r, row))
        return fail(lineNo, why);
      out.rows.push_back(row);
      continue;
    }
    DType dt;
    if (!r.dtype(dt) || !r.measured(row.measuredUs))
      return fail(lineNo, why);
    if (r.blockDType && format != Gemm)
      return fail(lineNo, "dtype 'fp8_block' names a block-scaled linear "
                          "layer: a GEMM row only");
    if (format == Moe) {
      if (!readMoe(r, dt, row))
        return fail(lineNo, why);
    } else if (format == Gemm) {
      cost::GemmProblem &p = row.gemm;
      p.dtype = dt;
      if (!r.integer("m", 1, p.m, 1) || !r.integer("n", 1, p.n, 1) ||
          !r.integer("k", 1, p.k, 1) || !r.integer("batch", 1, p.batch, 1) ||
          !r.flag("trans_a", p.transA, false) ||
          !r.flag("trans_b", p.transB, cols["trans_b"] < 0) ||
          !r.scaling(dt, p.quantize))
        return fail(lineNo, why);
      row.key = std::string(dtypeName(dt)) +
                (p.quantize == cost::Quantize::Block    ? "/block"
                 : p.quantize == cost::Quantize::None   ? ""
                 : p.quantize == cost::Quantize::Static ? "/static"
                                                        : "/tensor") +
                "," + std::to_string(p.batch) + "," + std::to_string(p.m) +
                "," + std::to_string(p.n) + "," + std::to_string(p.k) + "," +
                std::to_string(p.transA) + std::to_string(p.transB);
    } else {
      cost::AttentionProblem &a = row.attention;
      a.dtype = dt;
      if (!r.integer("batch", 1, a.batch, 1) ||
          !r.integer("seq", 1, a.seq, 1) ||
          !r.integer("heads", 1, a.heads, 1) ||
          !r.integer("kv_heads", 1, a.kvHeads, 1) ||
          !r.integer("head_dim", 1, a.headDim, 1) ||
          !r.integer("window", 0, a.window, 0, /*emptyOk=*/true) ||
          !r.integer("step", 0, row.step, 0) ||
          !r.flag("causal", a.causal, true))
        return fail(lineNo, why);
      if (a.heads % a.kvHeads != 0)
        return fail(lineNo, "heads (" + std::to_string(a.heads) +
                                ") must be a multiple of kv_heads (" +
                                std::to_string(a.kvHeads) + ")");
      // A decode row is one new token per sequence (seq 1) attending to the
      // `step` cached tokens and itself; more tokens after `step` cached
      // ones are a prefill chunk (the fused model, causal from the cache's
      // end).
      row.kind = row.step > 0 && a.seq == 1 ? KernelKind::DecodeAttention
                                            : KernelKind::PrefillAttention;
      if (row.kind == KernelKind::PrefillAttention)
        a.cached = row.step;
      row.key = std::string(dtypeName(dt)) + "," + std::to_string(a.batch) +
                "," + std::to_string(a.seq) + "," + std::to_string(a.heads) +
                "," + std::to_string(a.kvHeads) + "," +
                std::to_string(a.headDim) + "," + std::to_string(a.window) +
                "," + std::to_string(a.causal) + "," +
                std::to_string(row.step);
    }
    out.rows.push_back(row);
  }
  if (format == None)
    return fail(int(out.lines.size()) + (out.lines.empty() ? 1 : 0),
                "no CSV header: the file is empty or all comments");
  return true;
}

std::string
tshape::predict::withPredictions(const KernelTable &table,
                                 const std::vector<double> &predictions,
                                 const std::vector<bool> &keep) {
  std::string out;
  size_t next = 0;
  char buf[64];
  for (size_t i = 0; i < table.lines.size(); ++i) {
    std::string line = table.lines[i];
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    int lineNo = int(i) + 1;
    if (lineNo == table.headerLine) {
      out += line + ",predicted_us\n";
    } else if (next < table.rows.size() && table.rows[next].line == lineNo) {
      bool kept = keep.empty() || (next < keep.size() && keep[next]);
      double v = next < predictions.size() ? predictions[next] : 0;
      ++next;
      if (!kept)
        continue;
      // No kernel on the target: an empty field, not a made-up time.
      if (v > 0)
        snprintf(buf, sizeof(buf), ",%.3f", v);
      else
        snprintf(buf, sizeof(buf), ",");
      out += line + buf + "\n";
    } else {
      out += line + "\n";
    }
  }
  return out;
}
