/* A program that starts a process tree and waits forever: what `command-server`'s timeout
 * must end whole. Run without arguments it starts a copy of itself with `child` (a
 * grandchild of the server), prints that process's id and sleeps; the copy sleeps too.
 * Test support for tests/it/wine.rs: never shipped. */
#include <stdio.h>
#include <string.h>
#include <windows.h>

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "child") != 0) {
        char self[MAX_PATH];
        char line[MAX_PATH + 16];
        STARTUPINFOA si;
        PROCESS_INFORMATION pi;
        DWORD n = GetModuleFileNameA(NULL, self, MAX_PATH);
        if (n == 0 || n == MAX_PATH)
            return 2;
        snprintf(line, sizeof line, "\"%s\" child", self);
        memset(&si, 0, sizeof si);
        si.cb = sizeof si;
        if (!CreateProcessA(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
            return 3;
        printf("started %lu\n", (unsigned long)pi.dwProcessId);
        fflush(stdout);
    }
    Sleep(INFINITE);
    return 0;
}
