// compat's reference PrivateUse1 device, renamed "apu" from Python.
//
// Device memory is host memory, so a CPU tensor over an apu tensor's bytes
// (host()) lets CPU kernels read and write it. Allocation, copies, views and
// fill are native; every other op runs on CPU through a boxed fallback that
// also enforces CUDA's device rules, counts calls and injects the faults.

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/resize_native.h>
#include <ATen/ops/set_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_as_complex_native.h>
#include <ATen/ops/view_as_real_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/impl/alloc_cpu.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/library.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace {

namespace py = pybind11;
using at::Tensor;
using c10::Device;
using c10::DeviceIndex;
constexpr auto kApu = c10::DeviceType::PrivateUse1;

// ---- configuration -------------------------------------------------------

DeviceIndex g_device_count = 1;  // COMPAT_APU_DEVICES, through load()
thread_local DeviceIndex t_device = 0;  // current device, per thread like CUDA

enum class Fault {
  none,
  copy_truncate,
  wrong_device,
  float64_as_float32,
  sum_float16_accumulate,
  relu_negative_zero,
  broadcast_stride,
  mul_rounds_toward_zero,
  abort_in_kernel,  // fatal: the process dies
  hang_in_kernel,   // fatal: the kernel never completes
};
constexpr std::array<const char*, 10> kFaultNames = {
    "none",
    "copy_truncate",
    "wrong_device",
    "float64_as_float32",
    "sum_float16_accumulate",
    "relu_negative_zero",
    "broadcast_stride",
    "mul_rounds_toward_zero",
    "abort_in_kernel",
    "hang_in_kernel",
};
std::atomic<Fault> g_fault{Fault::none};
std::atomic<uint64_t> g_seed{0};

void set_fault(const std::optional<std::string>& name, uint64_t seed) {
  const std::string wanted = name.value_or("none");
  const auto it = std::find(kFaultNames.begin(), kFaultNames.end(), wanted);
  if (it == kFaultNames.end()) {
    std::string known;
    for (size_t i = 1; i < kFaultNames.size(); ++i) {
      known += std::string(i > 1 ? ", " : "") + kFaultNames[i];
    }
    throw py::value_error(
        "unknown apu fault '" + wanted + "'; known faults: " + known);
  }
  g_seed = seed;
  g_fault = static_cast<Fault>(it - kFaultNames.begin());
}

// ---- counters ------------------------------------------------------------

struct Counts {
  int64_t device = 0;
  int64_t fallback = 0;
};
std::mutex g_counts_mutex;
std::unordered_map<c10::OperatorName, Counts> g_counts;

void count(const c10::OperatorName& op, bool native) {
  std::lock_guard<std::mutex> lock(g_counts_mutex);
  auto& c = g_counts[op];
  ++(native ? c.device : c.fallback);
}

// The name is built once per kernel, not per call.
#define COUNT_NATIVE(name, overload)                        \
  do {                                                      \
    static const c10::OperatorName op_name{name, overload}; \
    count(op_name, true);                                   \
  } while (0)

// ---- runtime: memory and device guard ------------------------------------

struct HostAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t n) override {
    void* p = n ? c10::alloc_cpu(n) : nullptr;
    return {p, p, &c10::free_cpu, Device(kApu, t_device)};
  }
  c10::DeleterFnPtr raw_deleter() const override {
    return &c10::free_cpu;
  }
  void copy_data(void* dst, const void* src, size_t n) const override {
    default_copy_data(dst, src, n);
  }
};
HostAllocator g_allocator;
REGISTER_ALLOCATOR(kApu, &g_allocator)

void check_index(DeviceIndex i) {
  TORCH_CHECK(
      i >= 0 && i < g_device_count,
      "apu:", int(i), " does not exist (",
      int(g_device_count), " apu devices; set COMPAT_APU_DEVICES)");
}

// One stream per device and no events: everything is synchronous.
struct ApuGuard final : c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override {
    return kApu;
  }
  Device exchangeDevice(Device d) const override {
    Device old = getDevice();
    setDevice(d);
    return old;
  }
  Device getDevice() const override {
    return Device(kApu, t_device);
  }
  void setDevice(Device d) const override {
    check_index(d.index());
    t_device = d.index();
  }
  void uncheckedSetDevice(Device d) const noexcept override {
    t_device = d.index();
  }
  c10::Stream getStream(Device d) const override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }
  c10::Stream exchangeStream(c10::Stream s) const override {
    return getStream(s.device());
  }
  DeviceIndex deviceCount() const noexcept override {
    return g_device_count;
  }
};
C10_REGISTER_GUARD_IMPL(PrivateUse1, ApuGuard)

// The autograd engine asks these of any accelerator.
struct ApuHooks final : at::PrivateUse1HooksInterface {
  bool isBuilt() const override {
    return true;
  }
  bool isAvailable() const override {
    return true;
  }
  bool hasPrimaryContext(DeviceIndex) const override {
    return true;
  }
  DeviceIndex deviceCount() const override {
    return g_device_count;
  }
  DeviceIndex getCurrentDevice() const override {
    return t_device;
  }
  void setCurrentDevice(DeviceIndex i) const override {
    check_index(i);
    t_device = i;
  }
  DeviceIndex exchangeDevice(DeviceIndex i) const override {
    const DeviceIndex old = t_device;
    setCurrentDevice(i);
    return old;
  }
  DeviceIndex maybeExchangeDevice(DeviceIndex i) const override {
    return exchangeDevice(i);
  }
};
[[maybe_unused]] const bool g_hooks_registered =
    (at::RegisterPrivateUse1HooksInterface(new ApuHooks), true);

// A CPU tensor over the same bytes (CPU tensors pass through).
Tensor host(const Tensor& t) {
  if (!t.is_privateuseone()) {
    return t;
  }
  Tensor v = at::from_blob(
      t.data_ptr(), t.sizes(), t.strides(), t.options().device(at::kCPU));
  v._set_conj(t.is_conj());
  v._set_neg(t.is_neg());
  return v;
}

// Set while the fallback moves operands to CPU, so copy_truncate only hits
// copies the user asked for.
thread_local bool t_in_fallback = false;

// ---- native kernels --------------------------------------------------------

const c10::DispatchKeySet kApuKeys{c10::DispatchKey::PrivateUse1};

Tensor apu_empty(
    c10::IntArrayRef size,
    std::optional<at::ScalarType> dtype,
    std::optional<at::Layout>,
    std::optional<Device> device,
    std::optional<bool>,
    std::optional<at::MemoryFormat> memory_format) {
  COUNT_NATIVE("aten::empty", "memory_format");
  c10::OptionalDeviceGuard guard(device);  // the allocator tags the current device
  return at::detail::empty_generic(
      size, &g_allocator, kApuKeys, c10::dtype_or_default(dtype), memory_format);
}

Tensor apu_empty_strided(
    c10::IntArrayRef size,
    c10::IntArrayRef stride,
    std::optional<at::ScalarType> dtype,
    std::optional<at::Layout>,
    std::optional<Device> device,
    std::optional<bool>) {
  COUNT_NATIVE("aten::empty_strided", "");
  c10::OptionalDeviceGuard guard(device);
  return at::detail::empty_strided_generic(
      size, stride, &g_allocator, kApuKeys, c10::dtype_or_default(dtype));
}

void copy_between(const Tensor& src, const Tensor& dst) {
  Tensor out = host(dst);
  const bool truncate = g_fault == Fault::copy_truncate && !t_in_fallback &&
      src.is_privateuseone() && dst.is_cpu() && dst.numel() > 0;
  if (!truncate) {
    out.copy_(host(src));
    return;
  }
  // Keep the destination's last element (in index order) as it was.
  int64_t last = 0;
  for (int64_t d = 0; d < dst.dim(); ++d) {
    last += (dst.size(d) - 1) * dst.stride(d);
  }
  const size_t n = dst.element_size();
  char* p = static_cast<char*>(dst.data_ptr()) + last * n;
  std::array<char, 16> kept;
  std::memcpy(kept.data(), p, n);
  out.copy_(host(src));
  std::memcpy(p, kept.data(), n);
}

Tensor apu_copy_from(const Tensor& self, const Tensor& dst, bool) {
  COUNT_NATIVE("aten::_copy_from", "");
  copy_between(self, dst);
  return dst;
}

const Tensor& apu_resize(
    const Tensor& self,
    c10::IntArrayRef size,
    std::optional<at::MemoryFormat> memory_format) {
  COUNT_NATIVE("aten::resize_", "");
  c10::DeviceGuard guard(self.device());  // new bytes belong to self's device
  return at::native::resize_(self, size, memory_format);
}

Tensor apu_copy_from_and_resize(const Tensor& self, const Tensor& dst) {
  COUNT_NATIVE("aten::_copy_from_and_resize", "");
  if (dst.sizes() != self.sizes()) {
    dst.resize_(self.sizes());
  }
  copy_between(self, dst);
  return dst;
}

Tensor apu_as_strided(
    const Tensor& self,
    c10::IntArrayRef size,
    c10::IntArrayRef stride,
    std::optional<int64_t> storage_offset) {
  COUNT_NATIVE("aten::as_strided", "");
  return at::native::as_strided_tensorimpl(self, size, stride, storage_offset);
}

Tensor apu_view(const Tensor& self, c10::IntArrayRef size) {
  COUNT_NATIVE("aten::view", "");
  return at::native::view(self, size);
}

Tensor apu_reshape_alias(
    const Tensor& self,
    c10::IntArrayRef size,
    c10::IntArrayRef stride) {
  COUNT_NATIVE("aten::_reshape_alias", "");
  return at::native::_reshape_alias(self, size, stride);
}

Tensor apu_unfold(const Tensor& self, int64_t dim, int64_t size, int64_t step) {
  COUNT_NATIVE("aten::unfold", "");
  return at::native::unfold(self, dim, size, step);
}

Tensor apu_view_as_real(const Tensor& self) {
  COUNT_NATIVE("aten::view_as_real", "");
  return at::native::view_as_real(self);
}

Tensor apu_view_as_complex(const Tensor& self) {
  COUNT_NATIVE("aten::view_as_complex", "");
  return at::native::view_as_complex(self);
}

Tensor& apu_set_storage(
    Tensor& self,
    at::Storage source,
    int64_t storage_offset,
    c10::IntArrayRef size,
    c10::IntArrayRef stride) {
  COUNT_NATIVE("aten::set_", "source_Storage_storage_offset");
  c10::DeviceGuard guard(self.device());
  return at::native::set_storage_cpu_(self, source, storage_offset, size, stride);
}

Tensor& apu_set_storage_whole(Tensor& self, at::Storage source) {
  COUNT_NATIVE("aten::set_", "source_Storage");
  return at::native::set_(self, source);
}

Tensor& apu_set_tensor(Tensor& self, const Tensor& source) {
  COUNT_NATIVE("aten::set_", "source_Tensor");
  return at::native::set_tensor_(self, source);
}

Tensor& apu_fill(Tensor& self, const at::Scalar& value) {
  COUNT_NATIVE("aten::fill_", "Scalar");
  host(self).fill_(value);
  return self;
}

Tensor& apu_zero(Tensor& self) {
  COUNT_NATIVE("aten::zero_", "");
  host(self).zero_();
  return self;
}

at::Scalar apu_local_scalar_dense(const Tensor& self) {
  COUNT_NATIVE("aten::_local_scalar_dense", "");
  return host(self).item();
}

// ---- faults ----------------------------------------------------------------

bool is_write(const c10::Argument& a) {
  return a.alias_info() && a.alias_info()->isWrite();
}

// Sums over `dims` (all when empty), rounding the running sum to float16
// after every addition.
Tensor sum_in_half(const Tensor& x, c10::IntArrayRef dims) {
  const int64_t n = x.dim();
  std::vector<bool> reduced(n, dims.empty());
  for (int64_t d : dims) {
    reduced[c10::maybe_wrap_dim(d, n)] = true;
  }
  std::vector<int64_t> order;  // kept dims first, reduced dims last
  int64_t rows = 1;
  for (int64_t d = 0; d < n; ++d) {
    if (!reduced[d]) {
      order.push_back(d);
      rows *= x.size(d);
    }
  }
  for (int64_t d = 0; d < n; ++d) {
    if (reduced[d]) {
      order.push_back(d);
    }
  }
  const int64_t cols = rows ? x.numel() / rows : 0;
  Tensor in = x.permute(order).to(at::kHalf).contiguous().view({rows, cols});
  Tensor out = at::empty({rows}, in.options());
  const at::Half* p = in.const_data_ptr<at::Half>();
  at::Half* o = out.mutable_data_ptr<at::Half>();
  for (int64_t r = 0; r < rows; ++r) {
    at::Half acc = 0;
    for (int64_t c = 0; c < cols; ++c) {
      acc = acc + p[r * cols + c];
    }
    o[r] = acc;
  }
  return out;
}

// Fatal faults: mul on a float32 apu tensor aborts the process; sub on one never
// completes (it sleeps, holding no lock a watchdog would need; torch released the GIL).
void stop_fatally(Fault fault, const c10::FunctionSchema& schema, const std::vector<c10::IValue>& inputs) {
  if (fault != Fault::abort_in_kernel && fault != Fault::hang_in_kernel) {
    return;
  }
  const std::string& name = schema.name();
  const bool float32 = !inputs.empty() && inputs[0].isTensor() && inputs[0].toTensor().scalar_type() == at::kFloat;
  if (!float32) {
    return;
  }
  if (fault == Fault::abort_in_kernel && (name == "aten::mul" || name == "aten::mul_")) {
    std::abort();
  }
  if (fault == Fault::hang_in_kernel && (name == "aten::sub" || name == "aten::sub_")) {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

// Faults that change operands before the CPU kernel runs.
void corrupt_operands(
    Fault fault,
    const c10::FunctionSchema& schema,
    torch::jit::Stack* stack,
    size_t begin) {
  const auto& args = schema.arguments();
  if (fault == Fault::float64_as_float32) {
    for (size_t i = 0; i < args.size(); ++i) {
      auto& v = (*stack)[begin + i];
      // Python scalars arrive as 0-d CPU doubles: not float64 data.
      if (v.isTensor() && !is_write(args[i]) && v.toTensor().is_privateuseone() &&
          v.toTensor().scalar_type() == at::kDouble) {
        v = v.toTensor().to(at::kFloat).to(at::kDouble);
      }
    }
    return;
  }
  static const std::array<std::string, 6> elementwise = {
      "aten::add", "aten::sub", "aten::mul",
      "aten::div", "aten::maximum", "aten::minimum"};
  if (fault != Fault::broadcast_stride ||
      std::find(elementwise.begin(), elementwise.end(),
                schema.operator_name().name) == elementwise.end()) {
    return;
  }
  std::vector<size_t> operands;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& v = (*stack)[begin + i];
    if (v.isTensor() && !is_write(args[i])) {
      operands.push_back(begin + i);
    }
  }
  if (operands.size() != 2) {
    return;
  }
  const Tensor a = (*stack)[operands[0]].toTensor();
  const Tensor b = (*stack)[operands[1]].toTensor();
  if (a.dim() == 0 || b.dim() == 0) {
    return;  // a scalar operand is not a broadcast bug worth simulating
  }
  // Dims, counted from the right, where exactly one operand broadcasts.
  std::vector<int64_t> dims;
  for (int64_t k = 1; k <= std::max(a.dim(), b.dim()); ++k) {
    const int64_t sa = k <= a.dim() ? a.size(-k) : 1;
    const int64_t sb = k <= b.dim() ? b.size(-k) : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      return;  // not broadcastable: let the op raise its own error
    }
    if (sa != sb) {
      dims.push_back(k);
    }
  }
  if (dims.empty()) {
    return;
  }
  const int64_t k = dims[g_seed % dims.size()];
  const size_t slot = k <= a.dim() && a.size(-k) != 1 ? operands[0] : operands[1];
  const Tensor full = (*stack)[slot].toTensor();
  auto strides = full.strides().vec();
  strides[full.dim() - k] = 0;  // re-reads its first slice along that dim
  (*stack)[slot] = full.as_strided(full.sizes(), strides, full.storage_offset());
}

// Faults that change a result after the CPU kernel ran; `fresh` is false for
// results that are written operands (out=, in-place).
Tensor corrupt_result(
    Fault fault,
    const c10::OperatorName& op,
    const std::vector<c10::IValue>& inputs,
    Tensor t,
    bool fresh) {
  switch (fault) {
    case Fault::wrong_device: {
      static const std::array<std::string, 3> ops = {
          "aten::add", "aten::mul", "aten::sum"};
      if (!fresh || !t.is_privateuseone() || op.name != ops[g_seed % ops.size()]) {
        return t;
      }
      return t.to(g_device_count > 1
              ? Device(kApu, (t.device().index() + 1) % g_device_count)
              : Device(at::kCPU));
    }
    case Fault::float64_as_float32:
      if (t.scalar_type() == at::kDouble) {
        host(t).copy_(host(t).to(at::kFloat));
      }
      return t;
    case Fault::sum_float16_accumulate: {
      if (op.name != "aten::sum") {
        return t;
      }
      const Tensor self = inputs[0].toTensor();
      if (self.scalar_type() == at::kFloat || self.scalar_type() == at::kDouble) {
        // sum.out has no dim argument: it reduces everything.
        const auto dims = inputs[1].isIntList() ? inputs[1].toIntVector()
                                                : std::vector<int64_t>{};
        host(t).copy_(sum_in_half(host(self), dims).view(t.sizes()));
      }
      return t;
    }
    case Fault::relu_negative_zero: {
      const bool relu = op.name == "aten::relu";
      if ((!relu && op.name != "aten::maximum") || !t.is_floating_point()) {
        return t;
      }
      // CPU's relu keeps -0.0, and which zero its maximum of opposite zeros
      // returns depends on operand order: return the other zero.
      const Tensor a = host(inputs[0].toTensor());
      Tensor flip = (a == 0) & a.signbit();
      if (!relu) {
        const Tensor b = host(inputs[1].toTensor());
        flip = (a == 0) & (b == 0) & (a.signbit() != b.signbit());
      }
      Tensor out = host(t);
      out.copy_(at::where(flip, out.neg(), out));
      return t;
    }
    case Fault::mul_rounds_toward_zero: {
      // float32 products are exact in double: where CPU rounded away from zero,
      // step one ULP back towards it (a kernel that truncates instead of rounding)
      if (op.name != "aten::mul" || t.scalar_type() != at::kFloat || !inputs[0].isTensor() ||
          !inputs[1].isTensor()) {
        return t;
      }
      const Tensor exact = host(inputs[0].toTensor()).to(at::kDouble) * host(inputs[1].toTensor()).to(at::kDouble);
      Tensor out = host(t);
      const Tensor away = exact.isfinite() & (out.to(at::kDouble).abs() > exact.abs());
      out.copy_(at::where(away, at::nextafter(out, at::zeros_like(out)), out));
      return t;
    }
    default:
      return t;
  }
}

// ---- fallback --------------------------------------------------------------

struct InFallback {
  InFallback() : previous(t_in_fallback) {
    t_in_fallback = true;
  }
  ~InFallback() {
    t_in_fallback = previous;
  }
  bool previous;
};

void apu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const auto& schema = op.schema();
  count(schema.operator_name(), false);
  const auto& args = schema.arguments();
  const size_t begin = stack->size() - args.size();

  // at::native::cpu_fallback moves every operand to CPU whatever its device
  // and puts results on the first operand's device. Enforce CUDA's rule: one
  // device, except read-only 0-d CPU tensors.
  std::optional<Device> device;
  auto check = [&](const Tensor& t, bool written) {
    if (!t.defined() || (t.is_cpu() && t.dim() == 0 && !written)) {
      return;
    }
    if (!device) {
      device = t.device();
    }
    TORCH_CHECK(
        t.device() == *device,
        "Expected all tensors to be on the same device, but found at least "
        "two devices, ", *device, " and ", t.device(), "!");
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& v = (*stack)[begin + i];
    if (v.isTensor()) {
      check(v.toTensor(), is_write(args[i]));
    } else if (v.isTensorList()) {
      for (const Tensor& t : v.toTensorList()) {
        check(t, is_write(args[i]));
      }
    }
  }

  const Fault fault = g_fault.load(std::memory_order_relaxed);
  std::vector<c10::IValue> inputs;
  if (fault != Fault::none) {
    inputs.assign(stack->begin() + begin, stack->end());
    stop_fatally(fault, schema, inputs);
    corrupt_operands(fault, schema, stack, begin);
  }
  {
    InFallback scope;
    at::native::cpu_fallback(op, stack);
  }

  const auto& returns = schema.returns();
  const size_t rbegin = stack->size() - returns.size();
  for (size_t i = 0; i < returns.size(); ++i) {
    auto& v = (*stack)[rbegin + i];
    if (!v.isTensor() || !v.toTensor().defined()) {
      continue;
    }
    Tensor t = v.toTensor();
    const bool fresh = !is_write(returns[i]);
    // A leading 0-d CPU operand made cpu_fallback return a CPU result.
    if (fresh && t.is_cpu() && device && device->is_privateuseone()) {
      t = t.to(*device);
    }
    if (fault != Fault::none) {
      t = corrupt_result(fault, schema.operator_name(), inputs, t, fresh);
    }
    v = t;
  }
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", apu_empty);
  m.impl("empty_strided", apu_empty_strided);
  m.impl("_copy_from", apu_copy_from);
  m.impl("_copy_from_and_resize", apu_copy_from_and_resize);
  m.impl("resize_", apu_resize);
  m.impl("as_strided", apu_as_strided);
  m.impl("view", apu_view);
  m.impl("_reshape_alias", apu_reshape_alias);
  m.impl("unfold", apu_unfold);
  m.impl("view_as_real", apu_view_as_real);
  m.impl("view_as_complex", apu_view_as_complex);
  m.impl("set_.source_Storage_storage_offset", apu_set_storage);
  m.impl("set_.source_Storage", apu_set_storage_whole);
  m.impl("set_.source_Tensor", apu_set_tensor);
  m.impl("fill_.Scalar", apu_fill);
  m.impl("zero_", apu_zero);
  m.impl("_local_scalar_dense", apu_local_scalar_dense);
  // PyTorch would run these through CompositeExplicitAutogradNonFunctional
  // kernels that call the out= variant; the fallback on the functional op
  // returns a fresh result, which wrong_device can move.
  const auto boxed = [] {
    return torch::CppFunction::makeFromBoxedFunction<&apu_fallback>();
  };
  m.impl("add.Tensor", boxed());
  m.impl("mul.Tensor", boxed());
  m.impl("sum.dim_IntList", boxed());
}

// The conjugate and negative-bit fallbacks would resolve a conj/neg source by
// cloning it, which copies through _copy_from again, forever; host() keeps
// those bits and the CPU copy resolves them.
TORCH_LIBRARY_IMPL(aten, Conjugate, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
}
TORCH_LIBRARY_IMPL(aten, Negative, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&apu_fallback>());
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  // Called once by load(), before any apu tensor exists.
  m.def("set_device_count", [](int n) { g_device_count = static_cast<DeviceIndex>(n); });
  m.def("set_fault", &set_fault, py::arg("name"), py::arg("seed") = 0);
  m.def("counters", [] {
    std::map<std::string, std::map<std::string, int64_t>> out;
    std::lock_guard<std::mutex> lock(g_counts_mutex);
    for (const auto& [op, c] : g_counts) {
      out[c10::toString(op)] = {{"device", c.device}, {"fallback", c.fallback}};
    }
    return out;
  });
  m.def("reset_counters", [] {
    std::lock_guard<std::mutex> lock(g_counts_mutex);
    g_counts.clear();
  });
  m.def("device_count", [] { return int(g_device_count); });
  m.def("current_device", [] { return int(t_device); });
  m.def("set_device", [](int i) {
    check_index(static_cast<DeviceIndex>(i));
    t_device = static_cast<DeviceIndex>(i);
  });
}
