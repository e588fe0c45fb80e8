// The FEM Poisson test problem of the seed: -div grad u = 0 on the box
// [0,lx] x [0,ly] x [0,lz], trilinear hexahedral (Q1) Galerkin elements on
// an nx x ny x nz node grid (27-point coupling), node i = ix + nx (iy + ny iz).
// Boundaries: Dirichlet u = 0 on x = 0, Neumann du/dn = 1 on x = lx, and
// du/dn = 0 (natural) on the other four faces. The exact solution u = x is
// in the Q1 space, so the discrete solution is x at every node, to rounding.
//
// The matrix is built directly in half-storage DIA, in parallel over rows,
// each entry from the assembled 1-D stiffness K and mass M matrices
// (A = Kx My Mz + Mx Ky Mz + Mx My Kz, a tensor-product sum), so the largest
// grids never hold a CSR copy. Dirichlet rows and columns keep their
// diagonal and have their off-diagonal entries zeroed, so A stays
// symmetric and keeps its 13 lower diagonals.
#pragma once

#include <vector>

#include "cg/matrix.hpp"

namespace switchyard::cg {

struct FemGrid {
  int nx = 2, ny = 2, nz = 2;  // nodes per direction, each >= 2, product < 2^31
  double lx = 1.0, ly = 1.0, lz = 1.0;
  Index nodes() const { return Index(nx) * ny * nz; }
};

bool fem_grid_valid(const FemGrid& g);

template <class V>
DiaHalf<V> fem_poisson_dia(const FemGrid& g, int threads);

std::vector<double> fem_poisson_rhs(const FemGrid& g);
std::vector<double> fem_poisson_solution(const FemGrid& g);

}  // namespace switchyard::cg
