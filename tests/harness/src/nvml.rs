//! The device probe: NVIDIA's management library (NVML), loaded at run
//! time.
//!
//! `libnvidia-ml.so.1` ships with the NVIDIA driver, not with CUDA, so
//! loading it with `dlopen` (through `libloading`) lets the harness build
//! and run on any machine: without a driver the probe says so and the
//! measuring command skips. Nothing here links against CUDA.
//!
//! Why this module allows `unsafe`: calling into a C library is unsafe in
//! Rust, full stop. Loading runs the library's initialisers, a looked-up
//! symbol is only as well-typed as the signature we declare for it, and
//! the calls write through raw pointers. The workspace denies unsafe code
//! everywhere else (planner-core and the CLI forbid it); this module keeps
//! the unsafe surface to one loader and a handful of calls, each with the
//! signature of NVML's public header (`nvml.h`), and hands out only owned,
//! safe Rust values.
#![allow(unsafe_code)]

use libloading::{Library, Symbol};
use serde::{Deserialize, Serialize};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

/// `nvmlReturn_t`: 0 is success.
type Ret = c_uint;
/// `nvmlDevice_t`: an opaque handle.
type Device = *mut c_void;

/// `nvmlMemory_t` (v1): bytes.
#[repr(C)]
#[derive(Default)]
struct Memory {
    total: u64,
    free: u64,
    used: u64,
}

/// Buffer sizes from `nvml.h` (`NVML_DEVICE_NAME_V2_BUFFER_SIZE`,
/// `NVML_DEVICE_UUID_V2_BUFFER_SIZE`, `NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE`).
const NAME_LEN: usize = 96;
const UUID_LEN: usize = 96;
const VERSION_LEN: usize = 80;

/// The library's file name; the driver installs it on the loader's path.
pub const LIBRARY: &str = "libnvidia-ml.so.1";

/// Why the probe found no GPU to measure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeError {
    /// The library could not be loaded (no NVIDIA driver).
    NoLibrary(String),
    /// A function is missing from the library (a very old driver).
    NoSymbol(String),
    /// A call failed.
    Call {
        /// The NVML function.
        function: &'static str,
        /// Its return code.
        code: u32,
        /// NVML's text for it.
        message: String,
    },
    /// The driver sees no device.
    NoDevice,
}

impl std::fmt::Display for ProbeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProbeError::NoLibrary(e) => write!(
                f,
                "NVML ({LIBRARY}) could not be loaded, so there is no NVIDIA driver here: {e}"
            ),
            ProbeError::NoSymbol(s) => write!(f, "NVML has no function {s} (driver too old)"),
            ProbeError::Call {
                function,
                code,
                message,
            } => write!(f, "NVML {function} failed with code {code}: {message}"),
            ProbeError::NoDevice => write!(f, "the NVIDIA driver sees no GPU"),
        }
    }
}

impl std::error::Error for ProbeError {}

/// One GPU as NVML describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// NVML index.
    pub index: u32,
    /// Marketing name (`NVIDIA H100 80GB HBM3`).
    pub name: String,
    /// `GPU-…` UUID.
    pub uuid: String,
    /// Device memory the driver reports, bytes.
    pub memory_total: u64,
    /// In use at probe time, bytes.
    pub memory_used: u64,
    /// CUDA compute capability (`9.0`), if NVML reports it.
    #[serde(default)]
    pub compute_capability: Option<String>,
}

/// What the probe found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    /// Driver version (`550.54.15`).
    pub driver: String,
    /// Highest CUDA version the driver supports (`12.4`), if reported.
    #[serde(default)]
    pub cuda_driver: Option<String>,
    /// NVML's own version.
    #[serde(default)]
    pub nvml: Option<String>,
    /// Every device.
    pub devices: Vec<DeviceInfo>,
}

/// A loaded and initialised NVML; shut down when dropped.
pub struct Nvml {
    lib: Library,
}

impl Nvml {
    /// Loads the library and initialises it.
    pub fn load() -> Result<Self, ProbeError> {
        // SAFETY: loading runs the library's initialisers; libnvidia-ml is
        // the driver's own library and has no initialiser with preconditions.
        let lib =
            unsafe { Library::new(LIBRARY) }.map_err(|e| ProbeError::NoLibrary(e.to_string()))?;
        let nvml = Self { lib };
        // SAFETY: `nvmlReturn_t nvmlInit_v2(void)`.
        let init: Symbol<unsafe extern "C" fn() -> Ret> = nvml.symbol(b"nvmlInit_v2\0")?;
        let rc = unsafe { init() };
        nvml.check("nvmlInit_v2", rc)?;
        Ok(nvml)
    }

    fn symbol<T>(&self, name: &[u8]) -> Result<Symbol<'_, T>, ProbeError> {
        // SAFETY: every call site names a function of nvml.h with `T` its
        // declared signature.
        unsafe { self.lib.get(name) }.map_err(|_| {
            ProbeError::NoSymbol(
                String::from_utf8_lossy(name.strip_suffix(b"\0").unwrap_or(name)).into(),
            )
        })
    }

    fn check(&self, function: &'static str, rc: Ret) -> Result<(), ProbeError> {
        if rc == 0 {
            return Ok(());
        }
        let message = self
            .symbol::<unsafe extern "C" fn(Ret) -> *const c_char>(b"nvmlErrorString\0")
            .ok()
            .map(|f| {
                // SAFETY: `const char* nvmlErrorString(nvmlReturn_t)` returns a
                // static NUL-terminated string (or null).
                let p = unsafe { f(rc) };
                if p.is_null() {
                    String::new()
                } else {
                    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
                }
            })
            .unwrap_or_default();
        Err(ProbeError::Call {
            function,
            code: rc,
            message,
        })
    }

    /// Calls an NVML function that fills a string buffer.
    fn string(
        &self,
        function: &'static str,
        symbol: &[u8],
        device: Option<Device>,
        len: usize,
    ) -> Result<String, ProbeError> {
        let mut buf = vec![0 as c_char; len];
        let rc = match device {
            None => {
                let f: Symbol<unsafe extern "C" fn(*mut c_char, c_uint) -> Ret> =
                    self.symbol(symbol)?;
                // SAFETY: the buffer holds `len` bytes, as passed.
                unsafe { f(buf.as_mut_ptr(), len as c_uint) }
            }
            Some(d) => {
                let f: Symbol<unsafe extern "C" fn(Device, *mut c_char, c_uint) -> Ret> =
                    self.symbol(symbol)?;
                // SAFETY: as above, with a handle NVML gave us.
                unsafe { f(d, buf.as_mut_ptr(), len as c_uint) }
            }
        };
        self.check(function, rc)?;
        // NVML NUL-terminates within the buffer; the last byte stays 0.
        buf[len - 1] = 0;
        // SAFETY: the buffer is NUL-terminated.
        Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned())
    }

    /// Number of devices.
    pub fn device_count(&self) -> Result<u32, ProbeError> {
        let f: Symbol<unsafe extern "C" fn(*mut c_uint) -> Ret> =
            self.symbol(b"nvmlDeviceGetCount_v2\0")?;
        let mut n: c_uint = 0;
        // SAFETY: writes one unsigned int.
        let rc = unsafe { f(&mut n) };
        self.check("nvmlDeviceGetCount_v2", rc)?;
        Ok(n)
    }

    fn handle(&self, index: u32) -> Result<Device, ProbeError> {
        let f: Symbol<unsafe extern "C" fn(c_uint, *mut Device) -> Ret> =
            self.symbol(b"nvmlDeviceGetHandleByIndex_v2\0")?;
        let mut d: Device = std::ptr::null_mut();
        // SAFETY: writes one handle.
        let rc = unsafe { f(index, &mut d) };
        self.check("nvmlDeviceGetHandleByIndex_v2", rc)?;
        Ok(d)
    }

    fn memory(&self, d: Device) -> Result<Memory, ProbeError> {
        let f: Symbol<unsafe extern "C" fn(Device, *mut Memory) -> Ret> =
            self.symbol(b"nvmlDeviceGetMemoryInfo\0")?;
        let mut m = Memory::default();
        // SAFETY: writes one nvmlMemory_t (three unsigned long longs).
        let rc = unsafe { f(d, &mut m) };
        self.check("nvmlDeviceGetMemoryInfo", rc)?;
        Ok(m)
    }

    /// Bytes in use on device `index` now (for sampling during a run).
    pub fn memory_used(&self, index: u32) -> Result<u64, ProbeError> {
        Ok(self.memory(self.handle(index)?)?.used)
    }

    fn compute_capability(&self, d: Device) -> Option<String> {
        let f: Symbol<unsafe extern "C" fn(Device, *mut c_int, *mut c_int) -> Ret> =
            self.symbol(b"nvmlDeviceGetCudaComputeCapability\0").ok()?;
        let (mut major, mut minor): (c_int, c_int) = (0, 0);
        // SAFETY: writes two ints.
        let rc = unsafe { f(d, &mut major, &mut minor) };
        (rc == 0).then(|| format!("{major}.{minor}"))
    }

    fn cuda_driver(&self) -> Option<String> {
        let f: Symbol<unsafe extern "C" fn(*mut c_int) -> Ret> = self
            .symbol(b"nvmlSystemGetCudaDriverVersion_v2\0")
            .or_else(|_| self.symbol(b"nvmlSystemGetCudaDriverVersion\0"))
            .ok()?;
        let mut v: c_int = 0;
        // SAFETY: writes one int (1000·major + 10·minor).
        let rc = unsafe { f(&mut v) };
        (rc == 0 && v > 0).then(|| format!("{}.{}", v / 1000, (v % 1000) / 10))
    }

    /// Describes every device.
    pub fn probe(&self) -> Result<Probe, ProbeError> {
        let driver = self.string(
            "nvmlSystemGetDriverVersion",
            b"nvmlSystemGetDriverVersion\0",
            None,
            VERSION_LEN,
        )?;
        let nvml = self
            .string(
                "nvmlSystemGetNVMLVersion",
                b"nvmlSystemGetNVMLVersion\0",
                None,
                VERSION_LEN,
            )
            .ok();
        let mut devices = Vec::new();
        for index in 0..self.device_count()? {
            let d = self.handle(index)?;
            let m = self.memory(d)?;
            devices.push(DeviceInfo {
                index,
                name: self.string(
                    "nvmlDeviceGetName",
                    b"nvmlDeviceGetName\0",
                    Some(d),
                    NAME_LEN,
                )?,
                uuid: self
                    .string(
                        "nvmlDeviceGetUUID",
                        b"nvmlDeviceGetUUID\0",
                        Some(d),
                        UUID_LEN,
                    )
                    .unwrap_or_default(),
                memory_total: m.total,
                memory_used: m.used,
                compute_capability: self.compute_capability(d),
            });
        }
        if devices.is_empty() {
            return Err(ProbeError::NoDevice);
        }
        Ok(Probe {
            driver,
            cuda_driver: self.cuda_driver(),
            nvml,
            devices,
        })
    }
}

impl Drop for Nvml {
    fn drop(&mut self) {
        if let Ok(f) = self.symbol::<unsafe extern "C" fn() -> Ret>(b"nvmlShutdown\0") {
            // SAFETY: `nvmlReturn_t nvmlShutdown(void)`, paired with the
            // successful init in `load`.
            let _ = unsafe { f() };
        }
    }
}

/// Loads NVML and describes every device; the error says why there is
/// nothing to measure.
pub fn probe() -> Result<Probe, ProbeError> {
    Nvml::load()?.probe()
}
