/* A stand-in for Windows' bcryptprimitives.dll, for running Windows builds under Wine 8.
 *
 * Rust's standard library (1.78 and later) takes its random bytes from `ProcessPrng` in
 * bcryptprimitives.dll, which Windows 10 and later have and Wine 8 does not: without it a
 * Rust program stops at its first HashMap. This DLL, placed beside the executables, gives
 * `ProcessPrng` over `RtlGenRandom` (advapi32's `SystemFunction036`), which Wine implements
 * with the host's randomness. Test support only: never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
