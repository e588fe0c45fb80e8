// How many threads one MPI rank's share of a distributed factorization may use.
#pragma once

#include <functional>

namespace switchyard::scalapack {

// The CPUs the launcher bound this rank to, when it bound it to fewer than the machine has;
// else the machine's CPUs shared among the ranks on this node (OMPI_COMM_WORLD_LOCAL_SIZE,
// SLURM_NTASKS_PER_NODE or MPI_LOCALNRANKS); at least 1.
int rank_threads(int bound_cpus, int machine_cpus,
                 const std::function<const char*(const char*)>& env);

// rank_threads of this process.
int rank_threads();

}  // namespace switchyard::scalapack
