#pragma once

namespace switchyard::bench {

// `switchyard bench tsqr`: sgeqrf/dgeqrf through Switchyard's gpu route against cuSOLVER
// (device-resident) and against the fallback library (host-resident).
int tsqr_main(int argc, char** argv);

}  // namespace switchyard::bench
