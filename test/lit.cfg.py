# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Telar"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".onnxtext", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.telar_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "lib",
                   "unittests"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%telar_src", config.telar_src_root))
config.substitutions.append(("%telar_obj", config.telar_obj_root))
# The project's Python (the venv made by scripts/setup-python.sh).
venv_python = os.path.join(config.telar_src_root, ".venv", "bin", "python")
config.substitutions.append(
    ("%python", venv_python if os.path.exists(venv_python) else config.python_executable))

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()

tool_dirs = [config.telar_tools_dir, config.llvm_tools_dir]
tools = ["telar-opt", "telarc", "telar-run"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
# Numeric checks of the lowering: run lowered IR with MLIR's JIT runner and
# its printing utilities (printMemrefF32 & co).
_libs = os.path.join(config.llvm_tools_dir, "..", "lib")
config.substitutions.append((
    "%mlir_runner",
    os.path.join(config.llvm_tools_dir, "mlir-runner") +
    " -entry-point-result=void -shared-libs=" +
    os.path.join(_libs, "libmlir_runner_utils.so") + "," +
    os.path.join(_libs, "libmlir_c_runner_utils.so") + "," +
    os.path.join(_libs, "libomp.so")))
# The pipeline options for such checks: no runtime library, one thread.
config.substitutions.append((
    "%lower_standalone",
    "--telar-lower-to-llvm='library-calls=0 runtime-allocator=0 parallel=0'"))
# The same with every loop nest on OpenMP threads, however small.
config.substitutions.append((
    "%lower_threaded",
    "--telar-lower-to-llvm='library-calls=0 runtime-allocator=0 min-parallel-work=1'"))
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# End-to-end tests need the project's Python with onnx/onnxruntime/torch.
if os.path.exists(venv_python):
    config.available_features.add("telar-python")
