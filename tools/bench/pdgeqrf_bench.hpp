#pragma once

namespace switchyard::bench {

// `switchyard bench pdgeqrf`: ScaLAPACK's pdgeqrf under mpirun, alone and with Switchyard
// preloaded, on 2 and 4 ranks.
int pdgeqrf_main(int argc, char** argv);

}  // namespace switchyard::bench
