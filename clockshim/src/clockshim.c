/*
 * lockbench's clock shim: an LD_PRELOAD library that moves a process's wall
 * clock by an offset that another process can change while it runs. Clock
 * faults (at=1s clock node=node-3 jump=+30s) preload it into every
 * redis-server lockbench starts; see topologies/clock.go.
 *
 * It replaces clock_gettime (CLOCK_REALTIME and CLOCK_REALTIME_COARSE; every
 * other clock, CLOCK_MONOTONIC too, passes through untouched), gettimeofday
 * and time. Redis takes its key expiry times from gettimeofday (mstime,
 * ustime), so keys expire by the moved clock; TIME answers it too.
 *
 * The offset is a signed 64-bit count of nanoseconds, the first 8 bytes of
 * the file named by $LOCKBENCH_CLOCK_OFFSET_FILE, which the constructor maps
 * shared; every call reads it anew, and lockbench changes it with an atomic
 * add through its own mapping of the same file. Until the file is mapped
 * (calls made before the constructor runs, a missing variable or file) the
 * offset is 0.
 *
 * It also replaces pthread_cond_timedwait on condition variables that wait
 * on CLOCK_REALTIME: the caller read its deadline from the moved clock, and
 * the kernel waits on the real one. (jemalloc's background thread computes
 * its deadline with gettimeofday; with the clock moved back it would wake at
 * once, again and again, and spin.) Other waits with an absolute
 * CLOCK_REALTIME deadline (sem_timedwait, pthread_mutex_timedlock,
 * clock_nanosleep with TIMER_ABSTIME) are not moved: Redis does not use them.
 *
 * The calls never allocate and never call dlsym: jemalloc (which Debian's
 * redis-server is linked with) reads the clock while it initializes, from
 * inside the dynamic linker's own allocations, where libfaketime recurses
 * ("unexpected recursive calls to clock_gettime()"). The constructor looks
 * up libc's clock_gettime once; before that, and if the lookup fails, the
 * shim asks the kernel with syscall(2).
 *
 * Build: cc -O2 -fPIC -shared -o lockbench-clock.so clockshim.c -ldl
 * (make build puts it beside bin/lockbench; lockbench, finding none, builds
 * it itself into the user's cache directory: clockshim/clockshim.go).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static volatile int64_t *offset_ns;   /* the mapped offset; NULL: offset 0 */
static clock_gettime_fn real_clock_gettime; /* libc's; NULL: syscall */

static int64_t offset(void)
{
	volatile int64_t *p = __atomic_load_n(&offset_ns, __ATOMIC_ACQUIRE);
	return p ? __atomic_load_n(p, __ATOMIC_RELAXED) : 0;
}

static int raw_clock_gettime(clockid_t clk, struct timespec *ts)
{
	clock_gettime_fn f = __atomic_load_n(&real_clock_gettime, __ATOMIC_ACQUIRE);
	if (f)
		return f(clk, ts);
	return (int)syscall(SYS_clock_gettime, clk, ts);
}

/* shift adds off nanoseconds to ts, keeping tv_nsec in [0, 1e9). */
static void shift(struct timespec *ts, int64_t off)
{
	int64_t ns = (int64_t)ts->tv_nsec + off % 1000000000;
	ts->tv_sec += off / 1000000000;
	if (ns < 0) {
		ns += 1000000000;
		ts->tv_sec--;
	} else if (ns >= 1000000000) {
		ns -= 1000000000;
		ts->tv_sec++;
	}
	ts->tv_nsec = (long)ns;
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	int rc = raw_clock_gettime(clk, ts);
	if (rc == 0 && (clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE))
		shift(ts, offset());
	return rc;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	struct timespec ts;
	if (tz) {
		/* Obsolete; zero it as the kernel does without a time zone. */
		((struct timezone *)tz)->tz_minuteswest = 0;
		((struct timezone *)tz)->tz_dsttime = 0;
	}
	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return -1;
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}

time_t time(time_t *t)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_REALTIME_COARSE, &ts) != 0)
		return (time_t)-1;
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 30)
/*
 * glibc (2.25 and later) keeps a condition variable's clock in bit 1 of
 * __wrefs (__PTHREAD_COND_CLOCK_MONOTONIC_MASK in its internaltypes.h),
 * set once by pthread_cond_init. pthread_cond_clockwait (2.30) waits on the
 * clock it is given, so the real wait never goes through this function
 * again.
 */
int pthread_cond_timedwait(pthread_cond_t *restrict cond, pthread_mutex_t *restrict mutex,
			   const struct timespec *restrict abstime)
{
	unsigned int flags = __atomic_load_n(&cond->__data.__wrefs, __ATOMIC_RELAXED);
	clockid_t clk = (flags & 2) ? CLOCK_MONOTONIC : CLOCK_REALTIME;
	int64_t off = clk == CLOCK_REALTIME ? offset() : 0;
	if (off == 0 || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000)
		return pthread_cond_clockwait(cond, mutex, clk, abstime);
	struct timespec real = *abstime;
	shift(&real, -off);
	return pthread_cond_clockwait(cond, mutex, clk, &real);
}
#endif

__attribute__((constructor)) static void clockshim_init(void)
{
	/* libc's own clock_gettime reads the vDSO; the lookup may allocate,
	 * and a clock read from inside it goes to the kernel meanwhile. */
	clock_gettime_fn f = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
	if (f)
		__atomic_store_n(&real_clock_gettime, f, __ATOMIC_RELEASE);

	const char *path = getenv("LOCKBENCH_CLOCK_OFFSET_FILE");
	if (!path || !*path)
		return;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	void *p = mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p != MAP_FAILED)
		__atomic_store_n(&offset_ns, (volatile int64_t *)p, __ATOMIC_RELEASE);
}
