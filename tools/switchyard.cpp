// The switchyard command.
//
//   switchyard run [--trace[=PATH]] [--report] [--] PROGRAM [ARGS...]
//       runs PROGRAM with libswitchyard.so preloaded in front of its own
//       BLAS/LAPACK; --trace writes one line per call (to stderr or PATH),
//       --report prints the table of calls and routes when PROGRAM exits.
//   switchyard info
//       version, fallback library, devices seen, configuration in force.
//   switchyard calibrate [--fallback LIBRARY]
//       times the fallback library and the devices' start-up on this host, for the router.
//   switchyard bench NAME [OPTIONS]
//       runs a benchmark (switchyard-bench, installed beside this program
//       in builds with CUDA).
//   switchyard tune [--precision d|s] [--device N] [--budget MINUTES]
//       tunes the gemm route's OpenCL kernel for a device (switchyard-tune,
//       installed beside this program in builds with OpenCL).
//   switchyard gen-fem NX NY NZ [...]
//       the FEM Poisson test problem of the sparse CG (tools/gen_fem.cpp).
//   switchyard --help, switchyard help [COMMAND], switchyard COMMAND --help
//       the usage above, or one command's.
#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cg_commands.hpp"
#include "switchyard.h"

namespace {

int usage(FILE* out, int status) {
  std::fputs(
      "usage: switchyard run [--trace[=PATH]] [--report] [--] PROGRAM [ARGS...]\n"
      "       switchyard info\n"
      "       switchyard calibrate [--fallback LIBRARY]\n"
      "       switchyard bench tsqr|qr|cg|gemm|routing|transfers|pdgeqrf [OPTIONS]\n"
      "       switchyard tune [--precision d|s] [--device N] [--budget MINUTES]\n"
      "       switchyard gen-fem NX NY NZ [--mtx=PATH] [--solve] [...]\n"
      "\n"
      "run   runs PROGRAM with Switchyard preloaded in front of its BLAS/LAPACK\n"
      "      --trace[=PATH]  one line per call, on stderr or appended to PATH\n"
      "      --report        a table of calls, routes, time and GFLOP/s at exit\n"
      "info  version, fallback library, CUDA devices, OpenCL platforms, settings\n"
      "calibrate  times the fallback (LIBRARY, else SWITCHYARD_FALLBACK, else the LAPACK\n"
      "      this program is linked with), the CPU TSQR and the devices' start-up here, and\n"
      "      stores the figures the router weighs calls by\n"
      "bench benchmarks against their anchors (switchyard bench NAME --help)\n"
      "tune  finds the fastest gemm kernel for an OpenCL device; resumable\n"
      "gen-fem  the sparse CG's FEM Poisson problem: build, write, solve\n"
      "\n"
      "switchyard COMMAND --help shows a command's options\n",
      out);
  return status;
}

bool is_help(const std::string& arg) { return arg == "--help" || arg == "-h"; }

// What `switchyard COMMAND --help` prints; gen-fem's is in gen_fem.cpp. bench and tune are
// answered here, so that their help shows in builds without their programs.
const char* command_help(const std::string& command) {
  if (command == "run") {
    return "usage: switchyard run [--trace[=PATH]] [--report] [--] PROGRAM [ARGS...]\n"
           "Runs PROGRAM with libswitchyard preloaded in front of its own BLAS/LAPACK\n"
           "(and of any LD_PRELOAD already set).\n"
           "  --trace[=PATH]  one line per call, its route and why, on stderr or appended\n"
           "                  to PATH (SWITCHYARD_TRACE)\n"
           "  --report        a table of calls, routes, time and GFLOP/s at exit\n"
           "                  (SWITCHYARD_REPORT=1)\n"
           "  --              ends the options\n"
           "example: switchyard run --report -- ./solver input.dat\n";
  }
  if (command == "info") {
    return "usage: switchyard info\n"
           "Prints the version, the fallback libraries found, the CUDA devices and OpenCL\n"
           "platforms seen (or why there are none), the gemm route's OpenCL device and\n"
           "tuning entries, and each SWITCHYARD_* setting in force and where it came from.\n"
           "example: SWITCHYARD_ROUTE_DGEMM=fallback switchyard info\n";
  }
  if (command == "calibrate") {
    return "usage: switchyard calibrate [--fallback LIBRARY]\n"
           "Times the fallback on each class of call (gemm, syrk, the QR routines), the\n"
           "CPU TSQR on the same QR shapes, and a cold start of each device, and stores the\n"
           "figures the router weighs calls by in the cache directory, for that library\n"
           "and thread count (OPENBLAS_NUM_THREADS, else OMP_NUM_THREADS). Run it once per\n"
           "machine (about 30 s with OpenBLAS, 2 minutes with reference LAPACK).\n"
           "  --fallback LIBRARY  the BLAS/LAPACK to time (default: SWITCHYARD_FALLBACK,\n"
           "                      else the LAPACK this program is linked with)\n"
           "example: switchyard calibrate --fallback /usr/lib/x86_64-linux-gnu/libopenblas.so.0\n";
  }
  if (command == "bench") {
    return "usage: switchyard bench NAME [OPTIONS]   (switchyard bench NAME --help: its options)\n"
           "Runs a benchmark, each figure beside an anchor measured in the same run\n"
           "(switchyard-bench, installed beside this program in builds with CUDA):\n"
           "  tsqr       geqrf against cuSOLVER and the fallback, with the memory and PCIe floors\n"
           "  qr         geqrf + orgqr, economic QR and dgels, end to end\n"
           "  cg         the sparse CG's SpMV and solve against cuSPARSE + cuBLAS\n"
           "  gemm       the gemm route against cuBLAS, CLBlast and NVBLAS\n"
           "  routing    the router's choice against the other route, cold and warm\n"
           "  transfers  host-device transfer and pinning rates\n"
           "  pdgeqrf    ScaLAPACK's pdgeqrf under mpirun, alone and with Switchyard preloaded\n"
           "example: switchyard bench routing --fallback libopenblas.so.0 --quick\n";
  }
  if (command == "tune") {
    return "usage: switchyard tune [--precision d|s] [--device N] [--budget MINUTES]\n"
           "Finds the fastest gemm kernel for an OpenCL device: screens the kernel variants\n"
           "at two sizes, refines the best 50 over a sweep of sizes, and writes the best to\n"
           "gemm-tuning.txt in the cache directory; a second run resumes where the first\n"
           "stopped (switchyard-tune, installed beside this program in builds with OpenCL).\n"
           "  --precision d|s    double (default) or single\n"
           "  --device N         the OpenCL device, as SWITCHYARD_OPENCL_DEVICE names it\n"
           "  --budget MINUTES   how long to search (default 30)\n"
           "example: switchyard tune --precision d --budget 10\n";
  }
  return nullptr;
}

// The file this process loaded libswitchyard from: the one to preload.
std::string library_path() {
  Dl_info where{};
  if (dladdr(reinterpret_cast<const void*>(&switchyard_version), &where) && where.dli_fname) {
    return where.dli_fname;
  }
  return "libswitchyard.so";
}

int run(int argc, char** argv) {
  int i = 0;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "--report") {
      setenv("SWITCHYARD_REPORT", "1", 1);
    } else if (arg == "--trace") {
      setenv("SWITCHYARD_TRACE", "stderr", 1);
    } else if (arg.rfind("--trace=", 0) == 0) {
      setenv("SWITCHYARD_TRACE", arg.c_str() + 8, 1);
    } else if (arg.rfind("-", 0) == 0) {
      std::fprintf(stderr, "switchyard run: unknown option %s\n", arg.c_str());
      return usage(stderr, 2);
    } else {
      break;
    }
  }
  if (i >= argc) {
    std::fprintf(stderr, "switchyard run: no program given\n");
    return usage(stderr, 2);
  }
  std::string preload = library_path();
  if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing) {
    preload += ":" + std::string(existing);
  }
  setenv("LD_PRELOAD", preload.c_str(), 1);
  execvp(argv[i], argv + i);
  std::fprintf(stderr, "switchyard run: cannot run %s: %s\n", argv[i], std::strerror(errno));
  return 127;
}

// switchyard calibrate [--fallback LIBRARY]: the figures belong to the fallback a program gets
// under LD_PRELOAD, so a named library is timed as one: this program runs again with
// libswitchyard and the library preloaded in that order, and the library's own internal calls
// resolve within it (loaded privately, its LAPACK would call the reference LAPACK this program
// is linked with).
int calibrate(int argc, char** argv, char* self) {
  std::string library;
  if (const char* f = std::getenv("SWITCHYARD_FALLBACK"); f && *f) library = f;
  if (argc == 2 && std::string(argv[0]) == "--fallback") {
    library = argv[1];
  } else if (argc != 0) {
    return usage(stderr, 2);
  }
  if (library.empty()) return switchyard_calibrate(stderr);
  unsetenv("SWITCHYARD_FALLBACK");
  const std::string preload = library_path() + ":" + library;
  setenv("LD_PRELOAD", preload.c_str(), 1);
  char calibrate_command[] = "calibrate";
  char* again[] = {self, calibrate_command, nullptr};
  execv("/proc/self/exe", again);
  std::fprintf(stderr, "switchyard calibrate: cannot run again with %s preloaded: %s\n",
               library.c_str(), std::strerror(errno));
  return 127;
}

}  // namespace

// The benchmarks link the anchors' CUDA libraries, and the tuner the
// library's OpenCL internals, which this program must not need: they are
// separate programs in the same directory. `needs` says what a build lacks
// when the program is not there.
int sibling(char** argv, const char* name, const char* needs) {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string program = name;
  if (length > 0) {
    self[length] = 0;
    std::string dir(self);
    program = dir.substr(0, dir.rfind('/') + 1) + program;
  }
  argv[0] = const_cast<char*>(program.c_str());
  execv(program.c_str(), argv);
  std::fprintf(stderr, "switchyard: cannot run %s: %s (%s)\n", program.c_str(),
               std::strerror(errno), needs);
  return 127;
}

int main(int argc, char** argv) {
  if (argc < 2) return usage(stderr, 2);
  std::string command = argv[1];
  if (argc == 2 && (command == "help" || is_help(command))) return usage(stdout, 0);
  char help_option[] = "--help";
  if (argc == 3 && command == "help") {  // switchyard help COMMAND: COMMAND --help
    command = argv[2];
    argv[2] = help_option;
  }
  if (argc >= 3 && is_help(argv[2])) {
    if (const char* help = command_help(command)) {
      std::fputs(help, stdout);
      return 0;
    }
  }
  if (command == "run") return run(argc - 2, argv + 2);
  if (command == "bench") {
    return sibling(argv + 1, "switchyard-bench", "benchmarks need a build with CUDA");
  }
  if (command == "tune") return sibling(argv + 1, "switchyard-tune", "tuning needs a build with OpenCL");
  if (command == "info") {
    if (argc > 2) {
      std::fprintf(stderr, "switchyard info: unknown option %s\n", argv[2]);
      return usage(stderr, 2);
    }
    switchyard_print_info(stdout);
    return 0;
  }
  if (command == "calibrate") return calibrate(argc - 2, argv + 2, argv[0]);
  if (command == "gen-fem") return gen_fem_command(argc - 2, argv + 2);
  std::fprintf(stderr, "switchyard: unknown command %s\n", command.c_str());
  return usage(stderr, 2);
}
