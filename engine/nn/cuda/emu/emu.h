// emu.h: what the parts of the emulator share (docs/GPU.md, "The CUDA emulator").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace amtemu {

// The C++ type of one kernel parameter, as the CPU build declares it.
enum ParamKind { P_PTR, P_INT, P_LONG, P_FLOAT };

// A kernel compiled for the CPU from ../kernels/*.cu.
struct Kernel {
    const char* name;
    std::vector<ParamKind> params;
    // run executes the calling fiber's CUDA thread with the arguments
    // (params.size() values, each in an 8-byte slot, little-endian).
    void (*run)(const uint64_t* args);
};

// kernels.cpp: the table of every CPU-built kernel.
const Kernel* find_kernel(const char* name);
std::vector<const Kernel*> all_kernels();
// add_kernel makes a kernel findable by name (the emulator's self-test adds
// its own; k must outlive every use).
void add_kernel(const Kernel* k);

// fiber.cpp: runs a grid. fibers: whether the kernel synchronises (bar.sync
// or shfl.sync in its PTX); without them the threads run one after another
// as plain calls. Returns "" or what went wrong (a deadlock, a shuffle with
// exited lanes, a barrier in a kernel whose PTX has none).
std::string run_grid(const Kernel& k, const uint64_t* args, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                     unsigned by, unsigned bz, bool fibers);

}  // namespace amtemu
