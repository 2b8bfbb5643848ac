// fiber.cpp: one fiber per CUDA thread. A grid runs block after block on the
// calling OS thread; inside a block the threads run in order, each until it
// finishes or reaches __syncthreads or a warp shuffle, where it hands over to
// the next. A barrier opens when every thread of the block still running has
// reached it (threads that returned count as arrived, as on sm_70 and later);
// a full-warp shuffle completes when all 32 lanes of the warp are at it, and
// is a fault if a lane has exited. If no thread can go on, the launch fails
// with a deadlock report. The order is fixed, so results are deterministic
// (atomicAdd included).
//
// Kernels whose PTX has no bar.sync or shfl.sync run without fibers: each
// thread is a plain call, which is most launches and much faster.
//
// The context switch is a few instructions of assembly on x86-64 (callee-
// saved registers, MXCSR and the x87 control word, as the System V ABI
// requires); elsewhere ucontext, which is slower (a system call a switch).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_shim.h"
#include "emu.h"

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace amtemu {

uint3v cur_tid, cur_bid, cur_bdim, cur_gdim;

namespace {

enum State { READY, AT_BARRIER, AT_SHUFFLE, AT_WARPOP, DONE };

// A warp-collective matrix operation (mma.sync, ldmatrix) a lane waits at:
// which one, and the lane's operands (pointers into its own stack, alive
// while it waits).
struct WarpOp {
    int kind;  // WOP_*
    float* d;
    const unsigned* a;
    const unsigned* b;
    unsigned* r;
    const void* addr;
};
enum { WOP_MMA_BF16_16816 = 1, WOP_LDMATRIX_X4, WOP_LDMATRIX_X4_TRANS };

const size_t kStack = 64 << 10;  // per fiber, plus a guard page below

struct Fiber {
    State state;
    uint3v tid;
    int lane_mask;        // the xor mask of the shuffle it waits at
    double in, out;       // the shuffle's value and result
    WarpOp op;            // the warp operation it waits at (AT_WARPOP)
#if defined(__x86_64__)
    void* sp;
#else
    ucontext_t uc;
#endif
    char* stack;          // usable stack (above the guard page)
};

struct Block {
    std::vector<Fiber> fibers;
    int cur = -1;
    int live = 0;
    int at_barrier = 0;
    std::vector<int> warp_at;  // lanes of each warp at a shuffle
    const Kernel* k = nullptr;
    const uint64_t* args = nullptr;
    std::string fault;
    bool direct = false;  // no fibers: a barrier or shuffle is a fault
};

Block blk;
std::vector<char*> stacks;  // reused by every launch

#if defined(__x86_64__)
void* sched_sp;
extern "C" void amtemu_switch(void** save, void* load);
asm(R"(
    .text
    .p2align 4
    .type amtemu_switch,@function
amtemu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size amtemu_switch, .-amtemu_switch
)");
#else
ucontext_t sched_uc;
#endif

char* stack_for(size_t i) {
    while (stacks.size() <= i) {
        long pg = sysconf(_SC_PAGESIZE);
        void* m = mmap(nullptr, kStack + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return nullptr;
        mprotect(m, pg, PROT_NONE);  // an overflow faults instead of corrupting
        stacks.push_back(static_cast<char*>(m) + pg);
    }
    return stacks[i];
}

void to_scheduler() {
    Fiber& f = blk.fibers[blk.cur];
#if defined(__x86_64__)
    amtemu_switch(&f.sp, sched_sp);
#else
    swapcontext(&f.uc, &sched_uc);
#endif
}

void fiber_entry() {
    blk.k->run(blk.args);
    blk.fibers[blk.cur].state = DONE;
    to_scheduler();
    __builtin_trap();  // a finished fiber is never resumed
}

void init_fiber(Fiber& f) {
#if defined(__x86_64__)
    uintptr_t top = (reinterpret_cast<uintptr_t>(f.stack) + kStack) & ~uintptr_t(15);
    uint64_t* sp = reinterpret_cast<uint64_t*>(top - 72);
    uint32_t mxcsr;
    uint16_t fpcw;
    asm volatile("stmxcsr %0" : "=m"(mxcsr));
    asm volatile("fnstcw %0" : "=m"(fpcw));
    std::memset(sp, 0, 72);
    std::memcpy(sp, &mxcsr, 4);
    std::memcpy(reinterpret_cast<char*>(sp) + 4, &fpcw, 2);
    sp[7] = reinterpret_cast<uint64_t>(&fiber_entry);  // popped by ret
    f.sp = sp;
#else
    getcontext(&f.uc);
    f.uc.uc_stack.ss_sp = f.stack;
    f.uc.uc_stack.ss_size = kStack;
    f.uc.uc_link = nullptr;
    makecontext(&f.uc, fiber_entry, 0);
#endif
}

void resume(int i) {
    blk.cur = i;
    Fiber& f = blk.fibers[i];
    cur_tid = f.tid;
#if defined(__x86_64__)
    amtemu_switch(&sched_sp, f.sp);
#else
    swapcontext(&sched_uc, &f.uc);
#endif
}

void fail(const std::string& why) {
    if (blk.fault.empty()) blk.fault = why;
}

float bf16_to_f32(unsigned short h) {
    unsigned int u = unsigned(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

unsigned short b16_at(const void* row, int col) {
    unsigned short v;
    std::memcpy(&v, static_cast<const char*>(row) + 2 * col, 2);
    return v;
}

// The fragment layouts of the PTX ISA (version 7.8, "Warp Level Matrix
// Multiply-Accumulate Instructions"), written here once. Lane l has
// groupID g = l >> 2 and threadID_in_group t = l % 4. A 32-bit register
// holding two 16-bit elements has the first (lower column or row index) in
// its low half.
//
// "Matrix Fragments for mma.m16n8k16 with floating point type", .bf16:
//   A (16×16, .row): four registers {a0,a1} {a2,a3} {a4,a5} {a6,a7};
//     row = g for a0,a1,a4,a5 and g + 8 for a2,a3,a6,a7;
//     col = 2t + (i & 1) for a0..a3 and 2t + (i & 1) + 8 for a4..a7.
//   B (16×8, .col): two registers {b0,b1} {b2,b3};
//     row (k) = 2t + (i & 1) for b0,b1 and 2t + (i & 1) + 8 for b2,b3; col (n) = g.
//   C and D (16×8, .f32): c0..c3; row = g for c0,c1 and g + 8 for c2,c3;
//     col = 2t + (i & 1).
void a_pos(int lane, int i, int* row, int* col) {
    int g = lane >> 2, t = lane & 3;
    *row = g + ((i >> 1) & 1) * 8;
    *col = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
}
void b_pos(int lane, int i, int* k, int* n) {
    int g = lane >> 2, t = lane & 3;
    *k = 2 * t + (i & 1) + (i >= 2 ? 8 : 0);
    *n = g;
}
void c_pos(int lane, int i, int* row, int* col) {
    int g = lane >> 2, t = lane & 3;
    *row = g + (i >= 2 ? 8 : 0);
    *col = 2 * t + (i & 1);
}

// mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 d, a, b, d: every
// lane's fragments gathered into A, B and C, D = A·B + C computed with the
// exact products summed in double and rounded once to float (the tensor
// cores' internal order and rounding are not specified; this is the exact
// result, rounded), each lane's d registers written back.
void run_mma(Fiber* lanes) {
    float A[16][16], Bm[16][8], Cm[16][8];
    for (int l = 0; l < 32; l++) {
        const WarpOp& o = lanes[l].op;
        for (int i = 0; i < 8; i++) {
            int r, c;
            a_pos(l, i, &r, &c);
            A[r][c] = bf16_to_f32((unsigned short)(o.a[i >> 1] >> (16 * (i & 1))));
        }
        for (int i = 0; i < 4; i++) {
            int k, n;
            b_pos(l, i, &k, &n);
            Bm[k][n] = bf16_to_f32((unsigned short)(o.b[i >> 1] >> (16 * (i & 1))));
        }
        for (int i = 0; i < 4; i++) {
            int r, c;
            c_pos(l, i, &r, &c);
            Cm[r][c] = o.d[i];
        }
    }
    for (int l = 0; l < 32; l++) {
        const WarpOp& o = lanes[l].op;
        for (int i = 0; i < 4; i++) {
            int r, c;
            c_pos(l, i, &r, &c);
            double s = Cm[r][c];
            for (int k = 0; k < 16; k++) s += double(A[r][k]) * double(Bm[k][c]);
            o.d[i] = float(s);
        }
    }
}

// ldmatrix.sync.aligned.m8n8.x4{.trans}.shared.b16 r, [p] ("Warp-level
// matrix load instruction: ldmatrix"): lanes 8j..8j+7 give the addresses of
// rows 0..7 of matrix j (16 bytes each, 16-byte aligned); lane l receives in
// r[j] the elements (row l/4, cols 2(l%4), 2(l%4)+1) of matrix j, or with
// .trans those of its transpose: (rows 2(l%4), 2(l%4)+1, col l/4).
std::string run_ldmatrix(Fiber* lanes, bool trans) {
    const void* rows[4][8];
    for (int l = 0; l < 32; l++) {
        const void* p = lanes[l].op.addr;
        if (reinterpret_cast<uintptr_t>(p) % 16)
            return "ldmatrix: lane " + std::to_string(l) + "'s row address is not 16-byte aligned";
        rows[l >> 3][l & 7] = p;
    }
    for (int l = 0; l < 32; l++) {
        int g = l >> 2, t = l & 3;
        for (int j = 0; j < 4; j++) {
            unsigned short lo, hi;
            if (trans) {
                lo = b16_at(rows[j][2 * t], g);
                hi = b16_at(rows[j][2 * t + 1], g);
            } else {
                lo = b16_at(rows[j][g], 2 * t);
                hi = b16_at(rows[j][g], 2 * t + 1);
            }
            lanes[l].op.r[j] = unsigned(lo) | unsigned(hi) << 16;
        }
    }
    return "";
}

// complete_warp runs the operation all 32 lanes of a warp wait at: a
// shuffle, or one warp-collective matrix operation. Lanes at different
// operations are a fault (the PTX requires the same instruction on every
// lane: .sync.aligned).
std::string complete_warp(Fiber* lanes) {
    State st = lanes[0].state;
    int kind = lanes[0].op.kind;
    for (int l = 1; l < 32; l++)
        if (lanes[l].state != st || (st == AT_WARPOP && lanes[l].op.kind != kind))
            return "lanes wait at different warp-collective operations (a shuffle, mma.sync or ldmatrix): "
                   "the .sync.aligned forms need all 32 lanes at the same instruction";
    if (st == AT_SHUFFLE) {
        for (int l = 0; l < 32; l++) lanes[l].out = lanes[l ^ (lanes[l].lane_mask & 31)].in;
        return "";
    }
    switch (kind) {
        case WOP_MMA_BF16_16816: run_mma(lanes); return "";
        case WOP_LDMATRIX_X4: return run_ldmatrix(lanes, false);
        case WOP_LDMATRIX_X4_TRANS: return run_ldmatrix(lanes, true);
    }
    return "unknown warp operation";
}

// settle opens a barrier or completes shuffles that have everyone they need.
void settle() {
    int n = int(blk.fibers.size());
    for (size_t w = 0; w < blk.warp_at.size(); w++) {
        int base = int(w) * 32;
        if (blk.warp_at[w] == 0) continue;
        bool exited = false;
        for (int l = 0; l < 32 && base + l < n; l++) exited |= blk.fibers[base + l].state == DONE;
        if (exited || base + 32 > n) {
            fail("a full-warp shuffle or warp-collective matrix operation (mma.sync, ldmatrix) in warp " +
                 std::to_string(w) + " while some of its 32 lanes have exited or do not exist");
            for (int l = 0; l < 32 && base + l < n; l++) {
                Fiber& f = blk.fibers[base + l];
                if (f.state == AT_SHUFFLE) f.out = f.in, f.state = READY;
                if (f.state == AT_WARPOP) f.state = READY;  // its outputs stay as they were
            }
            blk.warp_at[w] = 0;
            continue;
        }
        if (blk.warp_at[w] < 32) continue;
        std::string why = complete_warp(&blk.fibers[base]);
        if (!why.empty()) fail("warp " + std::to_string(w) + ": " + why);
        for (int l = 0; l < 32; l++) blk.fibers[base + l].state = READY;
        blk.warp_at[w] = 0;
    }
    if (blk.at_barrier > 0 && blk.at_barrier == blk.live) {
        for (Fiber& f : blk.fibers)
            if (f.state == AT_BARRIER) f.state = READY;
        blk.at_barrier = 0;
    }
}

void run_block_fibers() {
    size_t n = blk.fibers.size();
    blk.live = int(n);
    blk.at_barrier = 0;
    blk.warp_at.assign((n + 31) / 32, 0);
    for (size_t i = 0; i < n; i++) {
        Fiber& f = blk.fibers[i];
        f.state = READY;
        f.stack = stack_for(i);
        init_fiber(f);
    }
    for (;;) {
        bool ran = false;
        for (size_t i = 0; i < n; i++) {
            if (blk.fibers[i].state != READY) continue;
            ran = true;
            resume(int(i));
            if (blk.fibers[i].state == DONE) blk.live--;
            settle();
        }
        if (blk.live == 0) return;
        if (!ran) {
            int bar = 0, shf = 0;
            for (Fiber& f : blk.fibers) bar += f.state == AT_BARRIER, shf += f.state == AT_SHUFFLE || f.state == AT_WARPOP;
            fail("deadlock: " + std::to_string(bar) + " threads wait at __syncthreads and " + std::to_string(shf) +
                 " at a warp shuffle or warp-collective matrix operation, and none can go on");
            // Abandon the block: its fibers are reinitialised by the next one.
            return;
        }
    }
}

}  // namespace

void syncthreads() {
    if (blk.direct) {
        fail("__syncthreads in a kernel whose PTX has no bar.sync (PTX and source disagree)");
        return;
    }
    Fiber& f = blk.fibers[blk.cur];
    f.state = AT_BARRIER;
    blk.at_barrier++;
    to_scheduler();
}

double shfl_xor_d(unsigned mask, double v, int lane_mask) {
    if (blk.direct) {
        fail("a warp shuffle in a kernel whose PTX has no shfl.sync (PTX and source disagree)");
        return v;
    }
    if (mask != 0xffffffffu) fail("a shuffle with a partial mask: the emulator knows only full warps");
    Fiber& f = blk.fibers[blk.cur];
    f.in = v;
    f.lane_mask = lane_mask;
    f.state = AT_SHUFFLE;
    blk.warp_at[blk.cur / 32]++;
    to_scheduler();
    return blk.fibers[blk.cur].out;
}

float shfl_xor(unsigned mask, float v, int lane_mask) { return float(shfl_xor_d(mask, double(v), lane_mask)); }

static void warp_op(const WarpOp& op, const char* what) {
    if (blk.direct) {
        fail(std::string(what) + " in a kernel whose PTX has none (PTX and source disagree)");
        return;
    }
    Fiber& f = blk.fibers[blk.cur];
    f.op = op;
    f.state = AT_WARPOP;
    blk.warp_at[blk.cur / 32]++;
    to_scheduler();
}

void warp_mma_bf16(float* d, const unsigned* a, const unsigned* b) {
    warp_op(WarpOp{WOP_MMA_BF16_16816, d, a, b, nullptr, nullptr}, "mma.sync");
}

void warp_ldmatrix_x4(unsigned* r, const void* row, bool trans) {
    warp_op(WarpOp{trans ? WOP_LDMATRIX_X4_TRANS : WOP_LDMATRIX_X4, nullptr, nullptr, nullptr, r, row}, "ldmatrix");
}

void check_align(const void* p, unsigned bytes, const char* what) {
    if (reinterpret_cast<uintptr_t>(p) % bytes)
        fail(std::string(what) + ": address " + std::to_string(reinterpret_cast<uintptr_t>(p)) + " is not " +
             std::to_string(bytes) + "-byte aligned (a misaligned address error on a GPU)");
}

std::string run_grid(const Kernel& k, const uint64_t* args, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                     unsigned by, unsigned bz, bool fibers) {
    blk.k = &k;
    blk.args = args;
    blk.fault.clear();
    blk.direct = !fibers;
    cur_gdim = {gx, gy, gz};
    cur_bdim = {bx, by, bz};
    size_t n = size_t(bx) * by * bz;
    blk.fibers.resize(n);
    for (size_t t = 0; t < n; t++)
        blk.fibers[t].tid = {unsigned(t % bx), unsigned(t / bx % by), unsigned(t / (size_t(bx) * by))};
    if (fibers && !stack_for(n - 1)) return "cannot map fiber stacks";
    for (unsigned z = 0; z < gz && blk.fault.empty(); z++)
        for (unsigned y = 0; y < gy && blk.fault.empty(); y++)
            for (unsigned x = 0; x < gx && blk.fault.empty(); x++) {
                cur_bid = {x, y, z};
                if (!fibers) {
                    for (size_t t = 0; t < n; t++) {
                        blk.cur = int(t);
                        cur_tid = blk.fibers[t].tid;
                        k.run(args);
                    }
                    continue;
                }
                run_block_fibers();
            }
    blk.k = nullptr;
    return blk.fault;
}

}  // namespace amtemu
