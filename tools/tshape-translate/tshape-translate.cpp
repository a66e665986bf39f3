//===- tshape-translate.cpp - tshape import/export driver -----------------===//
//
// mlir-translate for tshape. --import-hf-config reads a Hugging Face
// config.json and writes tshape IR.
//
//===----------------------------------------------------------------------===//

#include "tshape/Dialect/TShape/IR/ModelConfigBridge.h"
#include "tshape/Dialect/TShape/IR/TShapeAttrs.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"
#include "tshape/Dialect/TShape/IR/TShapeOps.h"
#include "tshape/Interop/HFConfig.h"
#include "tshape/Interop/Megatron.h"
#include "tshape/Tools/DegreeOptions.h"
#include "tshape/Tools/RunOptions.h"
#include "tshape/Tools/ToolOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/Timing.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace {
llvm::cl::OptionCategory
    importCat("Config import options (--import-hf-config)");
llvm::cl::opt<int64_t> &seqOpt =
    tshape::declareDegree(tshape::DegreeOption::Seq,
                          llvm::cl::SubCommand::getTopLevel(), importCat, 2048);
llvm::cl::opt<int64_t> &microbatchOpt = tshape::declareDegree(
    tshape::DegreeOption::Microbatch, llvm::cl::SubCommand::getTopLevel(),
    importCat, 4);
// The run shape (model::RunShape): the phase and what an inference run
// adds to it. One quantity each: --batch is the microbatch b (the
// concurrent sequences of a prefill or decode).
llvm::cl::opt<tshape::model::Phase> phaseOpt(
    "phase",
    llvm::cl::desc("the run the IR states as tshape.run (default: none, "
                   "which the passes read as prefill)"),
    llvm::cl::values(
        clEnumValN(tshape::model::Phase::Train, "train",
                   "a training step: the forward, then the backward"),
        clEnumValN(tshape::model::Phase::Prefill, "prefill",
                   "the forward of a prompt (or of --chunk tokens of it "
                   "after --context cached ones)"),
        clEnumValN(tshape::model::Phase::Decode, "decode",
                   "one decode step: 1 + --draft-tokens new tokens per "
                   "sequence over --context cached ones")),
    llvm::cl::cat(importCat));
llvm::cl::opt<bool> fusedAttentionOpt(
    "fused-attention",
    llvm::cl::desc("state attention as one fused kernel, forward and "
                   "backward (FlashAttention, cuDNN), as Megatron-LM and the "
                   "serving engines run it and tshape advise and tshape-plan "
                   "price it (default true); =false states the unfused score "
                   "and value GEMMs with their softmax"),
    llvm::cl::init(true),
    llvm::cl::cat(importCat));
llvm::cl::alias batchOpt("batch",
                         llvm::cl::desc("alias for --microbatch: the "
                                        "concurrent sequences of a prefill "
                                        "or decode"),
                         llvm::cl::aliasopt(microbatchOpt),
                         llvm::cl::cat(importCat));
llvm::cl::opt<int64_t> contextOpt(
    "context",
    llvm::cl::desc("prefill, decode: tokens already in each sequence's KV "
                   "cache (kv length = context + the step's tokens)"),
    llvm::cl::init(0), llvm::cl::cat(importCat));
llvm::cl::opt<int64_t>
    chunkOpt("chunk",
             llvm::cl::desc("prefill: the prompt tokens of one chunk "
                            "(chunked prefill; s = chunk)"),
             llvm::cl::init(0), llvm::cl::cat(importCat));
llvm::cl::opt<int64_t> draftOpt(
    "draft-tokens",
    llvm::cl::desc("decode: draft tokens verified per sequence in one step "
                   "(speculative decoding; M = batch x (1 + draft))"),
    llvm::cl::init(0), llvm::cl::cat(importCat));
llvm::cl::opt<std::string> kvCacheOpt(
    "kv-cache-dtype",
    llvm::cl::desc("prefill, decode: the KV cache's element type, bf16, fp16 "
                   "or fp8 (default: --dtype)"),
    llvm::cl::init(""), llvm::cl::cat(importCat));
llvm::cl::opt<std::string> precisionOpt(
    "precision",
    llvm::cl::desc("the linear layers' precision as frameworks run them: "
                   "bf16, fp8 (per-tensor current scaling) or mxfp8 (block "
                   "scaling, Blackwell); stated on tshape.run (default: "
                   "--dtype)"),
    llvm::cl::init(""), llvm::cl::cat(importCat));
llvm::cl::opt<int64_t> &tpOpt =
    tshape::declareDegree(tshape::DegreeOption::Tp,
                          llvm::cl::SubCommand::getTopLevel(), importCat, 1);
llvm::cl::opt<int64_t> &epOpt =
    tshape::declareDegree(tshape::DegreeOption::Ep,
                          llvm::cl::SubCommand::getTopLevel(), importCat, 1);
llvm::cl::opt<std::string>
    dtypeOpt("dtype",
             llvm::cl::desc("element type: bf16, fp16, fp32, tf32 or fp8 "
                            "(default: bf16)"),
             llvm::cl::init("bf16"), llvm::cl::cat(importCat));
llvm::cl::opt<std::string>
    nameOpt("name",
            llvm::cl::desc("function name (default: the config file name without extension)"),
            llvm::cl::init(""), llvm::cl::cat(importCat));

llvm::cl::opt<std::string> asModelTypeOpt(
    "as-model-type",
    llvm::cl::desc("read the config's keys as this supported model_type's "
                   "(an unknown model_type whose keys follow a supported "
                   "family, such as llama)"),
    llvm::cl::init(""), llvm::cl::cat(importCat));

llvm::cl::OptionCategory
    exportCat("Config export options (--export-hf-config)");
llvm::cl::opt<std::string>
    baseOpt("base",
            llvm::cl::desc("with --export-hf-config: the original config.json; "
                           "every key it has is kept and only changed sizes "
                           "are rewritten"),
            llvm::cl::init(""), llvm::cl::cat(exportCat));
llvm::cl::opt<std::string> modelTypeOpt(
    "model-type",
    llvm::cl::desc("with --export-hf-config: the model_type to write (default: "
                   "the function's tshape.model_type, else --base's)"),
    llvm::cl::init(""), llvm::cl::cat(exportCat));
llvm::cl::opt<bool> megatronOpt(
    "megatron",
    llvm::cl::desc("with --export-hf-config: print Megatron-LM arguments "
                   "instead of JSON"),
    llvm::cl::init(false), llvm::cl::cat(exportCat));

LogicalResult exportHF(Operation *op, llvm::raw_ostream &os) {
  func::FuncOp fn;
  op->walk([&](func::FuncOp f) {
    if (!fn && tshape::holdsModel(f))
      fn = f;
  });
  if (!fn)
    return op->emitError("export-hf-config: no function holds a tshape model "
                         "(tshape.attention and tshape.mlp)");
  bool hasVocab = false;
  std::string error;
  auto c = tshape::extractModelConfig(fn, hasVocab, error);
  if (!c)
    return fn.emitError() << "export-hf-config: " << error;
  if (!hasVocab)
    return fn.emitError()
           << "export-hf-config: the model has no tshape.embedding or "
              "tshape.lm_head, so no vocabulary to write";
  std::optional<llvm::json::Object> base;
  if (!baseOpt.empty()) {
    auto buf = llvm::MemoryBuffer::getFile(baseOpt);
    if (!buf)
      return fn.emitError() << "export-hf-config: cannot read --base '"
                            << baseOpt.getValue()
                            << "': " << buf.getError().message();
    auto parsed = llvm::json::parse((*buf)->getBuffer());
    if (!parsed)
      return fn.emitError() << "export-hf-config: --base '"
                            << baseOpt.getValue() << "' is not valid JSON: "
                            << llvm::toString(parsed.takeError());
    if (!parsed->getAsObject())
      return fn.emitError() << "export-hf-config: --base '"
                            << baseOpt.getValue()
                            << "' is not a JSON object";
    base = *parsed->getAsObject();
  }
  std::string type = modelTypeOpt;
  if (type.empty())
    type = c->modelType;
  if (type.empty() && base)
    if (auto t = base->getString("model_type"))
      type = t->str();
  if (type.empty())
    return fn.emitError() << "export-hf-config: unknown model_type: the IR has "
                             "no tshape.model_type; pass --model-type or --base";
  if (megatronOpt) {
    int64_t originalVocab = 0;
    if (base)
      if (auto v = base->getInteger("vocab_size"))
        originalVocab = *v;
    // The run's precision (tshape.run) gives the FP8 recipe.
    std::optional<tshape::model::RunShape> run = tshape::getRunShape(fn);
    os << tshape::megatronArguments(*c, originalVocab,
                                    run ? run->precision : std::nullopt)
       << "\n";
    return success();
  }
  auto out = tshape::exportHFConfig(*c, type, base ? &*base : nullptr, error);
  if (!out)
    return fn.emitError() << "export-hf-config: " << error;
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(*out))) << "\n";
  return success();
}

/// The run shape the import options state, and the sequence length s of
/// the IR's tensors (--seq, a prefill's --chunk, a decode step's 1 +
/// draft): runFromOptions, the rules tshape advise reads them by.
std::optional<std::pair<tshape::model::RunShape, int64_t>>
importRunShape(std::string &error) {
  tshape::RunInputs in;
  if (phaseOpt.getNumOccurrences())
    in.phase = phaseOpt.getValue();
  in.seq = seqOpt;
  in.seqGiven = seqOpt.getNumOccurrences() > 0;
  if (contextOpt.getNumOccurrences())
    in.context = contextOpt.getValue();
  if (chunkOpt.getNumOccurrences())
    in.chunk = chunkOpt.getValue();
  if (draftOpt.getNumOccurrences())
    in.draft = draftOpt.getValue();
  if (kvCacheOpt.getNumOccurrences())
    in.kvCache = kvCacheOpt.getValue();
  if (precisionOpt.getNumOccurrences())
    in.precision = precisionOpt.getValue();
  return tshape::runFromOptions(in, error);
}

/// The model of the config in `sourceMgr` under the import options, with
/// the run shape it states; nullopt after reporting a located error.
std::optional<std::pair<tshape::model::ModelConfig, tshape::model::RunShape>>
importConfig(llvm::SourceMgr &sourceMgr, MLIRContext *ctx) {
  const llvm::MemoryBuffer *buf = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  std::string file = buf->getBufferIdentifier().str();
  auto at = [&](unsigned line, unsigned col) -> Location {
    return FileLineColLoc::get(ctx, file, line, col);
  };
  tshape::ImportOptions opts;
  auto dtype = tshape::model::parseDType(dtypeOpt);
  if (!dtype) {
    tshape::toolError("tshape-translate")
        << "--dtype: unknown element type '" << dtypeOpt.getValue()
        << "' (expected bf16, fp16, fp32, tf32 or fp8)\n";
    return std::nullopt;
  }
  if (std::optional<std::string> bad =
          tshape::checkDegrees({&seqOpt, &microbatchOpt, &tpOpt, &epOpt})) {
    tshape::toolError("tshape-translate") << *bad << "\n";
    return std::nullopt;
  }
  std::string runError;
  auto run = importRunShape(runError);
  if (!run) {
    tshape::toolError("tshape-translate") << runError << "\n";
    return std::nullopt;
  }
  opts.dtype = *dtype;
  opts.seq = run->second;
  opts.microbatch = microbatchOpt;
  opts.asModelType = asModelTypeOpt;
  opts.fusedAttention = fusedAttentionOpt;
  tshape::model::setDegree(opts.parallel, tshape::model::Param::Tp, tpOpt);
  tshape::model::setDegree(opts.parallel, tshape::model::Param::Ep, epOpt);
  opts.name = nameOpt.empty()
                  ? llvm::sys::path::stem(file).str()
                  : nameOpt.getValue();
  tshape::ImportDiagnostic diag;
  std::optional<tshape::model::ModelConfig> config =
      tshape::importHFConfig(buf->getBuffer(), opts, diag);
  if (!config) {
    // Located at the offending key (line:col) or at the file itself.
    emitError(diag.line ? at(diag.line, diag.column) : at(0, 0))
        << diag.message;
    return std::nullopt;
  }
  if (epOpt > 1 &&
      !tshape::model::hasBlock(*config, tshape::model::BlockKind::Moe)) {
    emitError(at(0, 0)) << "--ep " << epOpt.getValue()
                        << ": the model has no experts to split (expert "
                           "parallelism needs an MoE model); drop --ep";
    return std::nullopt;
  }
  return std::make_pair(std::move(*config), run->first);
}

OwningOpRef<Operation *> importHF(llvm::SourceMgr &sourceMgr,
                                  MLIRContext *ctx) {
  auto imported = importConfig(sourceMgr, ctx);
  if (!imported)
    return nullptr;
  const llvm::MemoryBuffer *buf =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  OwningOpRef<ModuleOp> module = tshape::buildModelModule(
      ctx, imported->first,
      FileLineColLoc::get(ctx, buf->getBufferIdentifier(), 1, 1));
  if (!module)
    return nullptr;
  // The run the IR states: the passes lower and price it.
  if (phaseOpt.getNumOccurrences() || precisionOpt.getNumOccurrences())
    for (auto fn : module->getOps<func::FuncOp>())
      fn->setAttr(tshape::TShapeDialect::kRunAttrName,
                  tshape::RunAttr::get(ctx, imported->second));
  if (failed(verify(*module)))
    return nullptr;
  return OwningOpRef<Operation *>(module.release());
}

/// --hf-config-params: the parameter count of the imported model
/// (model::countParameters, docs/importer.md#parameter-counts), one
/// `key: value` per line.
LogicalResult printHFParams(llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os,
                            MLIRContext *ctx) {
  auto imported = importConfig(sourceMgr, ctx);
  if (!imported)
    return failure();
  // The whole model's count: no parallel degree splits it (--tp and the run
  // options do not change it).
  tshape::model::ModelConfig c = imported->first;
  c.parallel = tshape::model::Parallelism();
  std::optional<tshape::model::ParamCount> p =
      tshape::model::countParameters(c);
  if (!p)
    return emitError(FileLineColLoc::get(
               ctx,
               sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                   ->getBufferIdentifier(),
               0, 0))
           << "the parameter count overflows 64-bit arithmetic";
  auto billions = [](int64_t n) {
    return llvm::formatv("{0:F2}B", static_cast<double>(n) / 1e9).str();
  };
  os << "model_type: " << c.modelType << "\n"
     << "total: " << p->total << " (" << billions(p->total) << ")\n"
     << "active: " << p->active << " (" << billions(p->active) << ")\n"
     << "active_without_embedding: " << p->active - p->embedding << " ("
     << billions(p->active - p->embedding) << ")\n"
     << "embedding: " << p->embedding << "\n"
     << "lm_head: " << p->lmHead
     << (c.tiedEmbeddings ? " (tied: the final norm's gain only)"
                          : " (untied, with the final norm's gain)")
     << "\n"
     << "layers: " << p->total - p->embedding - p->lmHead << "\n";
  return success();
}
} // namespace

int main(int argc, char **argv) {
  TranslateToMLIRRegistration importReg(
      "import-hf-config",
      "import a Hugging Face config.json as tshape IR (see --seq, "
      "--microbatch, --tp, --ep, --dtype, --name, --phase, --batch, --context, "
      "--chunk, --draft-tokens, --kv-cache-dtype, --precision)",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *ctx) {
        return importHF(sourceMgr, ctx);
      },
      [](DialectRegistry &registry) {
        registry.insert<tshape::TShapeDialect, func::FuncDialect>();
      });
  TranslateRegistration paramsReg(
      "hf-config-params",
      "import a Hugging Face config.json and print its parameter count "
      "(total, active per token, embedding table, LM head; the import "
      "options apply)",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         llvm::raw_ostream &os, MLIRContext *ctx) {
        ctx->loadDialect<tshape::TShapeDialect, func::FuncDialect>();
        return printHFParams(*sourceMgr, os, ctx);
      });
  TranslateFromMLIRRegistration exportReg(
      "export-hf-config",
      "write the tshape model as a Hugging Face config.json (see --base, "
      "--model-type, --megatron)",
      [](Operation *op, llvm::raw_ostream &os) { return exportHF(op, os); },
      [](DialectRegistry &registry) {
        registry.insert<tshape::TShapeDialect, func::FuncDialect>();
      });
  // --help shows the import and export options, the translations and
  // mlirTranslateMain's file options; LLVM's options, and MLIR's printing
  // and timing options (registered here first so that they are hidden
  // too), stay under --help-hidden.
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerDefaultTimingManagerCLOptions();
  tshape::showOnlyOwnOptions({&importCat, &exportCat});
  return failed(mlirTranslateMain(
      argc, argv,
      "tshape-translate: Hugging Face config.json <-> tshape IR\n\n"
      "  tshape-translate --import-hf-config config.json [--seq N] "
      "[--microbatch N] [--tp N] [--ep N] [--phase=train|prefill|decode] -o model.mlir\n"
      "  tshape-translate --export-hf-config model.mlir [--base "
      "config.json] [--megatron]\n"
      "  tshape-translate --hf-config-params config.json   (the parameter "
      "count)\n\n"
      "See docs/importer.md."));
}
