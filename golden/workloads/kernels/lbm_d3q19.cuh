// D3Q19 lattice definitions shared by LBM (lbm.cu) and the G-Scalar LBM study's kernel
// variants (golden/mechanisms/gscalar/lbm_kernels/): flags, relaxation and weights, the
// lid velocity, the direction table, the pull-streaming gather and the moment sums.
// The kernels that include it differ only in where they gather, branch and store.

#ifndef LBM_D3Q19_CUH
#define LBM_D3Q19_CUH

#define OBSTACLE 1u
#define ACCEL 2u

// relaxation and equilibrium weights (rest, axis, diagonal) of D3Q19
#define OMEGA 1.95f
#define W_REST (1.0f / 3.0f)
#define W_AXIS (1.0f / 18.0f)
#define W_DIAG (1.0f / 36.0f)
// the lid velocity imposed on ACCEL cells
#define LID_UX 0.005f
#define LID_UY 0.002f
#define LID_UZ 0.000f

// direction index, velocity (ex, ey, ez), weight and opposite, one line per direction
#define D3Q19(X)                               \
    X(C, 0, 0, 0, W_REST, C)                  \
    X(N, 0, 1, 0, W_AXIS, S)                  \
    X(S, 0, -1, 0, W_AXIS, N)                 \
    X(E, 1, 0, 0, W_AXIS, W)                  \
    X(W, -1, 0, 0, W_AXIS, E)                 \
    X(T, 0, 0, 1, W_AXIS, B)                  \
    X(B, 0, 0, -1, W_AXIS, T)                 \
    X(NE, 1, 1, 0, W_DIAG, SW)                \
    X(NW, -1, 1, 0, W_DIAG, SE)               \
    X(SE, 1, -1, 0, W_DIAG, NW)               \
    X(SW, -1, -1, 0, W_DIAG, NE)              \
    X(NT, 0, 1, 1, W_DIAG, SB)                \
    X(NB, 0, 1, -1, W_DIAG, ST)               \
    X(ST, 0, -1, 1, W_DIAG, NB)               \
    X(SB, 0, -1, -1, W_DIAG, NT)              \
    X(ET, 1, 0, 1, W_DIAG, WB)                \
    X(EB, 1, 0, -1, W_DIAG, WT)               \
    X(WT, -1, 0, 1, W_DIAG, EB)               \
    X(WB, -1, 0, -1, W_DIAG, ET)

#define DIR_ENUM(d, ex, ey, ez, w, opp) DIR_##d,
enum { D3Q19(DIR_ENUM) FLAGS };

// the population of direction d arriving at `cell`: read from the upstream neighbour
#define PULL(d, ex, ey, ez, w, opp) \
    float f_##d = src[DIR_##d * field + cell - (ex) - (ey) * row - (ez) * plane];
// signed sum without multiplies: acc += e * v for e in {-1, 0, 1} known at compile time
// (accumulators start at -0.0f, the identity of float addition, so no add of zero remains)
#define ACC(acc, e, v)     \
    if ((e) > 0) {         \
        acc += (v);        \
    } else if ((e) < 0) {  \
        acc -= (v);        \
    }
#define MOMENTS(d, ex, ey, ez, w, opp) \
    rho += f_##d;                      \
    ACC(ux, ex, f_##d) ACC(uy, ey, f_##d) ACC(uz, ez, f_##d)

#endif  // LBM_D3Q19_CUH
