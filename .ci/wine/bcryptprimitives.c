/* ProcessPrng for Wine 8.0, which lacks it: Rust's standard library (1.78
 * and later) imports it from bcryptprimitives.dll for its random numbers
 * (HashMap keys). Built with mingw and placed beside the .exe, this DLL
 * fills the buffer through RtlGenRandom (advapi32's SystemFunction036).
 * Only for running the Windows build under Wine; Windows has its own. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x7fffffff ? 0x7fffffff : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
