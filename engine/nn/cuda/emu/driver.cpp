// driver.cpp: the CUDA driver entry points engine/nn/cuda resolves with
// dlsym (the same names, _v2 included), over host memory and the CPU build
// of the kernels. It checks what a real driver refuses or what would fail on
// a GPU, and says so in the log (docs/GPU.md, "The CUDA emulator"):
//   - a call that needs a context with none current on the calling thread,
//     or with a handle (stream, event, function, memory) of another context;
//   - copies and memsets outside an allocation, frees of memory that queued
//     work still uses, double destroys, unknown handles;
//   - launch limits (grid y and z ≤ 65,535, ≤ 1,024 threads a block, static
//     shared memory ≤ 48 KiB from the PTX), the argument count and sizes
//     against the PTX `.param` list, pointer arguments that are not device
//     memory of the context;
//   - PTX for a newer target than the emulated sm_80, kernels in the PTX the
//     CPU build lacks or declares with other parameters.
// Streams run in order; across streams only events order work. By default
// every stream runs its work as it is queued; AMT_EMU_LAZY makes chosen
// streams run only when something needs them (a synchronisation, a wait on
// one of their events, a pageable copy to the host), which is as late as a
// real GPU may run them.
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "driver.h"
#include "emu.h"

#define API extern "C" __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

namespace amtemu {

std::recursive_mutex& lock() {
    static std::recursive_mutex m;
    return m;
}

std::string hex(uintptr_t p) {
    char b[32];
    snprintf(b, sizeof b, "0x%llx", (unsigned long long)p);
    return b;
}

void report(const char* kind, const std::string& op, const std::string& msg) {
    std::string line = std::string("amt-cuda-emu ") + kind + ": " + op + ": " + msg + "\n";
    const char* path = getenv("AMT_EMU_LOG");
    if (path && *path) {
        if (FILE* f = fopen(path, "a")) {
            fputs(line.c_str(), f);
            fclose(f);
            return;
        }
    }
    fputs(line.c_str(), stderr);
}

int misuse(const std::string& op, int code, const std::string& msg) {
    report("misuse", op, msg);
    return code;
}

bool tracing() {
    const char* t = getenv("AMT_EMU_TRACE");
    return t && *t && strcmp(t, "0") != 0;
}

// AMT_EMU_FAIL="op:N[:code],...": the Nth call of op (1-based, counted
// since the variable last changed) fails; N = * fails every call.
int injected(const char* op, int def) {
    static std::string last;
    static std::map<std::string, long> calls;
    const char* v = getenv("AMT_EMU_FAIL");
    std::string spec = v ? v : "";
    if (spec != last) {
        last = spec;
        calls.clear();
    }
    if (spec.empty()) return 0;
    long n = ++calls[op];
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ',')) {
        size_t a = item.find(':');
        if (a == std::string::npos || item.substr(0, a) != op) continue;
        std::string rest = item.substr(a + 1);
        size_t b = rest.find(':');
        std::string when = rest.substr(0, b);
        int code = b == std::string::npos ? def : atoi(rest.c_str() + b + 1);
        if (when == "*" || atol(when.c_str()) == n) {
            report("inject", op, "call " + std::to_string(n) + " fails with " + std::to_string(code));
            return code;
        }
    }
    return 0;
}

namespace {

bool initialized = false;
thread_local Ctx* tls_ctx = nullptr;

struct Device {
    Ctx* primary = nullptr;
    int refs = 0;
};
Device devices[8];

// Live handles, by kind: nothing is dereferenced before it is found here.
std::set<Ctx*> ctxs;
std::set<Stream*> streams;
std::set<Event*> events;

struct PtxEntry {
    std::vector<std::string> types;  // u64, u32, f32, ...
    std::vector<int> sizes;
    bool sync = false;  // bar.sync or shfl.sync in the body
    size_t shared = 0;  // static shared memory, bytes
};

struct Module {
    Ctx* ctx;
    std::map<std::string, PtxEntry> entries;
};

struct Function {
    Module* mod;
    std::string name;
    const Kernel* k;
    const PtxEntry* e;
};

std::set<Module*> modules;
std::set<Function*> functions;
std::set<Graph*> graphs;  // captured graphs and their executable instances

int device_count() {
    const char* v = getenv("AMT_EMU_DEVICES");
    int n = v && *v ? atoi(v) : 1;
    return std::max(0, std::min(n, 8));
}

size_t device_memory() {
    const char* v = getenv("AMT_EMU_MEM_MB");
    long mb = v && *v ? atol(v) : 2048;
    return size_t(std::max(1L, mb)) << 20;
}

double now_ms() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

bool stream_lazy(int ordinal) {
    const char* v = getenv("AMT_EMU_LAZY");
    if (!v || !*v) return false;
    std::string s = v;
    if (s == "all") return true;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty() && atoi(item.c_str()) == ordinal) return true;
    return false;
}

Alloc map_alloc(size_t size, bool host) {
    size_t pg = size_t(sysconf(_SC_PAGESIZE));
    size_t data = (size + 15) & ~size_t(15);
    size_t pages = (data + pg - 1) / pg * pg;
    void* m = mmap(nullptr, pages + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return Alloc{0, 0, nullptr, 0, host};
    mprotect(static_cast<char*>(m) + pages, pg, PROT_NONE);  // reading past the end faults
    uintptr_t base = reinterpret_cast<uintptr_t>(m) + pages - data;
    memset(reinterpret_cast<void*>(base), 0xff, data);  // fresh memory is NaN, never zero
    return Alloc{base, size, m, pages + pg, host};
}

void destroy_ctx(Ctx* c) {
    c->alive = false;
    for (Stream* s : c->streams) streams.erase(s);
    if (c->null_stream) streams.erase(c->null_stream);
    for (auto it = events.begin(); it != events.end();) it = (*it)->ctx == c ? events.erase(it) : std::next(it);
    for (auto it = functions.begin(); it != functions.end();)
        it = (*it)->mod->ctx == c ? functions.erase(it) : std::next(it);
    for (auto it = modules.begin(); it != modules.end();) it = (*it)->ctx == c ? modules.erase(it) : std::next(it);
    for (auto it = graphs.begin(); it != graphs.end();) it = (*it)->ctx == c ? graphs.erase(it) : std::next(it);
    for (auto& [b, a] : c->allocs) munmap(a.map, a.maplen);
    c->allocs.clear();
    ctxs.erase(c);
    // The objects themselves are kept: a stale handle is then reported,
    // never a use after free.
}

const char* error_name(int r) {
    switch (r) {
        case OK: return "CUDA_SUCCESS";
        case E_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
        case E_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
        case E_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
        case E_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
        case E_INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
        case E_INVALID_IMAGE: return "CUDA_ERROR_INVALID_IMAGE";
        case E_INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
        case E_NO_BINARY_FOR_GPU: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
        case E_INVALID_PTX: return "CUDA_ERROR_INVALID_PTX";
        case E_INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
        case E_NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
        case E_NOT_READY: return "CUDA_ERROR_NOT_READY";
        case E_ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
        case E_LAUNCH_OUT_OF_RESOURCES: return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
        case E_LAUNCH_FAILED: return "CUDA_ERROR_LAUNCH_FAILED";
        case E_NOT_SUPPORTED: return "CUDA_ERROR_NOT_SUPPORTED";
        case E_STREAM_CAPTURE_UNSUPPORTED: return "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED";
        case E_STREAM_CAPTURE_INVALIDATED: return "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED";
        case E_UNKNOWN: return "CUDA_ERROR_UNKNOWN";
    }
    return nullptr;
}

const char* error_string(int r) {
    switch (r) {
        case OK: return "no error";
        case E_INVALID_VALUE: return "invalid argument";
        case E_OUT_OF_MEMORY: return "out of memory";
        case E_NOT_INITIALIZED: return "initialization error";
        case E_NO_DEVICE: return "no CUDA-capable device is detected";
        case E_INVALID_DEVICE: return "invalid device ordinal";
        case E_INVALID_IMAGE: return "device kernel image is invalid";
        case E_INVALID_CONTEXT: return "invalid device context";
        case E_NO_BINARY_FOR_GPU: return "no kernel image is available for execution on the device";
        case E_INVALID_PTX: return "a PTX JIT compilation failed";
        case E_INVALID_HANDLE: return "invalid resource handle";
        case E_NOT_FOUND: return "named symbol not found";
        case E_NOT_READY: return "device not ready";
        case E_ILLEGAL_ADDRESS: return "an illegal memory access was encountered";
        case E_LAUNCH_OUT_OF_RESOURCES: return "too many resources requested for launch";
        case E_LAUNCH_FAILED: return "unspecified launch failure";
        case E_NOT_SUPPORTED: return "operation not supported";
        case E_STREAM_CAPTURE_UNSUPPORTED: return "operation not permitted when stream is capturing";
        case E_STREAM_CAPTURE_INVALIDATED: return "operation failed due to a previous error during capture";
        case E_UNKNOWN: return "unknown error";
    }
    return nullptr;
}

// ---- PTX ----

int param_size(const std::string& t) {
    if (t == "u64" || t == "s64" || t == "b64" || t == "f64") return 8;
    if (t == "u32" || t == "s32" || t == "b32" || t == "f32") return 4;
    if (t == "u16" || t == "s16" || t == "b16" || t == "f16") return 2;
    if (t == "u8" || t == "s8" || t == "b8") return 1;
    return 0;
}

// Warp-collective and tensor-core instructions the emulator emulates
// (fiber.cpp); a module using any other instruction of these families is
// refused, so a kernel cannot pass on the emulator through an instruction
// it does not model.
const char* const kWarpFamilies[] = {"mma.",     "wmma.",      "wgmma.",    "ldmatrix.", "stmatrix.",
                                     "movmatrix.", "cp.async",  "shfl.",     "vote.",     "match.",
                                     "redux.",   "mbarrier.",  "bar.warp",  "elect.",    "tcgen05.",
                                     "cp.reduce", "setmaxnreg", "barrier.cluster"};
const char* const kEmulated[] = {
    "shfl.sync.bfly.b32",
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
    "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
};

// unemulated returns the first instruction of body in a warp-collective or
// tensor family that the emulator does not emulate, or "".
std::string unemulated(const std::string& body) {
    std::stringstream ss(body);
    std::string line;
    while (std::getline(ss, line)) {
        std::stringstream ls(line);
        std::string w;
        if (!(ls >> w)) continue;
        if (w[0] == '@' && !(ls >> w)) continue;  // a predicate
        bool family = false;
        for (const char* f : kWarpFamilies) family |= w.compare(0, strlen(f), f) == 0;
        if (!family) continue;
        bool known = false;
        for (const char* e : kEmulated) known |= w == e;
        if (!known) return w;
    }
    return "";
}

// parse_ptx reads the target, the entries, their parameter lists, whether
// they synchronise and their static shared memory. "" or why not.
std::string parse_ptx(const std::string& ptx, std::map<std::string, PtxEntry>* out) {
    if (ptx.find(".version") == std::string::npos) return "not PTX: no .version directive";
    size_t t = ptx.find(".target");
    if (t == std::string::npos) return "no .target directive";
    size_t sm = ptx.find("sm_", t);
    if (sm == std::string::npos || sm > ptx.find('\n', t)) return "no sm_ target";
    int arch = atoi(ptx.c_str() + sm + 3);
    if (arch > 80)
        return "ptxas fatal: the PTX targets sm_" + std::to_string(arch) + ", newer than the device's sm_80";
    size_t pos = 0;
    while ((pos = ptx.find(".entry ", pos)) != std::string::npos) {
        size_t nb = pos + 7, ne = ptx.find('(', nb);
        if (ne == std::string::npos) return "unterminated .entry";
        std::string name = ptx.substr(nb, ne - nb);
        while (!name.empty() && isspace((unsigned char)name.back())) name.pop_back();
        size_t close = ptx.find(')', ne);
        if (close == std::string::npos) return "unterminated parameter list of " + name;
        PtxEntry e;
        std::string plist = ptx.substr(ne + 1, close - ne - 1);
        size_t p = 0;
        while ((p = plist.find(".param", p)) != std::string::npos) {
            p += 6;
            size_t end = plist.find(',', p);
            std::string decl = plist.substr(p, end == std::string::npos ? std::string::npos : end - p);
            std::stringstream ds(decl);
            std::string w, type;
            int size = 0;
            while (ds >> w) {
                if (w == ".align") {
                    ds >> w;
                    continue;
                }
                if (w[0] == '.') {
                    type = w.substr(1);
                    size = param_size(type);
                } else if (w.find('[') != std::string::npos) {
                    size *= atoi(w.c_str() + w.find('[') + 1);  // .b8 name[16]: a struct
                }
            }
            if (size == 0) return "parameter of " + name + " of unknown type: " + decl;
            e.types.push_back(type);
            e.sizes.push_back(size);
        }
        size_t body = ptx.find('{', close);
        size_t bend = ptx.find("\n}", body);
        if (body == std::string::npos || bend == std::string::npos) return "no body for " + name;
        std::string b = ptx.substr(body, bend - body);
        e.sync = b.find("bar.sync") != std::string::npos || b.find("barrier.sync") != std::string::npos ||
                 b.find("shfl.sync") != std::string::npos || b.find("mma.sync") != std::string::npos ||
                 b.find("ldmatrix.sync") != std::string::npos;
        std::string odd = unemulated(b);
        if (!odd.empty())
            return "entry " + name + " uses " + odd +
                   ", which the emulator does not emulate (emu/fiber.cpp knows shfl.sync.bfly, mma.sync m16n8k16 bf16 "
                   "and ldmatrix .x4)";
        size_t s = 0;
        while ((s = b.find(".shared", s)) != std::string::npos) {
            size_t line = b.find('\n', s);
            std::string decl = b.substr(s, line - s);
            s = line;
            size_t lb = decl.find('['), sz = 1;
            if (decl.find(".b8") == std::string::npos || lb == std::string::npos) continue;
            sz = strtoul(decl.c_str() + lb + 1, nullptr, 10);
            e.shared += sz;
        }
        (*out)[name] = e;
        pos = bend;
    }
    if (out->empty()) return "no .entry in the PTX";
    return "";
}

const char* kind_name(ParamKind k) {
    switch (k) {
        case P_PTR: return "pointer";
        case P_INT: return "int";
        case P_LONG: return "long";
        case P_FLOAT: return "float";
    }
    return "?";
}

// signature_mismatch compares the CPU build's parameters with the PTX's.
std::string signature_mismatch(const Kernel& k, const PtxEntry& e) {
    auto describe = [&]() {
        std::string s = "the PTX has (";
        for (size_t i = 0; i < e.types.size(); i++) s += (i ? ", ." : ".") + e.types[i];
        s += "), the CPU build of the source (";
        for (size_t i = 0; i < k.params.size(); i++) s += std::string(i ? ", " : "") + kind_name(k.params[i]);
        return s + "): the PTX is stale (go generate ./engine/nn/cuda)";
    };
    if (k.params.size() != e.types.size()) return describe();
    for (size_t i = 0; i < e.types.size(); i++) {
        const std::string& t = e.types[i];
        bool ok = false;
        switch (k.params[i]) {
            case P_PTR:
            case P_LONG: ok = e.sizes[i] == 8 && t[0] != 'f'; break;
            case P_INT: ok = e.sizes[i] == 4 && t[0] != 'f'; break;
            case P_FLOAT: ok = t == "f32"; break;
        }
        if (!ok) return describe();
    }
    return "";
}

}  // namespace

// ---- shared with cublas.cpp ----

Ctx* current(const char* op, int* code) {
    if (!initialized) {
        *code = misuse(op, E_NOT_INITIALIZED, "cuInit has not been called");
        return nullptr;
    }
    Ctx* c = tls_ctx;
    if (!c) {
        *code = misuse(op, E_INVALID_CONTEXT, "no current context on the calling thread");
        return nullptr;
    }
    if (!c->alive) {
        *code = misuse(op, E_INVALID_CONTEXT, "the current context was destroyed (primary context released)");
        return nullptr;
    }
    if (c->sticky) {
        *code = c->sticky;
        return nullptr;
    }
    return c;
}

bool is_stream(Ctx* c, void* s) {
    auto* st = static_cast<Stream*>(s);
    return s == nullptr || (streams.count(st) && st->ctx == c);
}

Stream* stream_of(Ctx* c, void* s) {
    if (s) return static_cast<Stream*>(s);
    if (!c->null_stream) {
        c->null_stream = new Stream{c, -1, false};
        c->null_stream->null_stream = true;
        streams.insert(c->null_stream);
    }
    return c->null_stream;
}

const Alloc* any_alloc(Ctx* c, uintptr_t p) {
    auto it = c->allocs.upper_bound(p);
    if (it == c->allocs.begin()) return nullptr;
    --it;
    const Alloc& a = it->second;
    return p <= a.base + a.size ? &a : nullptr;
}

const Alloc* device_range(Ctx* c, uintptr_t p, size_t n, std::string* why) {
    const Alloc* a = any_alloc(c, p);
    if (!a || a->host) {
        bool other = false;
        for (Ctx* o : ctxs)
            if (o != c && any_alloc(o, p)) other = true;
        *why = hex(p) + (other ? " is device memory of another context" : " is not device memory of this context");
        return nullptr;
    }
    if (p + n > a->base + a->size) {
        *why = std::to_string(n) + " bytes at " + hex(p) + " run " + std::to_string(p + n - a->base - a->size) +
               " bytes past the end of the allocation of " + std::to_string(a->size) + " bytes at " + hex(a->base);
        return nullptr;
    }
    return a;
}

void execute(Op& op, Ctx* c) {
    switch (op.kind) {
        case OP_WORK:
            if (!c->sticky) op.fn();
            break;
        case OP_RECORD:
            if (events.count(op.ev) && op.ev->gen == op.gen) {
                op.ev->complete = true;
                op.ev->ms = now_ms();
            }
            break;
        case OP_WAIT:
            if (streams.count(op.on)) run_stream(op.on, op.upto);
            break;
    }
}

void run_stream(Stream* s, uint64_t upto) {
    while (s->done < upto && !s->q.empty()) {
        Op op = std::move(s->q.front());
        s->q.pop_front();
        s->done++;
        execute(op, s->ctx);
    }
}

void enqueue(Stream* s, Op op) {
    if (s->capture) {
        // Recorded, not run (cuStreamBeginCapture). The emulator captures
        // kernels and cuBLAS products only; the callers of other work
        // refuse it on a capturing stream first (capturing()).
        s->capture->ops.push_back(std::move(op));
        return;
    }
    if (s->null_stream) {
        // The legacy stream: everything queued before it first, then it.
        for (Stream* o : s->ctx->streams) run_stream(o, o->enq);
    }
    s->q.push_back(std::move(op));
    s->enq++;
    if (!s->lazy) run_stream(s, s->enq);
}

namespace {

void run_all(Ctx* c) {
    for (Stream* s : c->streams) run_stream(s, s->enq);
    if (c->null_stream) run_stream(c->null_stream, c->null_stream->enq);
}

// in_use reports queued work that touches [base, base+size).
std::string in_use(Ctx* c, uintptr_t base, size_t size) {
    std::vector<Stream*> all = c->streams;
    if (c->null_stream) all.push_back(c->null_stream);
    for (Stream* s : all)
        for (const Op& op : s->q)
            for (auto [p, n] : op.touches)
                if (p < base + size && p + std::max<size_t>(n, 1) > base)
                    return "queued work still uses it (" + op.what + " on stream " + std::to_string(s->ordinal) +
                           "): synchronise that stream first";
    return "";
}

// capturing refuses op on a stream being captured (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
// and the capture is invalidated, as the driver does for a synchronisation;
// the emulator also refuses copies, memsets and events there, which it does
// not capture). Returns OK when s is not capturing.
int capturing(const char* op, Stream* s) {
    if (!s || !s->capture) return OK;
    if (s->invalid.empty()) s->invalid = std::string(op) + " on the capturing stream";
    return misuse(op, E_STREAM_CAPTURE_UNSUPPORTED,
                  "stream " + std::to_string(s->ordinal) +
                      " is being captured into a graph: the emulator captures kernel launches and cuBLAS products only, "
                      "and a capturing stream cannot be synchronised");
}

int check_stream(const char* op, Ctx* c, void* s) {
    if (is_stream(c, s)) return OK;
    auto* st = static_cast<Stream*>(s);
    if (streams.count(st))
        return misuse(op, E_INVALID_CONTEXT, "stream " + hex(uintptr_t(s)) + " belongs to another context");
    return misuse(op, E_INVALID_HANDLE, "stream " + hex(uintptr_t(s)) + " is not a live stream");
}

int check_event(const char* op, Ctx* c, void* e) {
    auto* ev = static_cast<Event*>(e);
    if (!events.count(ev)) return misuse(op, E_INVALID_HANDLE, "event " + hex(uintptr_t(e)) + " is not a live event");
    if (ev->ctx != c)
        return misuse(op, E_INVALID_CONTEXT, "event " + hex(uintptr_t(e)) + " belongs to another context");
    return OK;
}

}  // namespace
}  // namespace amtemu

using namespace amtemu;

#define LOCK std::lock_guard<std::recursive_mutex> guard(lock())
#define CTX(op)                        \
    int code_ = 0;                     \
    Ctx* c = current(op, &code_);      \
    if (!c) return code_;              \
    if (int r_ = injected(op, E_UNKNOWN)) return r_

API CUresult cuGetErrorName(CUresult r, const char** s) {
    *s = error_name(r);
    return *s ? OK : E_INVALID_VALUE;
}

API CUresult cuGetErrorString(CUresult r, const char** s) {
    *s = error_string(r);
    return *s ? OK : E_INVALID_VALUE;
}

API CUresult cuInit(unsigned int flags) {
    LOCK;
    if (int r = injected("cuInit", E_NO_DEVICE)) return r;
    if (flags != 0) return misuse("cuInit", E_INVALID_VALUE, "flags must be 0");
    initialized = true;
    return OK;
}

API CUresult cuDriverGetVersion(int* v) {
    *v = 12040;
    return OK;
}

API CUresult cuDeviceGetCount(int* n) {
    LOCK;
    if (!initialized) return misuse("cuDeviceGetCount", E_NOT_INITIALIZED, "cuInit has not been called");
    *n = device_count();
    return OK;
}

API CUresult cuDeviceGet(CUdevice* d, int ordinal) {
    LOCK;
    if (!initialized) return misuse("cuDeviceGet", E_NOT_INITIALIZED, "cuInit has not been called");
    if (ordinal < 0 || ordinal >= device_count()) return E_INVALID_DEVICE;
    *d = ordinal;
    return OK;
}

API CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
    if (d < 0 || d >= device_count()) return E_INVALID_DEVICE;
    snprintf(name, size_t(len), "AMT CUDA emulator (CPU)");
    return OK;
}

API CUresult cuDeviceGetAttribute(int* v, int attr, CUdevice d) {
    if (d < 0 || d >= device_count()) return E_INVALID_DEVICE;
    switch (attr) {
        case 16: *v = 2; return OK;   // multiprocessors
        case 75: *v = 8; return OK;   // compute capability major
        case 76: *v = 0; return OK;   // minor
    }
    return misuse("cuDeviceGetAttribute", E_INVALID_VALUE, "attribute " + std::to_string(attr) + " is not emulated");
}

API CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice d) {
    if (d < 0 || d >= device_count()) return E_INVALID_DEVICE;
    *bytes = device_memory();
    return OK;
}

API CUresult cuDevicePrimaryCtxRetain(void** ctx, CUdevice d) {
    LOCK;
    if (!initialized) return misuse("cuDevicePrimaryCtxRetain", E_NOT_INITIALIZED, "cuInit has not been called");
    if (d < 0 || d >= device_count()) return E_INVALID_DEVICE;
    if (int r = injected("cuDevicePrimaryCtxRetain", E_OUT_OF_MEMORY)) return r;
    Device& dv = devices[d];
    if (dv.refs == 0) {
        dv.primary = new Ctx{d};
        ctxs.insert(dv.primary);
    }
    dv.refs++;
    *ctx = dv.primary;
    return OK;
}

static CUresult release(CUdevice d) {
    LOCK;
    if (d < 0 || d >= device_count()) return E_INVALID_DEVICE;
    Device& dv = devices[d];
    if (dv.refs == 0)
        return misuse("cuDevicePrimaryCtxRelease", E_INVALID_CONTEXT, "released more often than retained");
    if (--dv.refs == 0) destroy_ctx(dv.primary);
    return OK;
}
API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { return release(d); }
API CUresult cuDevicePrimaryCtxRelease(CUdevice d) { return release(d); }

API CUresult cuCtxSetCurrent(void* ctx) {
    LOCK;
    auto* c = static_cast<Ctx*>(ctx);
    if (c && !ctxs.count(c)) return misuse("cuCtxSetCurrent", E_INVALID_CONTEXT, hex(uintptr_t(ctx)) + " is not a live context");
    tls_ctx = c;
    return OK;
}

API CUresult cuCtxGetCurrent(void** ctx) {
    *ctx = tls_ctx;
    return OK;
}

API CUresult cuCtxSynchronize(void) {
    LOCK;
    CTX("cuCtxSynchronize");
    for (Stream* s : c->streams)
        if (int r = capturing("cuCtxSynchronize", s)) return r;
    run_all(c);
    return c->sticky;
}

API CUresult cuMemGetInfo_v2(size_t* fr, size_t* total) {
    LOCK;
    CTX("cuMemGetInfo_v2");
    size_t used = 0;
    for (Ctx* o : ctxs)
        if (o->dev == c->dev) used += o->used;
    *total = device_memory();
    *fr = *total - std::min(used, *total);
    return OK;
}

API CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) {
    LOCK;
    int code_ = 0;
    Ctx* c = current("cuMemAlloc_v2", &code_);
    if (!c) return code_;
    if (int r = injected("cuMemAlloc_v2", E_OUT_OF_MEMORY)) return r;
    if (n == 0) return misuse("cuMemAlloc_v2", E_INVALID_VALUE, "0 bytes");
    size_t used = 0;
    for (Ctx* o : ctxs)
        if (o->dev == c->dev) used += o->used;
    if (used + n > device_memory()) return E_OUT_OF_MEMORY;
    Alloc a = map_alloc(n, false);
    if (!a.map) return E_OUT_OF_MEMORY;
    c->allocs[a.base] = a;
    c->used += n;
    *p = a.base;
    return OK;
}

static CUresult free_alloc(const char* op, CUdeviceptr p, bool host) {
    LOCK;
    CTX(op);
    auto it = c->allocs.find(uintptr_t(p));
    if (it == c->allocs.end() || it->second.host != host) {
        bool other = false;
        for (Ctx* o : ctxs)
            if (o != c && o->allocs.count(uintptr_t(p))) other = true;
        return misuse(op, E_INVALID_VALUE,
                      hex(p) + (other ? " was allocated in another context"
                                      : " is not the start of a live allocation (freed twice?)"));
    }
    Alloc a = it->second;
    std::string busy = in_use(c, a.base, a.size);
    if (!busy.empty()) {
        misuse(op, E_INVALID_VALUE, "freeing " + std::to_string(a.size) + " bytes at " + hex(a.base) + ": " + busy);
        run_all(c);  // go on as the real driver's implicit synchronisation would
    }
    munmap(a.map, a.maplen);
    c->allocs.erase(it);
    if (!host) c->used -= a.size;
    return OK;
}

API CUresult cuMemFree_v2(CUdeviceptr p) { return free_alloc("cuMemFree_v2", p, false); }

API CUresult cuMemAllocHost_v2(void** p, size_t n) {
    LOCK;
    CTX("cuMemAllocHost_v2");
    if (n == 0) return misuse("cuMemAllocHost_v2", E_INVALID_VALUE, "0 bytes");
    Alloc a = map_alloc(n, true);
    if (!a.map) return E_OUT_OF_MEMORY;
    c->allocs[a.base] = a;
    *p = reinterpret_cast<void*>(a.base);
    return OK;
}

API CUresult cuMemFreeHost(void* p) { return free_alloc("cuMemFreeHost", reinterpret_cast<uintptr_t>(p), true); }

API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, void* hs) {
    LOCK;
    const char* op = "cuMemcpyHtoDAsync_v2";
    CTX(op);
    if (int r = check_stream(op, c, hs)) return r;
    std::string why;
    if (!device_range(c, dst, n, &why)) return misuse(op, E_INVALID_VALUE, "destination: " + why);
    Stream* s = stream_of(c, hs);
    if (int r = capturing(op, s)) return r;
    Op o;
    o.what = "host-to-device copy of " + std::to_string(n) + " bytes";
    o.touches = {{uintptr_t(dst), n}};
    const Alloc* pinned = any_alloc(c, reinterpret_cast<uintptr_t>(src));
    if (pinned && pinned->host) {
        if (reinterpret_cast<uintptr_t>(src) + n > pinned->base + pinned->size)
            return misuse(op, E_INVALID_VALUE, "source runs past the end of its pinned allocation");
        // Pinned memory is read when the copy runs, as by the DMA engine.
        o.touches.push_back({reinterpret_cast<uintptr_t>(src), n});
        o.fn = [dst, src, n]() { memcpy(reinterpret_cast<void*>(dst), src, n); };
    } else {
        // Pageable memory is staged before the call returns.
        auto staged = std::make_shared<std::vector<char>>(static_cast<const char*>(src), static_cast<const char*>(src) + n);
        o.fn = [dst, staged]() { memcpy(reinterpret_cast<void*>(dst), staged->data(), staged->size()); };
    }
    enqueue(s, std::move(o));
    return c->sticky;
}

API CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, void* hs) {
    LOCK;
    const char* op = "cuMemcpyDtoHAsync_v2";
    CTX(op);
    if (int r = check_stream(op, c, hs)) return r;
    std::string why;
    if (!device_range(c, src, n, &why)) return misuse(op, E_INVALID_VALUE, "source: " + why);
    Stream* s = stream_of(c, hs);
    if (int r = capturing(op, s)) return r;
    Op o;
    o.what = "device-to-host copy of " + std::to_string(n) + " bytes";
    o.touches = {{uintptr_t(src), n}};
    const Alloc* pinned = any_alloc(c, reinterpret_cast<uintptr_t>(dst));
    bool pageable = !(pinned && pinned->host);
    if (!pageable) o.touches.push_back({reinterpret_cast<uintptr_t>(dst), n});
    o.fn = [dst, src, n]() { memcpy(dst, reinterpret_cast<const void*>(src), n); };
    enqueue(s, std::move(o));
    if (pageable) run_stream(s, s->enq);  // to pageable memory the call returns when the copy is done
    return c->sticky;
}

API CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, void* hs) {
    LOCK;
    const char* op = "cuMemsetD32Async";
    CTX(op);
    if (int r = check_stream(op, c, hs)) return r;
    if (dst % 4) return misuse(op, E_INVALID_VALUE, hex(dst) + " is not 4-byte aligned");
    std::string why;
    if (!device_range(c, dst, 4 * n, &why)) return misuse(op, E_INVALID_VALUE, why);
    if (int r = capturing(op, stream_of(c, hs))) return r;
    Op o;
    o.what = "memset of " + std::to_string(4 * n) + " bytes";
    o.touches = {{uintptr_t(dst), 4 * n}};
    o.fn = [dst, v, n]() {
        auto* p = reinterpret_cast<unsigned int*>(dst);
        for (size_t i = 0; i < n; i++) p[i] = v;
    };
    enqueue(stream_of(c, hs), std::move(o));
    return c->sticky;
}

API CUresult cuStreamCreate(void** out, unsigned int flags) {
    LOCK;
    CTX("cuStreamCreate");
    if (flags > 1) return misuse("cuStreamCreate", E_INVALID_VALUE, "flags " + std::to_string(flags));
    int ord = c->next_ordinal++;
    auto* s = new Stream{c, ord, stream_lazy(ord)};
    c->streams.push_back(s);
    streams.insert(s);
    *out = s;
    if (tracing()) report("trace", "cuStreamCreate", "stream " + std::to_string(ord) + (s->lazy ? " (lazy)" : ""));
    return OK;
}

static CUresult stream_destroy(void* hs) {
    LOCK;
    const char* op = "cuStreamDestroy_v2";
    CTX(op);
    if (!hs) return misuse(op, E_INVALID_HANDLE, "the NULL stream cannot be destroyed");
    if (int r = check_stream(op, c, hs)) return r;
    auto* s = static_cast<Stream*>(hs);
    run_stream(s, s->enq);  // queued work completes, as the driver promises
    streams.erase(s);
    c->streams.erase(std::find(c->streams.begin(), c->streams.end(), s));
    return c->sticky;
}
API CUresult cuStreamDestroy_v2(void* s) { return stream_destroy(s); }
API CUresult cuStreamDestroy(void* s) { return stream_destroy(s); }

API CUresult cuStreamSynchronize(void* hs) {
    LOCK;
    const char* op = "cuStreamSynchronize";
    CTX(op);
    if (int r = check_stream(op, c, hs)) return r;
    Stream* s = stream_of(c, hs);
    if (int r = capturing(op, s)) return r;
    run_stream(s, s->enq);
    return c->sticky;
}

API CUresult cuStreamWaitEvent(void* hs, void* he, unsigned int flags) {
    LOCK;
    const char* op = "cuStreamWaitEvent";
    CTX(op);
    if (int r = check_stream(op, c, hs)) return r;
    if (int r = check_event(op, c, he)) return r;
    if (flags != 0) return misuse(op, E_INVALID_VALUE, "flags must be 0");
    if (int r = capturing(op, stream_of(c, hs))) return r;
    auto* e = static_cast<Event*>(he);
    if (!e->recorded || e->complete) return OK;  // nothing to wait for
    Op o;
    o.kind = OP_WAIT;
    o.what = "wait for an event";
    o.on = e->s;
    o.upto = e->idx;
    enqueue(stream_of(c, hs), std::move(o));
    return c->sticky;
}

API CUresult cuEventCreate(void** out, unsigned int flags) {
    LOCK;
    CTX("cuEventCreate");
    if (flags & ~3u) return misuse("cuEventCreate", E_INVALID_VALUE, "flags " + std::to_string(flags));
    auto* e = new Event{c, (flags & 2) == 0};
    events.insert(e);
    *out = e;
    return OK;
}

static CUresult event_destroy(void* he) {
    LOCK;
    const char* op = "cuEventDestroy_v2";
    CTX(op);
    if (int r = check_event(op, c, he)) return r;
    events.erase(static_cast<Event*>(he));
    return OK;
}
API CUresult cuEventDestroy_v2(void* e) { return event_destroy(e); }
API CUresult cuEventDestroy(void* e) { return event_destroy(e); }

API CUresult cuEventRecord(void* he, void* hs) {
    LOCK;
    const char* op = "cuEventRecord";
    CTX(op);
    if (int r = check_event(op, c, he)) return r;
    if (int r = check_stream(op, c, hs)) return r;
    auto* e = static_cast<Event*>(he);
    Stream* s = stream_of(c, hs);
    if (int r = capturing(op, s)) return r;
    e->recorded = true;
    e->complete = false;
    e->gen++;
    e->s = s;
    Op o;
    o.kind = OP_RECORD;
    o.what = "event record";
    o.ev = e;
    o.gen = e->gen;
    e->idx = s->enq + 1;
    enqueue(s, std::move(o));
    return c->sticky;
}

API CUresult cuEventSynchronize(void* he) {
    LOCK;
    const char* op = "cuEventSynchronize";
    CTX(op);
    if (int r = check_event(op, c, he)) return r;
    auto* e = static_cast<Event*>(he);
    if (e->recorded && !e->complete && streams.count(e->s)) run_stream(e->s, e->idx);
    return c->sticky;
}

API CUresult cuEventElapsedTime(float* ms, void* ha, void* hb) {
    LOCK;
    const char* op = "cuEventElapsedTime";
    CTX(op);
    if (int r = check_event(op, c, ha)) return r;
    if (int r = check_event(op, c, hb)) return r;
    auto *a = static_cast<Event*>(ha), *b = static_cast<Event*>(hb);
    if (!a->timing || !b->timing)
        return misuse(op, E_INVALID_HANDLE, "an event created with CU_EVENT_DISABLE_TIMING");
    if (!a->recorded || !b->recorded) return misuse(op, E_INVALID_HANDLE, "an event that was never recorded");
    if (!a->complete || !b->complete) return E_NOT_READY;
    *ms = float(b->ms - a->ms);
    return OK;
}

API CUresult cuModuleLoadDataEx(void** mod, const void* image, unsigned int n, int* opts, void** vals) {
    LOCK;
    const char* op = "cuModuleLoadDataEx";
    char* log = nullptr;
    size_t loglen = 0;
    for (unsigned i = 0; i < n; i++) {
        if (opts[i] == 5) log = static_cast<char*>(vals[i]);
        if (opts[i] == 6) loglen = reinterpret_cast<size_t>(vals[i]);
    }
    auto say = [&](const std::string& s) {
        if (log && loglen) snprintf(log, loglen, "%s", s.c_str());
    };
    int code_ = 0;
    Ctx* c = current(op, &code_);
    if (!c) return code_;
    if (int r = injected(op, E_INVALID_PTX)) {
        say("ptxas fatal: injected failure (AMT_EMU_FAIL)");
        return r;
    }
    auto* m = new Module{c};
    std::string why = parse_ptx(static_cast<const char*>(image), &m->entries);
    if (!why.empty()) {
        say(why);
        delete m;
        return misuse(op, E_INVALID_PTX, why);
    }
    modules.insert(m);
    *mod = m;
    return OK;
}

API CUresult cuModuleUnload(void* hm) {
    LOCK;
    const char* op = "cuModuleUnload";
    CTX(op);
    auto* m = static_cast<Module*>(hm);
    if (!modules.count(m)) return misuse(op, E_INVALID_HANDLE, "not a live module");
    if (m->ctx != c) return misuse(op, E_INVALID_CONTEXT, "module of another context");
    for (auto it = functions.begin(); it != functions.end();) it = (*it)->mod == m ? functions.erase(it) : std::next(it);
    modules.erase(m);
    return OK;
}

API CUresult cuModuleGetFunction(void** f, void* hm, const char* name) {
    LOCK;
    const char* op = "cuModuleGetFunction";
    CTX(op);
    auto* m = static_cast<Module*>(hm);
    if (!modules.count(m)) return misuse(op, E_INVALID_HANDLE, "not a live module");
    if (m->ctx != c) return misuse(op, E_INVALID_CONTEXT, "module of another context");
    auto it = m->entries.find(name);
    if (it == m->entries.end()) return E_NOT_FOUND;  // the backend probes every module
    const Kernel* k = find_kernel(name);
    if (!k)
        return misuse(op, E_NOT_FOUND,
                      std::string("kernel ") + name + " is in the PTX but has no CPU build (add it to emu/kernels.cpp)");
    std::string bad = signature_mismatch(*k, it->second);
    if (!bad.empty()) return misuse(op, E_INVALID_IMAGE, std::string("kernel ") + name + ": " + bad);
    auto* fn = new Function{m, name, k, &it->second};
    functions.insert(fn);
    *f = fn;
    return OK;
}

API CUresult cuLaunchKernel(void* hf, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned smem, void* hs, void** params, void** extra) {
    LOCK;
    const char* op = "cuLaunchKernel";
    int code_ = 0;
    Ctx* c = current(op, &code_);
    if (!c) return code_;
    auto* f = static_cast<Function*>(hf);
    if (!functions.count(f)) return misuse(op, E_INVALID_HANDLE, "not a live function");
    std::string kn = "kernel " + f->name;
    if (int r = injected(op, E_LAUNCH_OUT_OF_RESOURCES)) return r;
    if (f->mod->ctx != c) return misuse(op, E_INVALID_CONTEXT, kn + " belongs to another context");
    if (int r = check_stream(op, c, hs)) return r;
    auto dims = [](unsigned x, unsigned y, unsigned z) {
        return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
    };
    if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0)
        return misuse(op, E_INVALID_VALUE, kn + ": a zero grid or block dimension " + dims(gx, gy, gz) + dims(bx, by, bz));
    if (gx > 0x7fffffffu || gy > 65535 || gz > 65535)
        return misuse(op, E_INVALID_VALUE, kn + ": grid " + dims(gx, gy, gz) + " exceeds (2^31-1, 65535, 65535)");
    if (bx > 1024 || by > 1024 || bz > 64 || size_t(bx) * by * bz > 1024)
        return misuse(op, E_INVALID_VALUE, kn + ": block " + dims(bx, by, bz) + " exceeds 1,024 threads");
    if (f->e->shared + smem > 48 * 1024)
        return misuse(op, E_INVALID_VALUE, kn + ": " + std::to_string(f->e->shared + smem) + " bytes of shared memory exceed 48 KiB");
    if (extra) return misuse(op, E_INVALID_VALUE, kn + ": `extra` is not supported by the emulator");
    size_t np = f->e->sizes.size();
    if (np && !params) return misuse(op, E_INVALID_VALUE, kn + ": no kernelParams for " + std::to_string(np) + " parameters");
    std::vector<uint64_t> args(np);
    std::vector<std::pair<uintptr_t, size_t>> touches;
    for (size_t i = 0; i < np; i++) {
        if (!params[i])
            return misuse(op, E_INVALID_VALUE, kn + ": " + std::to_string(i) + " arguments given, the PTX declares " + std::to_string(np));
        memcpy(&args[i], params[i], size_t(f->e->sizes[i]));
        if (f->e->sizes[i] == 4) {
            // engine/nn/cuda passes every argument in an 8-byte slot, 32-bit
            // ones zero-extended: other high bytes mean a 64-bit value went
            // to a 32-bit parameter.
            uint32_t hi;
            memcpy(&hi, static_cast<char*>(params[i]) + 4, 4);
            if (hi)
                return misuse(op, E_INVALID_VALUE, kn + ": argument " + std::to_string(i) + " is ." + f->e->types[i] +
                                                       " in the PTX but was given a 64-bit value");
        }
        if (f->k->params[i] == P_PTR && args[i]) {
            std::string why;
            if (!any_alloc(c, uintptr_t(args[i])) || any_alloc(c, uintptr_t(args[i]))->host) {
                device_range(c, uintptr_t(args[i]), 0, &why);
                misuse(op, E_ILLEGAL_ADDRESS, kn + ": pointer argument " + std::to_string(i) + ": " + why);
                c->sticky = E_ILLEGAL_ADDRESS;  // the kernel would fault: the context is lost
                return E_ILLEGAL_ADDRESS;
            }
            touches.push_back({uintptr_t(args[i]), 1});
        }
    }
    // engine/nn/cuda ends kernelParams with NULL (the driver reads only as
    // many as the kernel has); anything else there is an extra argument.
    if (params && params[np])
        return misuse(op, E_INVALID_VALUE, kn + ": more arguments given than the " + std::to_string(np) + " the PTX declares");
    Stream* s = stream_of(c, hs);
    if (tracing()) report("trace", op, f->name + " grid " + dims(gx, gy, gz) + " block " + dims(bx, by, bz) + " stream " + std::to_string(s->ordinal));
    Op o;
    o.what = kn;
    o.touches = std::move(touches);
    const Kernel* k = f->k;
    bool sync = f->e->sync;
    std::string name = f->name;
    o.fn = [c, k, args, gx, gy, gz, bx, by, bz, sync, name]() {
        // AMT_EMU_FAIL=kernel/NAME:N makes the Nth run of a kernel fault
        // on the device: the error surfaces at the next synchronisation.
        if (int r = injected(("kernel/" + name).c_str(), E_LAUNCH_FAILED)) {
            c->sticky = r;
            return;
        }
        std::string fault = run_grid(*k, args.data(), gx, gy, gz, bx, by, bz, sync);
        if (!fault.empty()) {
            report("fault", "kernel " + name, fault);
            c->sticky = E_LAUNCH_FAILED;
        }
    };
    enqueue(s, std::move(o));
    return c->sticky;
}

// ---- CUDA graphs by stream capture ----

API CUresult cuStreamBeginCapture_v2(void* hs, int mode) {
    LOCK;
    const char* op = "cuStreamBeginCapture_v2";
    CTX(op);
    if (!hs) return misuse(op, E_STREAM_CAPTURE_UNSUPPORTED, "the NULL stream cannot be captured");
    if (int r = check_stream(op, c, hs)) return r;
    if (mode < 0 || mode > 2) return misuse(op, E_INVALID_VALUE, "capture mode " + std::to_string(mode));
    auto* s = static_cast<Stream*>(hs);
    if (s->capture) return misuse(op, E_INVALID_VALUE, "the stream is already capturing");
    s->capture = new Graph{c, {}, false};
    s->invalid.clear();
    if (tracing()) report("trace", op, "stream " + std::to_string(s->ordinal));
    return OK;
}

API CUresult cuStreamEndCapture(void* hs, void** graph) {
    LOCK;
    const char* op = "cuStreamEndCapture";
    int code_ = 0;
    Ctx* c = current(op, &code_);
    if (!c) return code_;
    if (int r = check_stream(op, c, hs)) return r;
    auto* s = static_cast<Stream*>(hs);
    *graph = nullptr;
    if (!s || !s->capture) return misuse(op, E_INVALID_VALUE, "the stream is not capturing");
    Graph* g = s->capture;
    s->capture = nullptr;
    if (!s->invalid.empty()) {
        std::string why = s->invalid;
        s->invalid.clear();
        delete g;
        return misuse(op, E_STREAM_CAPTURE_INVALIDATED, "the capture was invalidated by " + why);
    }
    if (int r = injected(op, E_STREAM_CAPTURE_INVALIDATED)) {
        delete g;
        return r;
    }
    graphs.insert(g);
    *graph = g;
    return OK;
}

API CUresult cuGraphInstantiateWithFlags(void** exec, void* hg, unsigned long long flags) {
    LOCK;
    const char* op = "cuGraphInstantiateWithFlags";
    CTX(op);
    auto* g = static_cast<Graph*>(hg);
    if (!graphs.count(g) || g->exec) return misuse(op, E_INVALID_VALUE, "not a live captured graph");
    if (g->ctx != c) return misuse(op, E_INVALID_CONTEXT, "a graph of another context");
    if (flags != 0) return misuse(op, E_INVALID_VALUE, "flags " + std::to_string(flags) + " are not emulated");
    auto* e = new Graph{c, g->ops, true};
    graphs.insert(e);
    *exec = e;
    return OK;
}

API CUresult cuGraphLaunch(void* he, void* hs) {
    LOCK;
    const char* op = "cuGraphLaunch";
    CTX(op);
    auto* e = static_cast<Graph*>(he);
    if (!graphs.count(e) || !e->exec) return misuse(op, E_INVALID_VALUE, "not a live instantiated graph");
    if (e->ctx != c) return misuse(op, E_INVALID_CONTEXT, "a graph of another context");
    if (int r = check_stream(op, c, hs)) return r;
    Stream* s = stream_of(c, hs);
    if (int r = capturing(op, s)) return r;
    // Every pointer the captured kernels use must still be device memory.
    for (const Op& o : e->ops)
        for (auto [p, n] : o.touches)
            if (!any_alloc(c, p)) {
                misuse(op, E_ILLEGAL_ADDRESS, o.what + " of the graph uses " + hex(p) + ", freed since the capture");
                c->sticky = E_ILLEGAL_ADDRESS;
                return E_ILLEGAL_ADDRESS;
            }
    if (tracing()) report("trace", op, std::to_string(e->ops.size()) + " nodes stream " + std::to_string(s->ordinal));
    for (const Op& o : e->ops) enqueue(s, o);
    return c->sticky;
}

API CUresult cuGraphExecDestroy(void* he) {
    LOCK;
    const char* op = "cuGraphExecDestroy";
    CTX(op);
    auto* e = static_cast<Graph*>(he);
    if (!graphs.count(e) || !e->exec) return misuse(op, E_INVALID_VALUE, "not a live instantiated graph (destroyed twice?)");
    graphs.erase(e);
    return OK;
}

API CUresult cuGraphDestroy(void* hg) {
    LOCK;
    const char* op = "cuGraphDestroy";
    CTX(op);
    auto* g = static_cast<Graph*>(hg);
    if (!graphs.count(g) || g->exec) return misuse(op, E_INVALID_VALUE, "not a live captured graph (destroyed twice?)");
    graphs.erase(g);
    return OK;
}
