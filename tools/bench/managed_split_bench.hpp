// switchyard bench tsqr --devices LIST, device-resident: xGEQRF and xORGQR of A in managed
// memory, on one device against split over LIST's devices where each device's share of A's rows
// lies on it.
#pragma once

#include <string>
#include <vector>

namespace switchyard::bench {

// In a child process of the bench with SWITCHYARD_DEVICES=devices; prints its table.
void managed_split_in_child(const std::string& devices, char precision, int m_lo, int m_hi,
                            const std::vector<int>& n, int repeat);

// The child's part (switchyard-bench tsqr --managed-split ...): the table, on the devices this
// process's SWITCHYARD_DEVICES names. Returns the exit status.
int managed_split(char precision, int m_lo, int m_hi, const std::vector<int>& n, int repeat);

}  // namespace switchyard::bench
