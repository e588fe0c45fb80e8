#include "rank_threads.hpp"

#include <sched.h>

#include <cstdlib>
#include <thread>

namespace switchyard::scalapack {

int rank_threads(int bound_cpus, int machine_cpus,
                 const std::function<const char*(const char*)>& env) {
  if (bound_cpus >= 1 && bound_cpus < machine_cpus) return bound_cpus;
  for (const char* name :
       {"OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE", "MPI_LOCALNRANKS"}) {
    const char* value = env(name);
    const long ranks = value ? std::strtol(value, nullptr, 10) : 0;
    if (ranks >= 1) return machine_cpus / ranks >= 1 ? int(machine_cpus / ranks) : 1;
  }
  return machine_cpus >= 1 ? machine_cpus : 1;
}

int rank_threads() {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int bound = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
  return rank_threads(bound, int(std::thread::hardware_concurrency()),
                      [](const char* name) { return std::getenv(name); });
}

}  // namespace switchyard::scalapack
