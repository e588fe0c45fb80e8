#include "mpi_runtime.hpp"

#include <dlfcn.h>

#include <climits>
#include <cstring>

namespace switchyard::scalapack {
namespace {

// Open MPI's C ABI: every handle is a pointer, the predefined ones the addresses of its
// exported objects (MPI_BYTE is &ompi_mpi_byte); MPI_Fint is int; MPI_SUCCESS is 0.
using Handle = void*;
using InitializedFn = int(int* flag);
using LibraryVersionFn = int(char* version, int* length);
using CommF2cFn = Handle(int fortran_comm);
using CommRankFn = int(Handle comm, int* rank);
using AllgatherFn = int(const void* send, int send_count, Handle send_type, void* receive,
                        int receive_count, Handle receive_type, Handle comm);
// The Fortran BLACS: every argument by reference.
using BlacsGetFn = void(const int* context, const int* what, int* value);
using BlacsGridinfoFn = void(const int* context, int* nprow, int* npcol, int* myrow, int* mycol);

constexpr int kContextCommunicator = 10;  // BLACS_GET's WHAT for the context's communicator
constexpr int kSuccess = 0;
// Above any implementation's MPI_MAX_LIBRARY_VERSION_STRING (Open MPI 256, MPICH 8192).
constexpr int kVersionBytes = 8192;

struct Symbols {
  InitializedFn* initialized = nullptr;
  InitializedFn* finalized = nullptr;
  CommF2cFn* comm_f2c = nullptr;
  CommRankFn* comm_rank = nullptr;
  CommRankFn* comm_size = nullptr;
  AllgatherFn* allgather = nullptr;
  Handle byte = nullptr;
  BlacsGetFn* blacs_get = nullptr;
  BlacsGridinfoFn* blacs_gridinfo = nullptr;
  const char* missing = nullptr;  // why they cannot be used, or null
};

template <class Fn>
Fn* find(const char* name) {
  return reinterpret_cast<Fn*>(dlsym(RTLD_DEFAULT, name));
}

Symbols resolve() {
  Symbols s;
  s.blacs_get = find<BlacsGetFn>("blacs_get_");
  s.blacs_gridinfo = find<BlacsGridinfoFn>("blacs_gridinfo_");
  if (!s.blacs_get || !s.blacs_gridinfo) {
    s.missing = "the program has no BLACS (blacs_get_, blacs_gridinfo_) in its global scope";
    return s;
  }
  auto* version = find<LibraryVersionFn>("MPI_Get_library_version");
  if (!version) {
    s.missing = "the program has no MPI library in its global scope";
    return s;
  }
  // MPI_Get_library_version may be called before MPI_Init.
  static char text[kVersionBytes];
  int length = 0;
  if (version(text, &length) != kSuccess || std::strncmp(text, "Open MPI", 8) != 0) {
    s.missing = "the program's MPI is not Open MPI, the one MPI whose C ABI Switchyard knows";
    return s;
  }
  s.initialized = find<InitializedFn>("MPI_Initialized");
  s.finalized = find<InitializedFn>("MPI_Finalized");
  s.comm_f2c = find<CommF2cFn>("MPI_Comm_f2c");
  s.comm_rank = find<CommRankFn>("MPI_Comm_rank");
  s.comm_size = find<CommRankFn>("MPI_Comm_size");
  s.allgather = find<AllgatherFn>("MPI_Allgather");
  s.byte = dlsym(RTLD_DEFAULT, "ompi_mpi_byte");
  if (!s.initialized || !s.finalized || !s.comm_f2c || !s.comm_rank || !s.comm_size ||
      !s.allgather || !s.byte) {
    s.missing = "the program's Open MPI lacks a function Switchyard calls";
  }
  return s;
}

const Symbols& symbols() {
  static const Symbols found = resolve();
  return found;
}

}  // namespace

const char* mpi_unusable() {
  const Symbols& s = symbols();
  if (s.missing) return s.missing;
  int initialized = 0, finalized = 0;
  if (s.initialized(&initialized) != kSuccess || !initialized) return "MPI is not initialized";
  if (s.finalized(&finalized) != kSuccess || finalized) return "MPI is finalized";
  return nullptr;
}

Grid grid_info(int context) {
  Grid g{-1, -1, -1, -1};
  symbols().blacs_gridinfo(&context, &g.nprow, &g.npcol, &g.myrow, &g.mycol);
  return g;
}

const char* GridCommunicator::open(int context, const Grid& grid) {
  const Symbols& s = symbols();
  int fortran_comm = 0;
  s.blacs_get(&context, &kContextCommunicator, &fortran_comm);
  comm_ = s.comm_f2c(fortran_comm);
  int rank = -1;
  if (!comm_ || s.comm_rank(comm_, &rank) != kSuccess || s.comm_size(comm_, &size_) != kSuccess) {
    return "the BLACS context's communicator cannot be had";
  }
  if (size_ != grid.nprow * grid.npcol || rank != grid.myrow * grid.npcol + grid.mycol) {
    return "the BLACS context's communicator is not laid out as its grid";
  }
  return nullptr;
}

bool GridCommunicator::all_gather(const void* mine, void* all, std::size_t bytes) const {
  if (bytes > std::size_t(INT_MAX)) return false;
  const Symbols& s = symbols();
  return s.allgather(mine, int(bytes), s.byte, all, int(bytes), s.byte, comm_) == kSuccess;
}

}  // namespace switchyard::scalapack
