// CFD: explicit finite-volume Euler solver on an unstructured mesh of cells with four
// faces each (Rodinia cfd / euler3d structure).
//
// Stands in for CFD (CFD Solver, Rodinia) of CAPRI Table 2, non-divergent. Conserved
// variables per cell (density, momentum x/y/z, energy) are stored structure-of-arrays,
// var[v * nelr + cell]; the mesh gives, per cell and face, the neighbour cell (or -1
// for a wall, -2 for the far field) and the face normal (area-scaled).
//  * cfd_step_factor: local time step from the cell's area, speed and speed of sound;
//  * cfd_flux: per cell, a loop over its 4 faces gathering the neighbour's variables
//    (irregular loads) and accumulating a central flux plus artificial dissipation; a
//    wall face adds only the pressure force, a far-field face uses the free stream. Few
//    cells touch a boundary, so warps rarely diverge;
//  * cfd_time_step: one Runge-Kutta stage, var = old + step / (RK + 1 - stage) * flux.

#define NVAR 5
#define NNB 4
#define GAMMA 1.4f
#define SMOOTHING 0.2f

__constant__ float c_far[NVAR];   // free-stream density, momentum x/y/z, energy

struct Flow {
    float rho, mx, my, mz, e;
};

__device__ __forceinline__ Flow load_flow(const float* __restrict__ var, int cell, int nelr)
{
    Flow f;
    f.rho = var[cell];
    f.mx = var[nelr + cell];
    f.my = var[2 * nelr + cell];
    f.mz = var[3 * nelr + cell];
    f.e = var[4 * nelr + cell];
    return f;
}

__device__ __forceinline__ float pressure_of(const Flow& f, float vx, float vy, float vz)
{
    const float speed_sqd = vx * vx + vy * vy + vz * vz;
    return (GAMMA - 1.0f) * (f.e - 0.5f * f.rho * speed_sqd);
}

extern "C" __global__ void cfd_step_factor(const float* __restrict__ var,
                                           const float* __restrict__ areas,
                                           float* __restrict__ step, int nelr)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nelr) {
        return;
    }
    const Flow f = load_flow(var, i, nelr);
    const float vx = f.mx / f.rho, vy = f.my / f.rho, vz = f.mz / f.rho;
    const float p = pressure_of(f, vx, vy, vz);
    const float sound = sqrtf(GAMMA * p / f.rho);
    const float speed = sqrtf(vx * vx + vy * vy + vz * vz);
    step[i] = 0.5f / (sqrtf(areas[i]) * (speed + sound));
}

extern "C" __global__ void cfd_flux(const float* __restrict__ var,
                                    const int* __restrict__ neighbours,
                                    const float* __restrict__ normals,
                                    float* __restrict__ flux, int nelr)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nelr) {
        return;
    }
    const Flow a = load_flow(var, i, nelr);
    const float ax = a.mx / a.rho, ay = a.my / a.rho, az = a.mz / a.rho;
    const float pa = pressure_of(a, ax, ay, az);
    const float ca = sqrtf(GAMMA * pa / a.rho);
    const float sa = sqrtf(ax * ax + ay * ay + az * az);
    const float ha = a.e + pa;     // energy flux per unit velocity

    float f_rho = 0.0f, f_mx = 0.0f, f_my = 0.0f, f_mz = 0.0f, f_e = 0.0f;
    for (int face = 0; face < NNB; face++) {
        const int nb = neighbours[face * nelr + i];
        const float nx = normals[(face * 3 + 0) * nelr + i];
        const float ny = normals[(face * 3 + 1) * nelr + i];
        const float nz = normals[(face * 3 + 2) * nelr + i];
        if (nb == -1) {
            // wall: only the pressure force on the momentum
            f_mx += nx * pa;
            f_my += ny * pa;
            f_mz += nz * pa;
            continue;
        }
        Flow b;
        if (nb >= 0) {
            b = load_flow(var, nb, nelr);
        } else {
            b.rho = c_far[0]; b.mx = c_far[1]; b.my = c_far[2]; b.mz = c_far[3]; b.e = c_far[4];
        }
        const float bx = b.mx / b.rho, by = b.my / b.rho, bz = b.mz / b.rho;
        const float pb = pressure_of(b, bx, by, bz);
        const float hb = b.e + pb;
        if (nb >= 0) {
            // artificial dissipation between interior neighbours
            const float cb = sqrtf(GAMMA * pb / b.rho);
            const float sb = sqrtf(bx * bx + by * by + bz * bz);
            const float len = sqrtf(nx * nx + ny * ny + nz * nz);
            const float d = -len * SMOOTHING * 0.5f * (sa + sb + ca + cb);
            f_rho += d * (a.rho - b.rho);
            f_mx += d * (a.mx - b.mx);
            f_my += d * (a.my - b.my);
            f_mz += d * (a.mz - b.mz);
            f_e += d * (a.e - b.e);
        }
        // central flux: half the sum of both cells' fluxes through the face
        const float una = ax * nx + ay * ny + az * nz;   // normal velocity, cell
        const float unb = bx * nx + by * ny + bz * nz;   // normal velocity, neighbour
        f_rho += 0.5f * (a.rho * una + b.rho * unb);
        f_mx += 0.5f * (a.mx * una + pa * nx + b.mx * unb + pb * nx);
        f_my += 0.5f * (a.my * una + pa * ny + b.my * unb + pb * ny);
        f_mz += 0.5f * (a.mz * una + pa * nz + b.mz * unb + pb * nz);
        f_e += 0.5f * (ha * una + hb * unb);
    }
    flux[i] = f_rho;
    flux[nelr + i] = f_mx;
    flux[2 * nelr + i] = f_my;
    flux[3 * nelr + i] = f_mz;
    flux[4 * nelr + i] = f_e;
}

extern "C" __global__ void cfd_time_step(const float* __restrict__ old_var,
                                         const float* __restrict__ step,
                                         const float* __restrict__ flux,
                                         float* __restrict__ var, int nelr, float rk_divisor)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nelr) {
        return;
    }
    const float factor = step[i] / rk_divisor;
    for (int v = 0; v < NVAR; v++) {
        var[v * nelr + i] = old_var[v * nelr + i] + factor * flux[v * nelr + i];
    }
}
