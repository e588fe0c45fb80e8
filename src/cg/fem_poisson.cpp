#include "cg/fem_poisson.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>

#include "cg/team.hpp"

namespace switchyard::cg {
namespace {

// Entries of the assembled 1-D matrices of linear elements on N nodes with
// spacing h, between nodes i and j (|i - j| <= 1): a node has one element
// at each end of the line and two inside.
struct Line {
  int nodes;
  double h;
  int elements_at(int i) const { return (i > 0) + (i < nodes - 1); }
  double stiffness(int i, int j) const { return i == j ? elements_at(i) / h : -1.0 / h; }
  double mass(int i, int j) const { return i == j ? elements_at(i) * h / 3.0 : h / 6.0; }
  double load(int i) const { return elements_at(i) * h / 2.0; }  // integral of the hat function
};

struct Problem {
  Line x, y, z;
  explicit Problem(const FemGrid& g)
      : x{g.nx, g.lx / (g.nx - 1)}, y{g.ny, g.ly / (g.ny - 1)}, z{g.nz, g.lz / (g.nz - 1)} {}

  // a(i, j) for nodes (ix, iy, iz), (jx, jy, jz) at most one apart in each
  // direction.
  double entry(int ix, int iy, int iz, int jx, int jy, int jz) const {
    return x.stiffness(ix, jx) * y.mass(iy, jy) * z.mass(iz, jz) +
           x.mass(ix, jx) * y.stiffness(iy, jy) * z.mass(iz, jz) +
           x.mass(ix, jx) * y.mass(iy, jy) * z.stiffness(iz, jz);
  }
  static bool dirichlet(int ix) { return ix == 0; }
};

// The 13 neighbours of a node that come before it in node order.
struct Neighbour {
  int dx, dy, dz;  // the neighbour is node (ix - dx, iy - dy, iz - dz)
  Index offset;    // dx + nx dy + nx ny dz > 0
};

std::vector<Neighbour> lower_neighbours(const FemGrid& g) {
  std::vector<Neighbour> out;
  for (int dz = -1; dz <= 1; ++dz) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        const Index m = dx + Index(g.nx) * dy + Index(g.nx) * g.ny * dz;
        if (m > 0) out.push_back({dx, dy, dz, m});
      }
    }
  }
  return out;
}

}  // namespace

bool fem_grid_valid(const FemGrid& g) {
  return g.nx >= 2 && g.ny >= 2 && g.nz >= 2 && g.nodes() <= INT_MAX && g.lx > 0 && g.ly > 0 &&
         g.lz > 0;
}

template <class V>
DiaHalf<V> fem_poisson_dia(const FemGrid& g, int threads) {
  const Problem p(g);
  const std::vector<Neighbour> neighbours = lower_neighbours(g);
  DiaHalf<V> dia;
  dia.n = int(g.nodes());
  // On grids with nx or ny = 2 two neighbour kinds can share an offset; no
  // row has both, so they share the stored diagonal.
  for (const Neighbour& nb : neighbours) dia.offsets.push_back(int(nb.offset));
  std::sort(dia.offsets.begin(), dia.offsets.end());
  dia.offsets.erase(std::unique(dia.offsets.begin(), dia.offsets.end()), dia.offsets.end());
  std::vector<int> slot;
  for (const Neighbour& nb : neighbours) {
    slot.push_back(int(std::lower_bound(dia.offsets.begin(), dia.offsets.end(), nb.offset) -
                       dia.offsets.begin()));
  }
  const std::size_t n = std::size_t(dia.n);
  dia.diag.resize(n);
  dia.lower.resize(dia.offsets.size() * n);

  run_team(threads, [](int) {}, [&](int t, int team) {
    const Index r0 = Index(n) * t / team, r1 = Index(n) * (t + 1) / team;
    for (int d = 0; d < dia.ndiag(); ++d) {
      std::fill(dia.lower.begin() + std::ptrdiff_t(std::size_t(d) * n + std::size_t(r0)),
                dia.lower.begin() + std::ptrdiff_t(std::size_t(d) * n + std::size_t(r1)), V(0));
    }
    for (Index i = r0; i < r1; ++i) {
      const int ix = int(i % g.nx), iy = int(i / g.nx % g.ny), iz = int(i / (Index(g.nx) * g.ny));
      dia.diag[std::size_t(i)] = V(p.entry(ix, iy, iz, ix, iy, iz));
      for (std::size_t k = 0; k < neighbours.size(); ++k) {
        const Neighbour& nb = neighbours[k];
        const int jx = ix - nb.dx, jy = iy - nb.dy, jz = iz - nb.dz;
        if (jx < 0 || jx >= g.nx || jy < 0 || jy >= g.ny || jz < 0 || jz >= g.nz) continue;
        const bool fixed = Problem::dirichlet(ix) || Problem::dirichlet(jx);
        dia.lower[std::size_t(slot[k]) * n + std::size_t(i)] =
            fixed ? V(0) : V(p.entry(ix, iy, iz, jx, jy, jz));
      }
    }
  });
  return dia;
}

std::vector<double> fem_poisson_rhs(const FemGrid& g) {
  const Problem p(g);
  std::vector<double> b(std::size_t(g.nodes()), 0.0);
  // The Neumann flux 1 on the face x = lx: the integral of each face node's
  // hat function there.
  const int ix = g.nx - 1;
  for (int iz = 0; iz < g.nz; ++iz) {
    for (int iy = 0; iy < g.ny; ++iy) {
      b[std::size_t(ix + Index(g.nx) * (iy + Index(g.ny) * iz))] = p.y.load(iy) * p.z.load(iz);
    }
  }
  return b;
}

std::vector<double> fem_poisson_solution(const FemGrid& g) {
  const double hx = g.lx / (g.nx - 1);
  std::vector<double> u(std::size_t(g.nodes()));
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = double(Index(i) % g.nx) * hx;
  return u;
}

template DiaHalf<double> fem_poisson_dia<double>(const FemGrid&, int);
template DiaHalf<float> fem_poisson_dia<float>(const FemGrid&, int);

}  // namespace switchyard::cg
