#ifndef RIFFLE_CTHREADNAME_H
#define RIFFLE_CTHREADNAME_H
/// Names the calling thread for /proc/PID/task/TID/comm, top and debuggers (at most 15 bytes are
/// kept). Foundation's `Thread.name` does not reach the kernel on Linux, and Swift's Glibc module
/// does not show `pthread_setname_np` (a GNU extension).
void riffle_name_current_thread(const char *_Nonnull name);
#endif
