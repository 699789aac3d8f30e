// compat's reference TensorFlow PluggableDevice "APU".
//
// Device memory is host memory and every stream operation completes before it
// returns. The kernels reproduce TensorFlow's CPU kernels bit for bit,
// including what Eigen's AVX code does lane by lane (which signed zero a max
// returns, the order of float sums), so a difference from CPU is either a
// fault switched on on purpose or a bug in the code under test. Not matched:
// NaN payloads, float GEMMs where oneDNN/Eigen block the k sum, and the zero
// a max/min of +0.0 and -0.0 returns in broadcasts larger than one Eigen block.
//
// Configuration, read once when TensorFlow loads the plug-in:
//   COMPAT_APU_DEVICES  number of devices (default 1)
//   COMPAT_APU_FAULT    named fault (default: none), COMPAT_APU_SEED its seed; two are fatal:
//                       abort_in_kernel (Mul on float32 aborts) and hang_in_kernel (Sub on
//                       float32 never completes)
// compat_apu_set_fault / compat_apu_counters / compat_apu_reset_counters are
// exported for ctypes.

#include <algorithm>
#include <chrono>
#include <thread>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

#include <immintrin.h>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

// Opaque handles of the StreamExecutor C API: everything is synchronous, so
// streams, events and timers carry no state.
struct SP_Stream_st {};
struct SP_Event_st {};
struct SP_Timer_st {};

namespace {

// ---------------------------------------------------------------- faults

enum Fault : int {
  kNoFault,
  kReluNegativeZero,
  kSumFloat16Accumulate,
  kFloat64AsFloat32,
  kBroadcastStride,
  kCopyTruncate,
  kMatmulTranspose,
  kGraphRelu,
  kMulRoundsTowardZero,
  kAbortInKernel,  // fatal: the process dies
  kHangInKernel,   // fatal: the kernel never completes
  kNumFaults
};
const char* const kFaultNames[kNumFaults] = {
    "",
    "relu_negative_zero",
    "sum_float16_accumulate",
    "float64_as_float32",
    "broadcast_stride",
    "copy_truncate",
    "matmul_transpose",
    "graph_relu",
    "mul_rounds_toward_zero",
    "abort_in_kernel",
    "hang_in_kernel",
};

std::atomic<int> g_fault{kNoFault};
// Eager runs a kernel on the thread that calls it, the one that loaded the plug-in; a graph
// (tf.function) runs its nodes on TensorFlow's executor threads. Fault graph_relu plays a
// plug-in whose per-thread state (rounding or denormal modes, handles) is set up on the
// loading thread only.
std::thread::id g_loading_thread;
bool on_loading_thread() { return std::this_thread::get_id() == g_loading_thread; }
std::atomic<uint64_t> g_seed{0};
int g_num_devices = 1;

// One relaxed load: the whole cost of faults when they are off.
inline bool fault_on(Fault f) { return g_fault.load(std::memory_order_relaxed) == f; }

// -1 for an unknown name; null or "" means no fault.
int fault_index(const char* name) {
  if (name == nullptr || *name == '\0') return kNoFault;
  for (int i = 1; i < kNumFaults; ++i)
    if (std::strcmp(name, kFaultNames[i]) == 0) return i;
  return -1;
}

std::string known_faults() {
  std::string s;
  for (int i = 1; i < kNumFaults; ++i) s += (i > 1 ? ", " : "") + std::string(kFaultNames[i]);
  return s;
}

// ---------------------------------------------------------------- ops and launch counters

#define COMPAT_APU_OPS(X)                                                                          \
  X(AddV2) X(Sub) X(Mul) X(RealDiv) X(Maximum) X(Minimum) X(Neg) X(Abs) X(Square) X(Less)          \
  X(LessEqual) X(Greater) X(GreaterEqual) X(Equal) X(NotEqual) X(LogicalAnd) X(LogicalOr)          \
  X(LogicalNot) X(Relu) X(Cast) X(MatMul) X(BatchMatMulV2) X(Sum) X(Max) X(Mean) X(AddN)        \
  X(BroadcastTo) X(Reciprocal)

enum Op : int {
#define X(name) k##name,
  COMPAT_APU_OPS(X)
#undef X
  kNumOps
};
const char* const kOpNames[kNumOps] = {
#define X(name) #name,
    COMPAT_APU_OPS(X)
#undef X
};
std::atomic<uint64_t> g_launches[kNumOps];

// ---------------------------------------------------------------- StreamExecutor

void ok(TF_Status* status) { TF_SetStatus(status, TF_OK, ""); }

void* host_alloc(uint64_t size) {
  // TF's CPU allocator aligns to 64 bytes; aligned_alloc wants a multiple of it.
  return std::aligned_alloc(64, (std::max<uint64_t>(size, 1) + 63) / 64 * 64);
}

void se_allocate(const SP_Device*, uint64_t size, int64_t, SP_DeviceMemoryBase* mem) {
  mem->struct_size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE;
  mem->opaque = host_alloc(size);
  mem->size = size;
}
void se_deallocate(const SP_Device*, SP_DeviceMemoryBase* mem) {
  std::free(mem->opaque);
  mem->opaque = nullptr;
  mem->size = 0;
}
void* se_host_allocate(const SP_Device*, uint64_t size) { return host_alloc(size); }
void se_host_deallocate(const SP_Device*, void* mem) { std::free(mem); }
TF_Bool se_allocator_stats(const SP_Device*, SP_AllocatorStats*) { return false; }
TF_Bool se_memory_usage(const SP_Device*, int64_t* free, int64_t* total) {
  const int64_t page = sysconf(_SC_PAGESIZE);
  *free = sysconf(_SC_AVPHYS_PAGES) * page;
  *total = sysconf(_SC_PHYS_PAGES) * page;
  return true;
}

void se_create_stream(const SP_Device*, SP_Stream* stream, TF_Status* status) {
  *stream = new SP_Stream_st;
  ok(status);
}
void se_destroy_stream(const SP_Device*, SP_Stream stream) { delete stream; }
void se_stream_dependency(const SP_Device*, SP_Stream, SP_Stream, TF_Status* status) { ok(status); }
void se_stream_status(const SP_Device*, SP_Stream, TF_Status* status) { ok(status); }
void se_create_event(const SP_Device*, SP_Event* event, TF_Status* status) {
  *event = new SP_Event_st;
  ok(status);
}
void se_destroy_event(const SP_Device*, SP_Event event) { delete event; }
SE_EventStatus se_event_status(const SP_Device*, SP_Event) { return SE_EVENT_COMPLETE; }
void se_record_event(const SP_Device*, SP_Stream, SP_Event, TF_Status* status) { ok(status); }
void se_wait_for_event(const SP_Device*, SP_Stream, SP_Event, TF_Status* status) { ok(status); }
void se_create_timer(const SP_Device*, SP_Timer* timer, TF_Status* status) {
  *timer = new SP_Timer_st;
  ok(status);
}
void se_destroy_timer(const SP_Device*, SP_Timer timer) { delete timer; }
void se_timer_event(const SP_Device*, SP_Stream, SP_Timer, TF_Status* status) { ok(status); }
uint64_t timer_nanoseconds(SP_Timer) { return 0; }

void copy_bytes(void* dst, const void* src, uint64_t size) {
  if (size > 0) std::memcpy(dst, src, size);
}
void to_host(void* dst, const SP_DeviceMemoryBase* src, uint64_t size) {
  // Fault copy_truncate: the last (up to) 4 bytes never reach the host.
  if (fault_on(kCopyTruncate)) size -= std::min<uint64_t>(size, 4);
  copy_bytes(dst, src->opaque, size);
}
void se_memcpy_dtoh(const SP_Device*, SP_Stream, void* dst, const SP_DeviceMemoryBase* src,
                    uint64_t size, TF_Status* status) {
  to_host(dst, src, size);
  ok(status);
}
void se_sync_memcpy_dtoh(const SP_Device*, void* dst, const SP_DeviceMemoryBase* src,
                         uint64_t size, TF_Status* status) {
  to_host(dst, src, size);
  ok(status);
}
void se_memcpy_htod(const SP_Device*, SP_Stream, SP_DeviceMemoryBase* dst, const void* src,
                    uint64_t size, TF_Status* status) {
  copy_bytes(dst->opaque, src, size);
  ok(status);
}
void se_sync_memcpy_htod(const SP_Device*, SP_DeviceMemoryBase* dst, const void* src,
                         uint64_t size, TF_Status* status) {
  copy_bytes(dst->opaque, src, size);
  ok(status);
}
void se_memcpy_dtod(const SP_Device*, SP_Stream, SP_DeviceMemoryBase* dst,
                    const SP_DeviceMemoryBase* src, uint64_t size, TF_Status* status) {
  copy_bytes(dst->opaque, src->opaque, size);
  ok(status);
}
void se_sync_memcpy_dtod(const SP_Device*, SP_DeviceMemoryBase* dst,
                         const SP_DeviceMemoryBase* src, uint64_t size, TF_Status* status) {
  copy_bytes(dst->opaque, src->opaque, size);
  ok(status);
}
void se_block_for_event(const SP_Device*, SP_Event, TF_Status* status) { ok(status); }
void se_block_until_done(const SP_Device*, SP_Stream, TF_Status* status) { ok(status); }
void se_synchronize(const SP_Device*, TF_Status* status) { ok(status); }
void se_mem_zero(const SP_Device*, SP_Stream, SP_DeviceMemoryBase* mem, uint64_t size,
                 TF_Status* status) {
  std::memset(mem->opaque, 0, size);
  ok(status);
}
void se_memset(const SP_Device*, SP_Stream, SP_DeviceMemoryBase* mem, uint8_t pattern,
               uint64_t size, TF_Status* status) {
  std::memset(mem->opaque, pattern, size);
  ok(status);
}
void se_memset32(const SP_Device*, SP_Stream, SP_DeviceMemoryBase* mem, uint32_t pattern,
                 uint64_t size, TF_Status* status) {
  auto* words = static_cast<uint32_t*>(mem->opaque);
  std::fill(words, words + size / 4, pattern);
  ok(status);
}
TF_Bool se_host_callback(const SP_Device*, SP_Stream, SE_StatusCallbackFn fn, void* arg) {
  TF_Status* status = TF_NewStatus();
  fn(arg, status);  // the stream is always idle, so the callback may run now
  TF_DeleteStatus(status);
  return true;
}

void se_device_count(const SP_Platform*, int* count, TF_Status* status) {
  *count = g_num_devices;
  ok(status);
}
void se_create_device(const SP_Platform*, SE_CreateDeviceParams* params, TF_Status* status) {
  SP_Device* device = params->device;
  device->struct_size = SP_DEVICE_STRUCT_SIZE;
  device->ext = nullptr;
  device->ordinal = params->ordinal;
  device->device_handle = nullptr;
  device->hardware_name = "compat APU (host memory)";
  device->device_vendor = "compat";
  device->pci_bus_id = "";
  ok(status);
}
void se_destroy_device(const SP_Platform*, SP_Device*) {}
int32_t device_numa_node(const SP_Device*) { return -1; }
int64_t device_bandwidth(const SP_Device*) { return 0; }
double device_gflops(const SP_Device*) { return 0; }
void se_create_device_fns(const SP_Platform*, SE_CreateDeviceFnsParams* params,
                          TF_Status* status) {
  SP_DeviceFns* fns = params->device_fns;
  fns->struct_size = SP_DEVICE_FNS_STRUCT_SIZE;
  fns->get_numa_node = device_numa_node;
  fns->get_memory_bandwidth = device_bandwidth;
  fns->get_gflops = device_gflops;
  ok(status);
}
void se_destroy_device_fns(const SP_Platform*, SP_DeviceFns*) {}
void se_create_stream_executor(const SP_Platform*, SE_CreateStreamExecutorParams* params,
                               TF_Status* status) {
  SP_StreamExecutor* se = params->stream_executor;
  se->struct_size = SP_STREAMEXECUTOR_STRUCT_SIZE;
  se->allocate = se_allocate;
  se->deallocate = se_deallocate;
  se->host_memory_allocate = se_host_allocate;
  se->host_memory_deallocate = se_host_deallocate;
  se->unified_memory_allocate = se_host_allocate;
  se->unified_memory_deallocate = se_host_deallocate;
  se->get_allocator_stats = se_allocator_stats;
  se->device_memory_usage = se_memory_usage;
  se->create_stream = se_create_stream;
  se->destroy_stream = se_destroy_stream;
  se->create_stream_dependency = se_stream_dependency;
  se->get_stream_status = se_stream_status;
  se->create_event = se_create_event;
  se->destroy_event = se_destroy_event;
  se->get_event_status = se_event_status;
  se->record_event = se_record_event;
  se->wait_for_event = se_wait_for_event;
  se->create_timer = se_create_timer;
  se->destroy_timer = se_destroy_timer;
  se->start_timer = se_timer_event;
  se->stop_timer = se_timer_event;
  se->memcpy_dtoh = se_memcpy_dtoh;
  se->memcpy_htod = se_memcpy_htod;
  se->memcpy_dtod = se_memcpy_dtod;
  se->sync_memcpy_dtoh = se_sync_memcpy_dtoh;
  se->sync_memcpy_htod = se_sync_memcpy_htod;
  se->sync_memcpy_dtod = se_sync_memcpy_dtod;
  se->block_host_for_event = se_block_for_event;
  se->block_host_until_done = se_block_until_done;
  se->synchronize_all_activity = se_synchronize;
  se->mem_zero = se_mem_zero;
  se->memset = se_memset;
  se->memset32 = se_memset32;
  se->host_callback = se_host_callback;
  ok(status);
}
void se_destroy_stream_executor(const SP_Platform*, SP_StreamExecutor*) {}
void se_create_timer_fns(const SP_Platform*, SP_TimerFns* fns, TF_Status* status) {
  fns->struct_size = SP_TIMER_FNS_STRUCT_SIZE;
  fns->nanoseconds = timer_nanoseconds;
  ok(status);
}
void se_destroy_timer_fns(const SP_Platform*, SP_TimerFns*) {}
void se_destroy_platform(SP_Platform*) {}
void se_destroy_platform_fns(SP_PlatformFns*) {}

bool read_config(TF_Status* status) {
  if (const char* s = std::getenv("COMPAT_APU_DEVICES"); s != nullptr && *s != '\0') {
    char* end = nullptr;
    const long n = std::strtol(s, &end, 10);
    if (*end != '\0' || n < 1 || n > 64) {
      TF_SetStatus(status, TF_INVALID_ARGUMENT,
                   ("COMPAT_APU_DEVICES must be an integer from 1 to 64, not '" + std::string(s) + "'").c_str());
      return false;
    }
    g_num_devices = static_cast<int>(n);
  }
  const int fault = fault_index(std::getenv("COMPAT_APU_FAULT"));
  if (fault < 0) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT,
                 ("unknown COMPAT_APU_FAULT '" + std::string(std::getenv("COMPAT_APU_FAULT")) +
                  "' (known: " + known_faults() + ")").c_str());
    return false;
  }
  const char* seed = std::getenv("COMPAT_APU_SEED");
  g_seed = seed != nullptr ? std::strtoull(seed, nullptr, 10) : 0;
  g_fault = fault;
  return true;
}

// ---------------------------------------------------------------- CPU arithmetic, lane by lane
//
// TF's x86-64 wheels build Eigen for AVX: a packet holds 32 bytes. Element-wise
// kernels compute positions [0, n / lanes * lanes) with packet instructions
// and the rest with scalar code, and the two disagree on which operand a
// max/min returns on ties. TF runs kernels with flush-to-zero and
// denormals-are-zero set, and so do these (the thread's MXCSR is inherited).

template <class T>
constexpr int64_t kLanes = 32 / sizeof(T);

template <class T>
inline bool is_nan(T x) {
  return x != x;
}

// maxss/minss: b if a is not greater (smaller), b if either is NaN; with
// denormals-are-zero they return a denormal operand as zero.
inline float max_ss(float a, float b) { return _mm_cvtss_f32(_mm_max_ss(_mm_set_ss(a), _mm_set_ss(b))); }
inline double max_ss(double a, double b) { return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(a), _mm_set_sd(b))); }
inline float min_ss(float a, float b) { return _mm_cvtss_f32(_mm_min_ss(_mm_set_ss(a), _mm_set_ss(b))); }
inline double min_ss(double a, double b) { return _mm_cvtsd_f64(_mm_min_sd(_mm_set_sd(a), _mm_set_sd(b))); }

// Eigen's pmax/pmin<PropagateNaN> in one packet lane: a if NaN, else maxps(a, b).
template <class T>
inline T packet_max(T a, T b) {
  return is_nan(a) ? a : max_ss(a, b);
}
template <class T>
inline T packet_min(T a, T b) {
  return is_nan(a) ? a : min_ss(a, b);
}
// The scalar versions: the first NaN, else std::max/min (a on ties), which
// clang compiles to maxss(b, a) / minss(b, a).
template <class T>
inline T scalar_max(T a, T b) {
  return is_nan(a) ? a : is_nan(b) ? b : max_ss(b, a);
}
template <class T>
inline T scalar_min(T a, T b) {
  return is_nan(a) ? a : is_nan(b) ? b : min_ss(b, a);
}
// std::max computed by compare and select, which keeps denormals: what clang
// made of it in TF's reductions and in one Relu lane.
template <class T>
inline T select_max(T a, T b) {
  bool take_b = a < b;
  asm("" : "+r"(take_b));  // or the compiler fuses it into maxss
  return is_nan(a) ? a : is_nan(b) ? b : take_b ? b : a;
}

// Integers wrap around like TF's (two's complement) kernels.
template <class T>
using Unsigned = std::make_unsigned_t<T>;
template <class T>
inline T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) return T(Unsigned<T>(a) + Unsigned<T>(b));
  else return a + b;
}
template <class T>
inline T sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) return T(Unsigned<T>(a) - Unsigned<T>(b));
  else return a - b;
}
template <class T>
inline T mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) return T(Unsigned<T>(a) * Unsigned<T>(b));
  else return a * b;
}
// One k step of TF's CPU GEMMs: oneDNN fuses the float32 multiply-add, Eigen
// (float64, built without FMA) rounds the product first.
template <class T>
inline T mul_add(T a, T b, T acc) {
  if constexpr (std::is_integral_v<T>) return add(acc, mul(a, b));
  else if constexpr (std::is_same_v<T, float>) return std::fma(a, b, acc);
  else return acc + a * b;
}

// Round to the nearest float16 value (ties to even), for sum_float16_accumulate.
double to_half(double v) {
  if (!std::isfinite(v) || v == 0) return v;
  int exponent;
  std::frexp(v, &exponent);
  const double quantum = std::ldexp(1.0, std::max(exponent - 11, -24));
  const double r = std::nearbyint(v / quantum) * quantum;
  return std::fabs(r) > 65504 ? std::copysign(INFINITY, v) : r;
}

// ---------------------------------------------------------------- kernel plumbing

using Dims = std::vector<int64_t>;

int64_t num_elements(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

std::string str(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

// An op's attrs; element types come from the input tensors, except Cast's.
struct Kernel {
  Op op;
  TF_DataType src = TF_FLOAT;    // Cast: SrcT
  TF_DataType dst = TF_FLOAT;    // Cast: DstT
  bool flag_a = false;           // transpose_a / adj_x / keep_dims / Truncate / incompatible_shape_error
  bool flag_b = false;           // transpose_b / adj_y
};

// One kernel launch: inputs, outputs and error reporting.
class Context {
 public:
  explicit Context(TF_OpKernelContext* ctx) : ctx_(ctx), status_(TF_NewStatus()) {}
  ~Context() {
    for (TF_Tensor* t : tensors_) TF_DeleteTensor(t);
    TF_DeleteStatus(status_);
  }
  int num_inputs() { return TF_NumInputs(ctx_); }
  // nullptr after a failure (already reported).
  TF_Tensor* input(int i) {
    TF_Tensor* t = nullptr;
    TF_GetInput(ctx_, i, &t, status_);
    return keep(t);
  }
  TF_Tensor* output(TF_DataType dtype, const Dims& shape) {
    const size_t bytes = TF_DataTypeSize(dtype) * num_elements(shape);
    return keep(TF_AllocateOutput(ctx_, 0, dtype, shape.data(), static_cast<int>(shape.size()),
                                  bytes, status_));
  }
  void fail(const std::string& message) {
    TF_SetStatus(status_, TF_INVALID_ARGUMENT, message.c_str());
    TF_OpKernelContext_Failure(ctx_, status_);
  }

 private:
  TF_Tensor* keep(TF_Tensor* t) {
    if (t != nullptr) tensors_.push_back(t);
    if (TF_GetCode(status_) == TF_OK) return t;
    TF_OpKernelContext_Failure(ctx_, status_);
    return nullptr;
  }
  TF_OpKernelContext* ctx_;
  TF_Status* status_;
  std::vector<TF_Tensor*> tensors_;
};

Dims shape(const TF_Tensor* t) {
  Dims d(TF_NumDims(t));
  for (size_t i = 0; i < d.size(); ++i) d[i] = TF_Dim(t, static_cast<int>(i));
  return d;
}
template <class T>
const T* data(const TF_Tensor* t) {
  return static_cast<const T*>(TF_TensorData(t));
}
template <class T>
T* mutable_data(TF_Tensor* t) {
  return static_cast<T*>(TF_TensorData(t));
}

// Calls f(T{}) for the tensor's element type.
template <class F>
void with_type(TF_DataType dtype, F&& f) {
  switch (dtype) {
    case TF_FLOAT: return f(float{});
    case TF_DOUBLE: return f(double{});
    case TF_INT32: return f(int32_t{});
    case TF_INT64: return f(int64_t{});
    default: return f(bool{});
  }
}

// ---------------------------------------------------------------- broadcasting

// NumPy broadcasting: per output dim, each operand's element stride (0 where
// the operand is broadcast).
struct Broadcast {
  Dims out, stride_x, stride_y;
  bool valid = true;
};

Broadcast broadcast(const Dims& x, const Dims& y) {
  Broadcast b;
  const size_t rank = std::max(x.size(), y.size());
  b.out.assign(rank, 1);
  b.stride_x.assign(rank, 0);
  b.stride_y.assign(rank, 0);
  int64_t sx = 1, sy = 1;
  for (size_t k = 0; k < rank; ++k) {
    const size_t i = rank - 1 - k;
    const int64_t dx = k < x.size() ? x[x.size() - 1 - k] : 1;
    const int64_t dy = k < y.size() ? y[y.size() - 1 - k] : 1;
    if (dx != dy && dx != 1 && dy != 1) b.valid = false;
    b.out[i] = dx == 1 ? dy : dx;
    b.stride_x[i] = dx == 1 ? 0 : sx;
    b.stride_y[i] = dy == 1 ? 0 : sy;
    sx *= dx;
    sy *= dy;
  }
  return b;
}

// Fault broadcast_stride: along the outermost dim where exactly one operand is
// broadcast, the other one is read with stride 0 too.
void break_stride(Broadcast& b) {
  for (size_t i = 0; i < b.out.size(); ++i) {
    if (b.out[i] > 1 && (b.stride_x[i] == 0) != (b.stride_y[i] == 0)) {
      b.stride_x[i] = b.stride_y[i] = 0;
      return;
    }
  }
}

// g(i, offset_x, offset_y) for every output position i, in row-major order.
template <class G>
void for_each_offset(const Broadcast& b, G g) {
  const int64_t n = num_elements(b.out);
  if (n == 0) return;
  const int rank = static_cast<int>(b.out.size());
  if (rank == 0) return g(0, 0, 0);
  const int64_t inner = b.out[rank - 1], ix = b.stride_x[rank - 1], iy = b.stride_y[rank - 1];
  Dims index(rank, 0);
  int64_t ox = 0, oy = 0;
  for (int64_t i = 0; i < n; i += inner) {
    for (int64_t j = 0; j < inner; ++j) g(i + j, ox + j * ix, oy + j * iy);
    for (int d = rank - 2; d >= 0; --d) {
      ox += b.stride_x[d];
      oy += b.stride_y[d];
      if (++index[d] < b.out[d]) break;
      ox -= b.stride_x[d] * b.out[d];
      oy -= b.stride_y[d] * b.out[d];
      index[d] = 0;
    }
  }
}

// z[i] = f(x[.], y[.], i) over the broadcast output.
template <class X, class Z, class F>
void for_each_pair(const Broadcast& b, const X* x, const X* y, Z* z, F f) {
  for_each_offset(b, [&](int64_t i, int64_t ox, int64_t oy) { z[i] = f(x[ox], y[oy], i); });
}

// ---------------------------------------------------------------- element-wise kernels

bool returns_bool(Op op) {
  return op == kLess || op == kLessEqual || op == kGreater || op == kGreaterEqual ||
         op == kEqual || op == kNotEqual || op == kLogicalAnd || op == kLogicalOr;
}

// Fault mul_rounds_toward_zero: a float32 product rounded toward zero, not to nearest (one
// ULP too small in magnitude wherever nearest rounded away; exact in double, so decidable).
inline float mul_toward_zero(float a, float c) {
  const float r = a * c;
  const double exact = static_cast<double>(a) * static_cast<double>(c);
  return std::isfinite(exact) && std::fabs(static_cast<double>(r)) > std::fabs(exact) ? std::nextafter(r, 0.0f) : r;
}

template <class T>
void binary_typed(const Kernel& k, const Broadcast& b, const T* x, const T* y, TF_Tensor* out) {
  const int64_t vector_end = num_elements(b.out) / kLanes<T> * kLanes<T>;
  auto run = [&](auto f) { for_each_pair(b, x, y, mutable_data<decltype(f(x[0], y[0], 0))>(out), f); };
  if (returns_bool(k.op)) {
    switch (k.op) {
      case kLess: return run([](T a, T c, int64_t) { return a < c; });
      case kLessEqual: return run([](T a, T c, int64_t) { return a <= c; });
      case kGreater: return run([](T a, T c, int64_t) { return a > c; });
      case kGreaterEqual: return run([](T a, T c, int64_t) { return a >= c; });
      case kEqual: return run([](T a, T c, int64_t) { return a == c; });
      case kNotEqual: return run([](T a, T c, int64_t) { return a != c; });
      case kLogicalAnd: return run([](T a, T c, int64_t) { return a && c; });
      default: return run([](T a, T c, int64_t) { return a || c; });
    }
  }
  if constexpr (!std::is_same_v<T, bool>) {
    // Fault float64_as_float32: the four arithmetic ops round through float.
    const bool narrow = std::is_same_v<T, double> && fault_on(kFloat64AsFloat32);
    auto narrowed = [&](auto f) {
      if (!narrow) return run([f](T a, T c, int64_t) { return f(a, c); });
      run([f](T a, T c, int64_t) { return T(f(float(a), float(c))); });
    };
    switch (k.op) {
      case kAddV2: return narrowed([](auto a, auto c) { return add(a, c); });
      case kSub: return narrowed([](auto a, auto c) { return sub(a, c); });
      case kMul:
        if constexpr (std::is_same_v<T, float>)
          if (fault_on(kMulRoundsTowardZero)) return run([](T a, T c, int64_t) { return mul_toward_zero(a, c); });
        return narrowed([](auto a, auto c) { return mul(a, c); });
      case kRealDiv: return narrowed([](auto a, auto c) { return a / c; });
      case kMaximum:
        if constexpr (std::is_floating_point_v<T>)
          return run([=](T a, T c, int64_t i) { return i < vector_end ? packet_max(a, c) : scalar_max(a, c); });
        else return run([](T a, T c, int64_t) { return std::max(a, c); });
      default:
        if constexpr (std::is_floating_point_v<T>)
          return run([=](T a, T c, int64_t i) { return i < vector_end ? packet_min(a, c) : scalar_min(a, c); });
        else return run([](T a, T c, int64_t) { return std::min(a, c); });
    }
  }
}

void binary(const Kernel& k, Context& c) {
  const TF_Tensor* x = c.input(0);
  const TF_Tensor* y = x ? c.input(1) : nullptr;
  if (y == nullptr) return;
  Broadcast b = broadcast(shape(x), shape(y));
  if (!b.valid) {
    if ((k.op == kEqual || k.op == kNotEqual) && !k.flag_a) {
      // incompatible_shape_error=false: a scalar saying "not equal".
      if (TF_Tensor* out = c.output(TF_BOOL, {})) *mutable_data<bool>(out) = k.op == kNotEqual;
      return;
    }
    return c.fail("Incompatible shapes: " + str(shape(x)) + " vs. " + str(shape(y)));
  }
  static const Op kStrideOps[] = {kAddV2, kSub, kMul, kMaximum};
  if (fault_on(kBroadcastStride) && k.op == kStrideOps[g_seed.load() % 4]) break_stride(b);
  const TF_DataType dtype = TF_TensorType(x);
  // Fatal faults: Mul on float32 aborts the process; Sub on float32 never completes
  // (it sleeps, holding no lock a watchdog would need).
  if (fault_on(kAbortInKernel) && k.op == kMul && dtype == TF_FLOAT) std::abort();
  if (fault_on(kHangInKernel) && k.op == kSub && dtype == TF_FLOAT)
    for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  TF_Tensor* out = c.output(returns_bool(k.op) ? TF_BOOL : dtype, b.out);
  if (out == nullptr) return;
  with_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    binary_typed<T>(k, b, data<T>(x), data<T>(y), out);
  });
}

// Eigen's float reciprocal in a packet (fast math): rcpps's 12-bit estimate and one
// Newton step, x + x * (1 - a * x) with AVX's separate roundings; the estimate alone
// where the step is NaN (a zero or infinite a). Scalar code and double divide exactly.
inline float packet_reciprocal(float a) {
  const float x = _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(a)));
  const float step = 1.0f - a * x;
  return step == step ? x * step + x : x;
}

template <class T>
T unary_value(Op op, T x, bool vector_lane, bool kept_lane, bool flip_negative_zero) {
  if constexpr (std::is_same_v<T, bool>) {
    return !x;
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case kNeg: return -x;
      case kAbs: return std::fabs(x);
      case kSquare: return x * x;
      case kReciprocal:
        if constexpr (std::is_same_v<T, float>) return vector_lane ? packet_reciprocal(x) : 1.0f / x;
        return T(1) / x;
      default: {
        // TF's Relu computes the first of an odd number of tail elements on
        // its own (clang's loop peeling), without flushing denormals.
        T r = vector_lane ? packet_max(x, T(0)) : kept_lane ? select_max(x, T(0)) : scalar_max(x, T(0));
        // Faults relu_negative_zero, graph_relu (off the loading thread): -0.0 comes out as the other zero.
        if (std::fpclassify(x) == FP_ZERO && std::signbit(x) && flip_negative_zero) r = -r;
        return r;
      }
    }
  } else {
    switch (op) {
      case kNeg: return sub(T(0), x);
      case kAbs: return x < 0 ? sub(T(0), x) : x;
      case kSquare: return mul(x, x);
      default: return std::max(x, T(0));
    }
  }
}

void unary(const Kernel& k, Context& c) {
  const TF_Tensor* x = c.input(0);
  if (x == nullptr) return;
  TF_Tensor* out = c.output(TF_TensorType(x), shape(x));
  if (out == nullptr) return;
  with_type(TF_TensorType(x), [&](auto tag) {
    using T = decltype(tag);
    const int64_t n = TF_TensorElementCount(x), vector_end = n / kLanes<T> * kLanes<T>;
    const T* in = data<T>(x);
    T* z = mutable_data<T>(out);
    const int64_t kept = (n - vector_end) % 2 == 1 ? vector_end : -1;
    const bool flip = fault_on(kReluNegativeZero) || (fault_on(kGraphRelu) && !on_loading_thread());
    for (int64_t i = 0; i < n; ++i) z[i] = unary_value(k.op, in[i], i < vector_end, i == kept, flip);
  });
}

template <class Out, class In>
Out cast_value(In x, bool truncate) {
  if constexpr (std::is_same_v<Out, bool>) {
    return x != In(0);
  } else if constexpr (std::is_floating_point_v<In> && std::is_integral_v<Out>) {
    // x86's cvtt*: NaN and out-of-range values give the most negative integer.
    const double limit = -static_cast<double>(std::numeric_limits<Out>::min());
    return x >= -limit && x < limit ? static_cast<Out>(x) : std::numeric_limits<Out>::min();
  } else if constexpr (std::is_same_v<In, double> && std::is_same_v<Out, float>) {
    if (truncate && !is_nan(x)) {
      // Truncate=True: zero the 29 mantissa bits float has no room for.
      uint64_t bits;
      std::memcpy(&bits, &x, 8);
      bits &= ~uint64_t{0} << 29;
      std::memcpy(&x, &bits, 8);
    }
    return static_cast<float>(x);
  } else {
    return static_cast<Out>(x);
  }
}

void cast(const Kernel& k, Context& c) {
  const TF_Tensor* x = c.input(0);
  if (x == nullptr) return;
  TF_Tensor* out = c.output(k.dst, shape(x));
  if (out == nullptr) return;
  const int64_t n = TF_TensorElementCount(x);
  with_type(k.src, [&](auto in_tag) {
    with_type(k.dst, [&](auto out_tag) {
      using In = decltype(in_tag);
      using Out = decltype(out_tag);
      const In* in = data<In>(x);
      Out* z = mutable_data<Out>(out);
      for (int64_t i = 0; i < n; ++i) z[i] = cast_value<Out>(in[i], k.flag_a);
    });
  });
}

void add_n(const Kernel&, Context& c) {
  std::vector<const TF_Tensor*> xs;
  for (int i = 0; i < c.num_inputs(); ++i) {
    xs.push_back(c.input(i));
    if (xs.back() == nullptr) return;
    if (shape(xs.back()) != shape(xs[0]))
      return c.fail("Inputs to operation AddN must have the same size and shape.  Input 0: " +
                    str(shape(xs[0])) + " != input " + std::to_string(i) + ": " + str(shape(xs.back())));
  }
  TF_Tensor* out = c.output(TF_TensorType(xs[0]), shape(xs[0]));
  if (out == nullptr) return;
  with_type(TF_TensorType(xs[0]), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      // TF's AddN sums the first 2..9 inputs left to right (Add2..Add9), then
      // adds each further group of 8, summed left to right first (Add8p).
      const size_t n = xs.size(), head = std::min(n, n % 8 < 2 ? n % 8 + 8 : n % 8);
      T* z = mutable_data<T>(out);
      for (int64_t i = 0; i < TF_TensorElementCount(xs[0]); ++i) {
        T sum = data<T>(xs[0])[i];
        for (size_t j = 1; j < head; ++j) sum = add(sum, data<T>(xs[j])[i]);
        for (size_t group = head; group < n; group += 8) {
          T part = data<T>(xs[group])[i];
          for (size_t j = group + 1; j < group + 8; ++j) part = add(part, data<T>(xs[j])[i]);
          sum = add(sum, part);
        }
        z[i] = sum;
      }
    }
  });
}

// TF's BroadcastToOp with its checks and messages: an empty output must be
// compatible too, and as BCast broadcasts either way, an input larger than
// the output passes BCast and is refused after it.
void broadcast_to(const Kernel&, Context& c) {
  const TF_Tensor* x = c.input(0);
  const TF_Tensor* shape_tensor = x ? c.input(1) : nullptr;
  if (shape_tensor == nullptr) return;
  if (TF_NumDims(shape_tensor) != 1)
    return c.fail("shape must be a vector of {int32,int64}, got shape " + str(shape(shape_tensor)));
  Dims to(TF_TensorElementCount(shape_tensor));
  for (size_t i = 0; i < to.size(); ++i) {
    to[i] = TF_TensorType(shape_tensor) == TF_INT32 ? data<int32_t>(shape_tensor)[i]
                                                     : data<int64_t>(shape_tensor)[i];
    if (to[i] < 0) return c.fail("Dimension " + std::to_string(to[i]) + " must be >= 0");
  }
  const Dims from = shape(x);
  if (from.size() > to.size())
    return c.fail("Rank of input (" + std::to_string(from.size()) +
                  ") must be no greater than rank of output shape (" + std::to_string(to.size()) + ").");
  const Broadcast b = broadcast(from, to);
  if (!b.valid) return c.fail("Incompatible shapes: " + str(from) + " vs. " + str(to));
  if (b.out != to)
    return c.fail("Unable to broadcast tensor of shape " + str(from) + " to tensor of shape " + str(to));
  TF_Tensor* out = c.output(TF_TensorType(x), to);
  if (out == nullptr) return;
  with_type(TF_TensorType(x), [&](auto tag) {
    using T = decltype(tag);
    const T* in = data<T>(x);
    T* z = mutable_data<T>(out);
    for_each_offset(b, [&](int64_t i, int64_t ox, int64_t) { z[i] = in[ox]; });
  });
}

// ---------------------------------------------------------------- matrix products

// c[M,N] = a[M,K] b[K,N], a and b given by element strides, accumulating
// over k in order like TF's CPU GEMMs do for moderate sizes.
template <class T>
void gemm(const T* a, int64_t a_row, int64_t a_col, const T* b, int64_t b_row, int64_t b_col,
          T* c, int64_t m, int64_t kk, int64_t n) {
  std::fill(c, c + m * n, T(0));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t k = 0; k < kk; ++k) {
      const T aik = a[i * a_row + k * a_col];
      for (int64_t j = 0; j < n; ++j) c[i * n + j] = mul_add(aik, b[k * b_row + j * b_col], c[i * n + j]);
    }
}

void matmul(const Kernel& k, Context& c) {
  const TF_Tensor* a = c.input(0);
  const TF_Tensor* b = a ? c.input(1) : nullptr;
  if (b == nullptr) return;
  const Dims da = shape(a), db = shape(b);
  const bool batched = k.op == kBatchMatMulV2;
  if (da.size() < 2 || db.size() < 2 || (!batched && (da.size() != 2 || db.size() != 2)))
    return c.fail("In[0] and In[1] must be matrices: " + str(da) + ", " + str(db));
  const size_t ra = da.size(), rb = db.size();
  // Fault matmul_transpose: MatMul reads b's buffer as if transpose_b were false.
  const bool tb = k.flag_b && !(k.op == kMatMul && fault_on(kMatmulTranspose));
  const int64_t m = k.flag_a ? da[ra - 1] : da[ra - 2], kk = k.flag_a ? da[ra - 2] : da[ra - 1];
  const int64_t kb = k.flag_b ? db[rb - 1] : db[rb - 2], n = k.flag_b ? db[rb - 2] : db[rb - 1];
  if (kk != kb)
    return c.fail("Matrix size-incompatible: In[0]: " + str(da) + ", In[1]: " + str(db));
  Broadcast batch = broadcast(Dims(da.begin(), da.end() - 2), Dims(db.begin(), db.end() - 2));
  if (!batch.valid)
    return c.fail("In[0] and In[1] must have compatible batch dimensions: " + str(da) + " vs. " + str(db));
  Dims out_shape = batch.out;
  out_shape.push_back(m);
  out_shape.push_back(n);
  TF_Tensor* out = c.output(TF_TensorType(a), out_shape);
  if (out == nullptr) return;
  // Which matrix of a and of b each output matrix reads.
  const int64_t batches = num_elements(batch.out);
  std::vector<int64_t> matrix_a(batches), matrix_b(batches);
  for_each_offset(batch, [&](int64_t i, int64_t ia, int64_t ib) {
    matrix_a[i] = ia;
    matrix_b[i] = ib;
  });
  with_type(TF_TensorType(a), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      const int64_t a_row = k.flag_a ? 1 : kk, a_col = k.flag_a ? m : 1;
      const int64_t b_row = tb ? 1 : n, b_col = tb ? kk : 1;
      for (int64_t i = 0; i < batches; ++i)
        gemm(data<T>(a) + matrix_a[i] * m * kk, a_row, a_col, data<T>(b) + matrix_b[i] * kk * n,
             b_row, b_col, mutable_data<T>(out) + i * m * n, m, kk, n);
    }
  });
}

// ---------------------------------------------------------------- reductions
//
// Float Sum/Max/Mean follow TF's ReductionOp and Eigen's reducers step by
// step: TF merges the input into alternating runs of reduced and kept dims
// and picks an Eigen expression by their pattern; Eigen accumulates in packets
// (several accumulators, a tree above 1024 packets) and scalars (the rest).

template <class T>
using Packet = std::array<T, kLanes<T>>;

// How TF's compiled reductions step: a scalar step, the same where clang
// kept it a compare-and-select (a lone scalar, the tree), one lane of a packet
// step, and joining the scalar and packet parts.
template <class T>
struct SumReducer {
  static T init() { return T(0); }
  static T reduce(T x, T acc) { return acc + x; }
  static T keep(T x, T acc) { return acc + x; }
  static T packet(T acc, T x) { return acc + x; }
  static T finalize(T s, T v) { return s + v; }
};
template <class T>
struct MaxReducer {
  static T init() { return -std::numeric_limits<T>::infinity(); }
  static T reduce(T x, T acc) { return scalar_max(x, acc); }
  static T keep(T x, T acc) { return select_max(x, acc); }
  static T packet(T acc, T x) { return packet_max(acc, x); }
  static T finalize(T s, T v) { return select_max(s, v); }
};

template <class R, class T>
void packet_step(Packet<T>& acc, const T* x) {
  for (int64_t l = 0; l < kLanes<T>; ++l) acc[l] = R::packet(acc[l], x[l]);
}

// Eigen's predux: fold the upper half of the packet onto the lower half.
template <class R, class T>
T fold(Packet<T> v) {
  for (int64_t width = kLanes<T> / 2; width >= 1; width /= 2)
    for (int64_t l = 0; l < width; ++l) v[l] = R::packet(v[l], v[l + width]);
  return v[0];
}

// InnerMostDimReducer on n contiguous values.
template <class R, class T>
T reduce_leaf(const T* x, int64_t n) {
  constexpr int64_t P = kLanes<T>;
  Packet<T> acc0;
  acc0.fill(R::init());
  int64_t j = 0;
  if (n >= 4 * P) {
    Packet<T> acc1 = acc0, acc2 = acc0, acc3 = acc0;
    for (; j + 4 * P <= n; j += 4 * P) {
      packet_step<R>(acc0, x + j);
      packet_step<R>(acc1, x + j + P);
      packet_step<R>(acc2, x + j + 2 * P);
      packet_step<R>(acc3, x + j + 3 * P);
    }
    packet_step<R>(acc0, acc1.data());
    packet_step<R>(acc0, acc2.data());
    packet_step<R>(acc0, acc3.data());
  }
  for (; j + P <= n; j += P) packet_step<R>(acc0, x + j);
  T s = R::init();
  if (j == n - 1) s = R::keep(x[j], s);
  else for (; j < n; ++j) s = R::reduce(x[j], s);
  return R::finalize(s, fold<R>(acc0));
}

// The same with Eigen's tree above 1024 packets; the split point is aligned
// to a packet of the whole tensor (first is the run's offset in it).
template <class R, class T>
T reduce_run(const T* base, int64_t first, int64_t n) {
  constexpr int64_t P = kLanes<T>;
  if (n <= P * 1024) return reduce_leaf<R>(base + first, n);
  const int64_t split = P * ((first + (n + 1) / 2 + P - 1) / P);
  const int64_t left = std::min(split - first, n);
  T acc = R::keep(reduce_run<R>(base, first, left), R::init());
  if (left < n) acc = R::keep(reduce_run<R>(base, split, n - left), acc);
  return acc;
}

// InnerMostDimPreserver: one packet of adjacent outputs, m values each, stride apart.
template <class R, class T>
void reduce_columns(const T* x, int64_t stride, int64_t m, T* out) {
  Packet<T> acc0;
  acc0.fill(R::init());
  int64_t j = 0;
  if (m >= 16) {
    Packet<T> acc1 = acc0, acc2 = acc0, acc3 = acc0;
    for (; j + 4 <= m; j += 4) {
      packet_step<R>(acc0, x + j * stride);
      packet_step<R>(acc1, x + (j + 1) * stride);
      packet_step<R>(acc2, x + (j + 2) * stride);
      packet_step<R>(acc3, x + (j + 3) * stride);
    }
    packet_step<R>(acc0, acc1.data());
    packet_step<R>(acc0, acc2.data());
    packet_step<R>(acc0, acc3.data());
  }
  for (; j < m; ++j) packet_step<R>(acc0, x + j * stride);
  std::copy(acc0.begin(), acc0.end(), out);
}

// GenericDimReducer for one output: m values, stride apart, one at a time.
template <class R, class T>
T reduce_column(const T* x, int64_t stride, int64_t m) {
  T acc = R::init();
  for (int64_t j = 0; j < m; ++j) acc = R::reduce(x[j * stride], acc);
  return acc;
}

// TF's ReductionHelper::Simplify.
struct Reduction {
  Dims data;                // merged input dims; data[0] is reduced iff reduce_first
  bool reduce_first = true;
  Dims out_shape;           // the op's output shape
};

bool simplify(const Dims& in, const std::vector<int64_t>& axes, bool keep_dims, Reduction& r,
              std::string& error) {
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      error = "Invalid reduction dimension (" + std::to_string(axis) + " for input with " +
              std::to_string(rank) + " dimension(s)";
      return false;
    }
    if (reduced[(axis + rank) % rank]) {
      error = "Invalid reduction arguments: Axes contains duplicate dimension: " + std::to_string((axis + rank) % rank);
      return false;
    }
    reduced[(axis + rank) % rank] = true;
  }
  for (int64_t i = 0; i < rank; ++i)
    if (!reduced[i] || keep_dims) r.out_shape.push_back(reduced[i] ? 1 : in[i]);
  int64_t i = 0;
  while (i < rank && in[i] == 1) ++i;  // leading 1s do not count
  if (i == rank) return true;
  r.reduce_first = reduced[i];
  r.data.push_back(in[i]);
  for (++i; i < rank; ++i) {
    if (in[i] == 1) reduced[i] = reduced[i - 1];  // a size-1 dim joins the current run
    if (reduced[i] != reduced[i - 1]) r.data.push_back(in[i]);
    else r.data.back() *= in[i];
  }
  return true;
}

// The input transposed so that kept dims come first, reduced dims last.
template <class T>
std::vector<T> kept_then_reduced(const Reduction& r, const T* x) {
  const int64_t nd = static_cast<int64_t>(r.data.size());
  Dims strides(nd, 1), dims, steps;
  for (int64_t i = nd - 2; i >= 0; --i) strides[i] = strides[i + 1] * r.data[i + 1];
  for (int64_t pass = 0; pass < 2; ++pass)
    for (int64_t i = (r.reduce_first != (pass == 1)) ? 1 : 0; i < nd; i += 2) {
      dims.push_back(r.data[i]);
      steps.push_back(strides[i]);
    }
  std::vector<T> out(num_elements(r.data));
  Dims index(nd, 0);
  int64_t offset = 0;
  for (T& v : out) {
    v = x[offset];
    for (int64_t k = nd - 1; k >= 0; --k) {
      offset += steps[k];
      if (++index[k] < dims[k]) break;
      offset -= steps[k] * dims[k];
      index[k] = 0;
    }
  }
  return out;
}

template <class R, class T>
void reduce_float(const Reduction& r, const T* x, T* out) {
  constexpr int64_t P = kLanes<T>;
  const Dims& d = r.data;
  if (d.size() == 1) {  // everything
    out[0] = reduce_run<R>(x, 0, d[0]);
  } else if (d.size() == 2 && r.reduce_first) {  // columns of [rows, cols]
    const int64_t cols = d[1], packed = cols / P * P;
    for (int64_t o = 0; o < packed; o += P) reduce_columns<R>(x + o, cols, d[0], out + o);
    for (int64_t o = packed; o < cols; ++o) out[o] = reduce_column<R>(x + o, cols, d[0]);
  } else if (d.size() == 2) {  // rows of [rows, cols]
    for (int64_t o = 0; o < d[0]; ++o) out[o] = reduce_run<R>(x, o * d[1], d[1]);
  } else if (d.size() == 3 && r.reduce_first) {  // dims 0 and 2 of [a, b, c]: c outer, a inner
    const int64_t a = d[0], b = d[1], c = d[2];
    for (int64_t o = 0; o < b; ++o) {
      T acc = R::init();
      for (int64_t k = 0; k < c; ++k)
        for (int64_t i = 0; i < a; ++i) acc = R::reduce(x[(i * b + o) * c + k], acc);
      out[o] = acc;
    }
  } else if (d.size() == 3) {  // dim 1 of [a, b, c]: packets of outputs within a row of c
    const int64_t b = d[1], c = d[2], n = d[0] * c, packed = n / P * P;
    auto first = [&](int64_t o) { return x + o / c * b * c + o % c; };
    for (int64_t o = 0; o < packed; o += P) {
      if (o % c + P <= c) reduce_columns<R>(first(o), c, b, out + o);
      else for (int64_t l = o; l < o + P; ++l) out[l] = reduce_column<R>(first(l), c, b);
    }
    for (int64_t o = packed; o < n; ++o) out[o] = reduce_column<R>(first(o), c, b);
  } else {  // TF transposes the reduced dims last and reduces rows
    const std::vector<T> t = kept_then_reduced(r, x);
    int64_t rows = 1;
    for (size_t i = r.reduce_first ? 1 : 0; i < d.size(); i += 2) rows *= d[i];
    const int64_t len = static_cast<int64_t>(t.size()) / rows;
    for (int64_t o = 0; o < rows; ++o) out[o] = reduce_run<R>(t.data(), o * len, len);
  }
}

template <class T>
T reduction_identity(Op op) {
  if (op == kMax) return std::is_integral_v<T> ? std::numeric_limits<T>::lowest()
                                               : -std::numeric_limits<T>::infinity();
  if (op == kMean && std::is_floating_point_v<T>) return std::numeric_limits<T>::quiet_NaN();
  return T(0);
}

template <class T>
void reduce_typed(Op op, const Reduction& r, const T* x, T* out, int64_t outputs, int64_t count) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!(op == kSum && fault_on(kSumFloat16Accumulate))) {
      if (op == kMax) return reduce_float<MaxReducer<T>>(r, x, out);
      reduce_float<SumReducer<T>>(r, x, out);
      if (op == kMean)
        for (int64_t o = 0; o < outputs; ++o) out[o] = out[o] / static_cast<T>(count);
      return;
    }
  }
  // Integers (exact in any order) and the float16 fault: each output's values in turn.
  const std::vector<T> t = kept_then_reduced(r, x);
  for (int64_t o = 0; o < outputs; ++o) {
    const T* v = t.data() + o * count;
    if constexpr (std::is_floating_point_v<T>) {
      // Fault sum_float16_accumulate: values and running sum rounded to float16.
      double acc = 0;
      for (int64_t j = 0; j < count; ++j) acc = to_half(acc + to_half(v[j]));
      out[o] = static_cast<T>(acc);
    } else if (op == kMax) {
      out[o] = *std::max_element(v, v + count);
    } else {
      // Mean sums int32 in int64 (TF's CASTING_SPECIALIZATION), then truncates.
      int64_t acc = 0;
      for (int64_t j = 0; j < count; ++j) acc = add<int64_t>(acc, v[j]);
      out[o] = op == kSum ? static_cast<T>(acc) : static_cast<T>(acc / count);
    }
  }
}

void reduce(const Kernel& k, Context& c) {
  const TF_Tensor* x = c.input(0);
  const TF_Tensor* axes_tensor = x ? c.input(1) : nullptr;
  if (axes_tensor == nullptr) return;
  std::vector<int64_t> axes(TF_TensorElementCount(axes_tensor));
  for (size_t i = 0; i < axes.size(); ++i)
    axes[i] = TF_TensorType(axes_tensor) == TF_INT32 ? data<int32_t>(axes_tensor)[i]
                                                     : data<int64_t>(axes_tensor)[i];
  Reduction r;
  std::string error;
  if (!simplify(shape(x), axes, k.flag_a, r, error)) return c.fail(error);
  TF_Tensor* out = c.output(TF_TensorType(x), r.out_shape);
  if (out == nullptr) return;
  const int64_t inputs = TF_TensorElementCount(x), outputs = num_elements(r.out_shape);
  with_type(TF_TensorType(x), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      T* z = mutable_data<T>(out);
      if (r.data.empty() || (r.data.size() == 1 && !r.reduce_first)) {
        std::copy_n(data<T>(x), inputs, z);  // nothing to reduce
      } else if (outputs > 0 && inputs == 0) {
        std::fill_n(z, outputs, reduction_identity<T>(k.op));
      } else if (outputs > 0) {
        reduce_typed<T>(k.op, r, data<T>(x), z, outputs, inputs / outputs);
      }
    }
  });
}

// ---------------------------------------------------------------- registration

template <Op kOp>
void* create_kernel(TF_OpKernelConstruction* ctx) {
  auto* k = new Kernel{kOp};
  TF_Status* status = TF_NewStatus();
  auto get_bool = [&](const char* name, bool* value) {
    TF_Bool b = *value;
    if (TF_OpKernelConstruction_HasAttr(ctx, name, status))
      TF_OpKernelConstruction_GetAttrBool(ctx, name, &b, status);
    *value = b;
  };
  switch (kOp) {
    case kCast:
      TF_OpKernelConstruction_GetAttrType(ctx, "SrcT", &k->src, status);
      TF_OpKernelConstruction_GetAttrType(ctx, "DstT", &k->dst, status);
      get_bool("Truncate", &k->flag_a);
      break;
    case kMatMul:
      get_bool("transpose_a", &k->flag_a);
      get_bool("transpose_b", &k->flag_b);
      break;
    case kBatchMatMulV2:
      get_bool("adj_x", &k->flag_a);
      get_bool("adj_y", &k->flag_b);
      break;
    case kSum:
    case kMax:
    case kMean:
      get_bool("keep_dims", &k->flag_a);
      break;
    case kEqual:
    case kNotEqual:
      k->flag_a = true;
      get_bool("incompatible_shape_error", &k->flag_a);
      break;
    default:
      break;
  }
  if (TF_GetCode(status) != TF_OK) TF_OpKernelConstruction_Failure(ctx, status);
  TF_DeleteStatus(status);
  return k;
}

void compute(void* kernel, TF_OpKernelContext* ctx) {
  const Kernel& k = *static_cast<const Kernel*>(kernel);
  g_launches[k.op].fetch_add(1, std::memory_order_relaxed);
  Context c(ctx);
  switch (k.op) {
    case kNeg:
    case kAbs:
    case kSquare:
    case kLogicalNot:
    case kRelu:
    case kReciprocal:
      return unary(k, c);
    case kCast:
      return cast(k, c);
    case kMatMul:
    case kBatchMatMulV2:
      return matmul(k, c);
    case kSum:
    case kMax:
    case kMean:
      return reduce(k, c);
    case kAddN:
      return add_n(k, c);
    case kBroadcastTo:
      return broadcast_to(k, c);
    default:
      return binary(k, c);
  }
}

void delete_kernel(void* kernel) { delete static_cast<Kernel*>(kernel); }

void* (*const kCreate[kNumOps])(TF_OpKernelConstruction*) = {
#define X(name) create_kernel<k##name>,
    COMPAT_APU_OPS(X)
#undef X
};

// One APU kernel for op with the given attr -> type constraints.
void register_kernel(int op, const std::vector<std::pair<const char*, TF_DataType>>& types,
                     TF_Status* status) {
  TF_KernelBuilder* builder = TF_NewKernelBuilder(kOpNames[op], "APU", kCreate[op], compute, delete_kernel);
  std::string name = std::string("CompatApu") + kOpNames[op];
  for (const auto& [attr, type] : types) {
    TF_KernelBuilder_TypeConstraint(builder, attr, type, status);
    name += "_" + std::to_string(type);
  }
  if (op == kSum || op == kMax || op == kMean) TF_KernelBuilder_HostMemory(builder, "reduction_indices");
  if (op == kBroadcastTo) TF_KernelBuilder_HostMemory(builder, "shape");
  TF_RegisterKernelBuilder(name.c_str(), builder, status);
  if (TF_GetCode(status) != TF_OK)
    std::fprintf(stderr, "compat APU: cannot register %s: %s\n", name.c_str(), TF_Message(status));
}

}  // namespace

// ---------------------------------------------------------------- entry points

EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  if (!read_config(status)) return;
  params->major_version = SE_MAJOR;
  params->minor_version = SE_MINOR;
  params->patch_version = SE_PATCH;
  SP_Platform* platform = params->platform;
  platform->struct_size = SP_PLATFORM_STRUCT_SIZE;
  platform->name = "COMPAT_APU";
  platform->type = "APU";
  platform->supports_unified_memory = false;
  platform->use_bfc_allocator = false;
  platform->force_memory_growth = false;
  SP_PlatformFns* fns = params->platform_fns;
  fns->struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
  fns->get_device_count = se_device_count;
  fns->create_device = se_create_device;
  fns->destroy_device = se_destroy_device;
  fns->create_device_fns = se_create_device_fns;
  fns->destroy_device_fns = se_destroy_device_fns;
  fns->create_stream_executor = se_create_stream_executor;
  fns->destroy_stream_executor = se_destroy_stream_executor;
  fns->create_timer_fns = se_create_timer_fns;
  fns->destroy_timer_fns = se_destroy_timer_fns;
  params->destroy_platform = se_destroy_platform;
  params->destroy_platform_fns = se_destroy_platform_fns;
  ok(status);
}

EXPORT void TF_InitKernel() {
  g_loading_thread = std::this_thread::get_id();
  const std::vector<TF_DataType> numbers = {TF_FLOAT, TF_DOUBLE, TF_INT32, TF_INT64};
  const std::vector<TF_DataType> all = {TF_FLOAT, TF_DOUBLE, TF_INT32, TF_INT64, TF_BOOL};
  TF_Status* status = TF_NewStatus();
  for (int op = 0; op < kNumOps; ++op) {
    // The types TF's CPU kernels have (of float32/64, int32/64 and bool).
    std::vector<TF_DataType> types = numbers;
    if (op == kRealDiv || op == kReciprocal) types = {TF_FLOAT, TF_DOUBLE};
    if (op == kEqual || op == kNotEqual || op == kBroadcastTo) types = all;
    if (op == kLogicalAnd || op == kLogicalOr || op == kLogicalNot) {
      register_kernel(op, {}, status);
    } else if (op == kCast) {
      for (TF_DataType src : all)
        for (TF_DataType dst : all) register_kernel(op, {{"SrcT", src}, {"DstT", dst}}, status);
    } else {
      for (TF_DataType t : types) register_kernel(op, {{"T", t}}, status);
    }
  }
  TF_DeleteStatus(status);
}

// Switches fault `name` on (null or "" switches faults off); -1 if unknown.
EXPORT int compat_apu_set_fault(const char* name, uint64_t seed) {
  const int fault = fault_index(name);
  if (fault < 0) return -1;
  g_seed = seed;
  g_fault = fault;
  return 0;
}

// Writes "OpName count\n" for every op launched since load/reset; returns the
// length of the full text (which may exceed size - 1: call again with more).
EXPORT int compat_apu_counters(char* buffer, int size) {
  std::string text;
  for (int op = 0; op < kNumOps; ++op)
    if (const uint64_t n = g_launches[op].load(std::memory_order_relaxed))
      text += std::string(kOpNames[op]) + " " + std::to_string(n) + "\n";
  if (buffer != nullptr && size > 0) {
    const size_t copied = std::min(text.size(), static_cast<size_t>(size - 1));
    std::memcpy(buffer, text.data(), copied);
    buffer[copied] = '\0';
  }
  return static_cast<int>(text.size());
}

EXPORT void compat_apu_reset_counters() {
  for (auto& n : g_launches) n.store(0, std::memory_order_relaxed);
}
