#pragma once

namespace switchyard::bench {

// switchyard bench transfers: the host side of streaming from pageable memory (pinning,
// host copies by thread count, host-to-device rates by piece size, pinning the pageable memory in
// place instead, the gemm route's upload).
int transfers_main(int argc, char** argv);

}  // namespace switchyard::bench
