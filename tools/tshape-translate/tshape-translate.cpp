//===- tshape-translate.cpp - tshape import/export driver -----------------===//
//
// mlir-translate for tshape. --import-hf-config reads a Hugging Face
// config.json and writes tshape IR.
//
//===----------------------------------------------------------------------===//

#include "tshape/Dialect/TShape/IR/TShapeDialect.h"
#include "tshape/Import/HFConfig.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace {
llvm::cl::OptionCategory importCat("Hugging Face import options");
llvm::cl::opt<int64_t> seqOpt("seq",
                              llvm::cl::desc("sequence length s (default: 2048)"),
                              llvm::cl::init(2048), llvm::cl::cat(importCat));
llvm::cl::opt<int64_t>
    microbatchOpt("microbatch",
                  llvm::cl::desc("microbatch size b (default: 4)"),
                  llvm::cl::init(4), llvm::cl::cat(importCat));
llvm::cl::opt<int64_t>
    tpOpt("tp", llvm::cl::desc("tensor-parallel degree t (default: 1)"),
          llvm::cl::init(1), llvm::cl::cat(importCat));
llvm::cl::opt<std::string>
    dtypeOpt("dtype",
             llvm::cl::desc("element type: bf16, fp16, fp32, tf32 or fp8 "
                            "(default: bf16)"),
             llvm::cl::init("bf16"), llvm::cl::cat(importCat));
llvm::cl::opt<std::string>
    nameOpt("name",
            llvm::cl::desc("function name (default: the config file name without extension)"),
            llvm::cl::init(""), llvm::cl::cat(importCat));

OwningOpRef<Operation *> importHF(llvm::SourceMgr &sourceMgr,
                                  MLIRContext *ctx) {
  const llvm::MemoryBuffer *buf = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  std::string file = buf->getBufferIdentifier().str();
  auto at = [&](unsigned line, unsigned col) -> Location {
    return FileLineColLoc::get(ctx, file, line, col);
  };
  tshape::ImportOptions opts;
  auto dtype = tshape::model::parseDType(dtypeOpt);
  if (!dtype) {
    emitError(UnknownLoc::get(ctx))
        << "--dtype: unknown element type '" << dtypeOpt.getValue()
        << "' (expected bf16, fp16, fp32, tf32 or fp8)";
    return nullptr;
  }
  for (auto [name, v] : {std::pair<const char *, int64_t>{"--seq", seqOpt},
                         {"--microbatch", microbatchOpt},
                         {"--tp", tpOpt}})
    if (v <= 0) {
      emitError(UnknownLoc::get(ctx))
          << name << " must be positive, got " << v;
      return nullptr;
    }
  opts.dtype = *dtype;
  opts.seq = seqOpt;
  opts.microbatch = microbatchOpt;
  opts.tp = tpOpt;
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
    return nullptr;
  }
  OwningOpRef<ModuleOp> module =
      tshape::buildModelModule(ctx, *config, at(1, 1));
  if (failed(verify(*module)))
    return nullptr;
  return OwningOpRef<Operation *>(module.release());
}
} // namespace

int main(int argc, char **argv) {
  TranslateToMLIRRegistration importReg(
      "import-hf-config",
      "import a Hugging Face config.json as tshape IR (see --seq, "
      "--microbatch, --tp, --dtype, --name)",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *ctx) {
        return importHF(sourceMgr, ctx);
      },
      [](DialectRegistry &registry) {
        registry.insert<tshape::TShapeDialect, func::FuncDialect>();
      });
  return failed(mlirTranslateMain(argc, argv, "tshape translation tool"));
}
