// The MPI and the BLACS of the running program, found at run time in the process's global
// scope: libswitchyard.so links neither, since most programs have neither. The BLACS context
// gives its communicator through the Fortran BLACS_GET (WHAT = 10, the Fortran handle of the
// context's own communicator) and the C MPI_Comm_f2c; the C handles' types differ between MPI
// implementations (a pointer in Open MPI, an int in MPICH), so only an implementation whose
// ABI is known here is used: Open MPI.
#pragma once

#include <cstddef>

#include "distribution.hpp"

namespace switchyard::scalapack {

// Why the program's MPI and BLACS cannot be used, or null. Found once, except for whether MPI
// is initialized and not yet finalized, which is asked on every call.
const char* mpi_unusable();

// BLACS_GRIDINFO of a context (nprow = -1 when this process is not in its grid).
Grid grid_info(int context);

// The communicator behind a BLACS context.
class GridCommunicator {
 public:
  // Null, or why the context's communicator cannot be had or is not the grid BLACS describes
  // (rank myrow * npcol + mycol of nprow * npcol).
  const char* open(int context, const Grid& grid);

  int size() const { return size_; }

  // MPI_Allgather of `bytes` bytes from every rank, in rank order; false on an MPI error or a
  // count too large for one call.
  bool all_gather(const void* mine, void* all, std::size_t bytes) const;

 private:
  void* comm_ = nullptr;
  int size_ = 0;
};

}  // namespace switchyard::scalapack
