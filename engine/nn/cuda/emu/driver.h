// driver.h: the emulated driver's objects, shared by driver.cpp and
// cublas.cpp. Everything here is used under the one lock (lock()).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace amtemu {

// CUresult values the emulator returns (CUDA driver API documentation).
enum : int {
    OK = 0,
    E_INVALID_VALUE = 1,
    E_OUT_OF_MEMORY = 2,
    E_NOT_INITIALIZED = 3,
    E_NO_DEVICE = 100,
    E_INVALID_DEVICE = 101,
    E_INVALID_IMAGE = 200,
    E_INVALID_CONTEXT = 201,
    E_NO_BINARY_FOR_GPU = 209,
    E_INVALID_PTX = 218,
    E_INVALID_HANDLE = 400,
    E_NOT_FOUND = 500,
    E_NOT_READY = 600,
    E_ILLEGAL_ADDRESS = 700,
    E_LAUNCH_OUT_OF_RESOURCES = 701,
    E_LAUNCH_FAILED = 719,
    E_NOT_SUPPORTED = 801,
    E_STREAM_CAPTURE_UNSUPPORTED = 900,
    E_STREAM_CAPTURE_INVALIDATED = 901,
    E_UNKNOWN = 999,
};

struct Ctx;
struct Stream;
struct Event;

struct Alloc {
    uintptr_t base;
    size_t size;
    void* map;  // the mapping (guard page after the data)
    size_t maplen;
    bool host;  // pinned host memory (cuMemAllocHost)
};

enum OpKind { OP_WORK, OP_RECORD, OP_WAIT };

struct Op {
    OpKind kind = OP_WORK;
    std::string what;                                   // for reports
    std::function<void()> fn;                           // OP_WORK
    std::vector<std::pair<uintptr_t, size_t>> touches;  // memory it reads or writes
    Event* ev = nullptr;                                // OP_RECORD
    uint64_t gen = 0;                                   // OP_RECORD: the event's record number
    Stream* on = nullptr;                               // OP_WAIT: run on through upto
    uint64_t upto = 0;
};

struct Graph;

struct Stream {
    Ctx* ctx;
    int ordinal;  // creation order in its context (0: the backend's compute stream)
    bool lazy;    // work runs only when something needs it
    bool null_stream = false;
    std::deque<Op> q;
    uint64_t enq = 0, done = 0;
    // Stream capture (cuStreamBeginCapture): work queued is recorded into
    // capture instead of run; invalid says why the capture failed ("" if not).
    Graph* capture = nullptr;
    std::string invalid;
};

// A captured graph (cuStreamEndCapture) or its executable instance
// (cuGraphInstantiateWithFlags): the kernels and products in capture order.
struct Graph {
    Ctx* ctx;
    std::vector<Op> ops;
    bool exec;  // an instantiated graph
};

struct Event {
    Ctx* ctx;
    bool timing;
    bool recorded = false, complete = false;
    Stream* s = nullptr;
    uint64_t idx = 0;  // ops of s through the record
    uint64_t gen = 0;
    double ms = 0;     // when the record ran (ms, monotonic clock)
};

struct Ctx {
    int dev;
    bool alive = true;
    int sticky = 0;  // a kernel fault makes the context unusable, as on a GPU
    std::vector<Stream*> streams;
    Stream* null_stream = nullptr;
    std::map<uintptr_t, Alloc> allocs;
    size_t used = 0;
    int next_ordinal = 0;
};

std::recursive_mutex& lock();

// report writes one line to $AMT_EMU_LOG (or stderr): kind is "misuse"
// (something a real driver refuses or that would fail on a GPU), "fault"
// (a kernel went wrong), "inject" (AMT_EMU_FAIL) or "trace" (AMT_EMU_TRACE).
void report(const char* kind, const std::string& op, const std::string& msg);
// misuse reports and returns code.
int misuse(const std::string& op, int code, const std::string& msg);
bool tracing();
// injected returns the code AMT_EMU_FAIL asks this call of op to fail
// with, or 0.
int injected(const char* op, int def);

// current checks that a live context is current on this thread (else
// reports) and returns it; *code is set when it returns nullptr. A context
// with a sticky error returns that error without a report.
Ctx* current(const char* op, int* code);
bool is_stream(Ctx* c, void* s);
Stream* stream_of(Ctx* c, void* s);  // nullptr: the context's NULL stream
// device_range returns the device allocation of c holding [p, p+n), or
// nullptr; why says what is wrong.
const Alloc* device_range(Ctx* c, uintptr_t p, size_t n, std::string* why);
const Alloc* any_alloc(Ctx* c, uintptr_t p);  // holds p (end included)
void enqueue(Stream* s, Op op);
void run_stream(Stream* s, uint64_t upto);
std::string hex(uintptr_t p);

}  // namespace amtemu
