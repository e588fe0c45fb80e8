// switchyard bench qr: economic QR (xGEQRF then xORGQR) and QR least squares (xGELS) on
// tall-skinny matrices, against cuSOLVER and the fallback library.
#pragma once

namespace switchyard::bench {

int qr_main(int argc, char** argv);

}  // namespace switchyard::bench
