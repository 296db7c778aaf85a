// CP: Coulombic potential on a 2D slice of a lattice, in the structure of the CP
// (cenergy) benchmark of the GPGPU-Sim distribution (DARSIE Table 1, TB (16,8)).
//
// Atoms live in constant memory as float4 (x, y, dz^2, charge), where dz is the distance
// from the atom to the slice, precomputed by the host. Each 16x8 block covers
// (16*UNROLLX) x 8 lattice points; each thread accumulates the potential of UNROLLX points
// spaced 16 lattice cells apart in x (sharing dy and dz work between them), summing
// charge / distance over the atoms with rsqrtf. Large atom sets are processed in chunks
// of MAXATOMS, one launch per chunk, each adding into the energy grid.

#define UNROLLX 4
#define MAXATOMS 64

__constant__ float4 atominfo[MAXATOMS];

extern "C" __global__ void cenergy(int numatoms, float gridspacing, float *energygrid)
{
    const unsigned int xindex = blockIdx.x * blockDim.x * UNROLLX + threadIdx.x;
    const unsigned int yindex = blockIdx.y * blockDim.y + threadIdx.y;
    const unsigned int outaddr = gridDim.x * blockDim.x * UNROLLX * yindex + xindex;

    const float coory = gridspacing * yindex;
    const float coorx = gridspacing * xindex;
    const float spacing_coalesce = gridspacing * blockDim.x;

    float energy1 = 0.0f, energy2 = 0.0f, energy3 = 0.0f, energy4 = 0.0f;
    for (int atomid = 0; atomid < numatoms; atomid++) {
        const float dy = coory - atominfo[atomid].y;
        const float dyz2 = dy * dy + atominfo[atomid].z;
        const float dx1 = coorx - atominfo[atomid].x;
        const float dx2 = dx1 + spacing_coalesce;
        const float dx3 = dx2 + spacing_coalesce;
        const float dx4 = dx3 + spacing_coalesce;
        const float q = atominfo[atomid].w;
        energy1 += q * rsqrtf(dx1 * dx1 + dyz2);
        energy2 += q * rsqrtf(dx2 * dx2 + dyz2);
        energy3 += q * rsqrtf(dx3 * dx3 + dyz2);
        energy4 += q * rsqrtf(dx4 * dx4 + dyz2);
    }
    energygrid[outaddr] += energy1;
    energygrid[outaddr + blockDim.x] += energy2;
    energygrid[outaddr + 2 * blockDim.x] += energy3;
    energygrid[outaddr + 3 * blockDim.x] += energy4;
}
