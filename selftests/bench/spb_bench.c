// SPDX-License-Identifier: GPL-2.0
/*
 * spb_bench - workloads of the schedutil benchmark (scripts/bench.sh), run
 * in a guest whose test cpufreq driver emulates DVFS. Each marks its phases
 * in the trace buffer (trace_marker), so that the guest script can line
 * them up with the power:cpu_frequency and power:cpu_idle events, and
 * prints one line of results. Work is counted in iterations of a fixed
 * loop, not in time, wherever throughput is measured: under emulated DVFS
 * a fixed amount of work takes longer at a lower frequency.
 *
 *   spb_bench [opts] loop MS               iterations per second of the loop
 *   spb_bench [opts] hog MS                spin MS ms; marks "start"
 *   spb_bench [opts] io FILE MS            4 KiB O_DIRECT write + fdatasync
 *                                          for MS ms; marks "start"
 *   spb_bench [opts] burst NAP_MS ITERS N  N times: sleep NAP_MS, mark "wake",
 *                                          run ITERS iterations, mark "done";
 *                                          median and mean durations
 *   spb_bench [opts] duty PERIOD_US ITERS MS
 *                                          every PERIOD_US run ITERS
 *                                          iterations, for MS ms (a duty
 *                                          cycle); marks "start"
 *   spb_bench [opts] build JOBS TASKS ITERS
 *                                          a build-like job: TASKS processes,
 *                                          JOBS at a time, each fork + exec
 *                                          of "spb_bench work ITERS"
 *   spb_bench work ITERS                   run ITERS iterations and exit
 *   spb_bench [opts] run OUT CMD [ARG...]  run a program, its output to OUT;
 *                                          marks "start" and "end"
 *   spb_bench [opts] pipe ROUNDS           two processes on the CPU of -c
 *                                          pass a byte back and forth ROUNDS
 *                                          times (a scheduler-heavy load:
 *                                          two wakeups per round)
 *
 * Options: -c CPU to run on; -m MARKER, the trace_marker file; -s MS to
 * settle first (2 ms naps, so that utilization brought from fork has
 * decayed); -u FILE=VALUE to write after settling (to lift a clamp; up
 * to 8 times); -U UTIL to set the uclamp minimum of the workload, which
 * its children inherit (sched_setattr(), before settling).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define IO_SIZE		4096
#define IO_SPAN		(256 * IO_SIZE)

static int marker_fd = -1;
static const char *self_path;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec nap = {
		.tv_sec = ns / 1000000000ULL,
		.tv_nsec = ns % 1000000000ULL,
	};

	while (nanosleep(&nap, &nap) && errno == EINTR)
		;
}

static void mark(const char *what)
{
	char buf[64];
	int len;

	if (marker_fd < 0)
		return;
	len = snprintf(buf, sizeof(buf), "spb_bench: %s\n", what);
	if (write(marker_fd, buf, len) != len) {
		perror("trace marker");
		exit(1);
	}
}

static unsigned long parse(const char *s, const char *what)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "spb_bench: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

/*
 * The unit of work: a dependent chain the compiler cannot fold, of about
 * the same cost on every CPU model (integer multiply-add).
 */
static volatile uint64_t sink;

static void work(unsigned long iters)
{
	uint64_t x = sink | 1;
	unsigned long i;

	for (i = 0; i < iters; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

#define WORK_CHUNK	1000

static int run_loop(unsigned long ms)
{
	uint64_t start = now_ns(), deadline = start + ms * 1000000ULL, t;
	unsigned long chunks = 0;

	mark("start");
	do {
		work(WORK_CHUNK);
		chunks++;
		t = now_ns();
	} while (t < deadline);
	mark("end");
	printf("loop iters_per_s=%llu ns=%llu\n",
	       (unsigned long long)((double)chunks * WORK_CHUNK * 1e9 / (t - start)),
	       (unsigned long long)(t - start));
	return 0;
}

static int run_hog(unsigned long ms)
{
	uint64_t start = now_ns(), deadline = start + ms * 1000000ULL;
	unsigned long chunks = 0;

	mark("start");
	while (now_ns() < deadline) {
		work(WORK_CHUNK);
		chunks++;
	}
	mark("end");
	printf("hog iters=%lu ns=%llu\n", chunks * WORK_CHUNK,
	       (unsigned long long)(now_ns() - start));
	return 0;
}

static int run_io(const char *path, unsigned long ms)
{
	uint64_t start, deadline, t;
	unsigned long ops = 0;
	off_t off = 0;
	void *buf;
	int fd;

	fd = open(path, O_RDWR | O_DIRECT);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	if (posix_memalign(&buf, IO_SIZE, IO_SIZE))
		return 1;
	memset(buf, 0x5a, IO_SIZE);

	start = now_ns();
	deadline = start + ms * 1000000ULL;
	mark("start");
	do {
		if (pwrite(fd, buf, IO_SIZE, off) != IO_SIZE || fdatasync(fd)) {
			perror(path);
			return 1;
		}
		off = (off + IO_SIZE) % IO_SPAN;
		ops++;
		t = now_ns();
	} while (t < deadline);
	mark("end");
	printf("io ops=%lu ns=%llu ops_per_s=%llu\n", ops,
	       (unsigned long long)(t - start),
	       (unsigned long long)((double)ops * 1e9 / (t - start)));
	close(fd);
	free(buf);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int run_burst(unsigned long nap_ms, unsigned long iters,
		     unsigned long count)
{
	uint64_t *dur, sum = 0;
	unsigned long i;

	dur = calloc(count ? count : 1, sizeof(*dur));
	if (!dur)
		return 1;
	mark("start");
	for (i = 0; i < count; i++) {
		uint64_t t;

		sleep_ns(nap_ms * 1000000ULL);
		t = now_ns();
		mark("wake");
		work(iters);
		dur[i] = now_ns() - t;
		sum += dur[i];
		mark("done");
	}
	mark("end");
	qsort(dur, count, sizeof(*dur), cmp_u64);
	printf("burst bursts=%lu median_us=%llu mean_ns=%llu\n", count,
	       count ? (unsigned long long)(dur[(count - 1) / 2] / 1000) : 0ULL,
	       count ? (unsigned long long)(sum / count) : 0ULL);
	free(dur);
	return 0;
}

static int run_duty(unsigned long period_us, unsigned long iters,
		    unsigned long ms)
{
	uint64_t start = now_ns(), deadline = start + ms * 1000000ULL;
	uint64_t next = start;
	unsigned long n = 0;

	mark("start");
	while (next < deadline) {
		uint64_t t;

		work(iters);
		n++;
		next += period_us * 1000ULL;
		t = now_ns();
		if (next > t)
			sleep_ns(next - t);
	}
	mark("end");
	printf("duty periods=%lu ns=%llu\n", n,
	       (unsigned long long)(now_ns() - start));
	return 0;
}

static int run_build(unsigned long jobs, unsigned long tasks,
		     unsigned long iters)
{
	unsigned long started = 0, running = 0;
	uint64_t start = now_ns(), t;
	char arg[32];

	snprintf(arg, sizeof(arg), "%lu", iters);
	mark("start");
	while (started < tasks || running) {
		int status;

		while (running < jobs && started < tasks) {
			pid_t pid = fork();

			if (pid < 0) {
				perror("fork");
				return 1;
			}
			if (!pid) {
				execl(self_path, self_path, "work", arg, (char *)NULL);
				_exit(127);
			}
			started++;
			running++;
		}
		if (wait(&status) < 0) {
			perror("wait");
			return 1;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "spb_bench: a build task failed\n");
			return 1;
		}
		running--;
	}
	t = now_ns();
	mark("end");
	printf("build tasks=%lu ns=%llu\n", tasks, (unsigned long long)(t - start));
	return 0;
}

static int run_pipe(unsigned long rounds)
{
	int ping[2], pong[2], status;
	uint64_t start, t;
	unsigned long i;
	char c = 0;
	pid_t pid;

	if (pipe(ping) || pipe(pong)) {
		perror("pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		for (i = 0; i < rounds; i++) {
			if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	start = now_ns();
	mark("start");
	for (i = 0; i < rounds; i++) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
			perror("pipe round");
			return 1;
		}
	}
	t = now_ns();
	mark("end");
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	printf("pipe rounds=%lu ns_per_round=%llu\n", rounds,
	       (unsigned long long)((t - start) / (rounds ? rounds : 1)));
	return 0;
}

/* Write the VALUE of @arg, "FILE=VALUE", to FILE. */
static void write_setting(const char *arg)
{
	const char *eq = strrchr(arg, '=');
	char path[4096];
	ssize_t len;
	int fd;

	if (!eq || eq == arg || eq - arg >= (long)sizeof(path)) {
		fprintf(stderr, "spb_bench: -u needs FILE=VALUE\n");
		exit(2);
	}
	memcpy(path, arg, eq - arg);
	path[eq - arg] = '\0';
	fd = open(path, O_WRONLY);
	len = strlen(eq + 1);
	if (fd < 0 || write(fd, eq + 1, len) != len) {
		perror(path);
		exit(1);
	}
	close(fd);
}

/* The uapi struct sched_attr, up to the utilization clamps (version 1). */
struct spb_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

#define SPB_SCHED_FLAG_KEEP_ALL		0x18
#define SPB_SCHED_FLAG_UTIL_CLAMP_MIN	0x20

static void set_uclamp_min(unsigned long util)
{
	struct spb_sched_attr attr = {
		.size = sizeof(attr),
		.sched_flags = SPB_SCHED_FLAG_KEEP_ALL | SPB_SCHED_FLAG_UTIL_CLAMP_MIN,
		.sched_util_min = util,
	};

	if (util > 1024) {
		fprintf(stderr, "spb_bench: -U takes 0..1024\n");
		exit(2);
	}
	if (syscall(SYS_sched_setattr, 0, &attr, 0)) {
		perror("sched_setattr (uclamp min)");
		exit(1);
	}
}

/*
 * Someone else's program: its output goes to OUT, so that ours stays one
 * line of key=value results; the trace marks bracket its whole run.
 */
static int run_program(const char *out, char **argv)
{
	uint64_t start = now_ns(), t;
	int status, fd;
	pid_t pid;

	mark("start");
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		return 1;
	}
	t = now_ns();
	mark("end");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "spb_bench: %s failed (status 0x%x, output in %s)\n",
			argv[0], status, out);
		return 1;
	}
	printf("run ns=%llu\n", (unsigned long long)(t - start));
	return 0;
}

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: spb_bench [-c CPU] [-m MARKER] [-s MS] [-u FILE=VALUE] [-U UTIL] WORKLOAD\n"
		"  WORKLOAD: loop MS | hog MS | io FILE MS | burst NAP_MS ITERS N |\n"
		"            duty PERIOD_US ITERS MS | build JOBS TASKS ITERS |\n"
		"            work ITERS | pipe ROUNDS | run OUT CMD [ARG...]\n");
	exit(2);
}

static int run(int argc, char **argv)
{
	if (!strcmp(argv[0], "loop") && argc == 2)
		return run_loop(parse(argv[1], "MS"));
	if (!strcmp(argv[0], "hog") && argc == 2)
		return run_hog(parse(argv[1], "MS"));
	if (!strcmp(argv[0], "io") && argc == 3)
		return run_io(argv[1], parse(argv[2], "MS"));
	if (!strcmp(argv[0], "burst") && argc == 4)
		return run_burst(parse(argv[1], "NAP_MS"), parse(argv[2], "ITERS"),
				 parse(argv[3], "N"));
	if (!strcmp(argv[0], "duty") && argc == 4)
		return run_duty(parse(argv[1], "PERIOD_US"), parse(argv[2], "ITERS"),
				parse(argv[3], "MS"));
	if (!strcmp(argv[0], "build") && argc == 4)
		return run_build(parse(argv[1], "JOBS"), parse(argv[2], "TASKS"),
				 parse(argv[3], "ITERS"));
	if (!strcmp(argv[0], "run") && argc >= 3)
		return run_program(argv[1], argv + 2);
	if (!strcmp(argv[0], "pipe") && argc == 2)
		return run_pipe(parse(argv[1], "ROUNDS"));
	bad_usage();
	return 2;
}

int main(int argc, char **argv)
{
	const char *marker = NULL, *settings[8];
	unsigned long settle_ms = 0, i, uclamp_min = ~0UL;
	int opt, cpu = -1, nset = 0;

	self_path = argv[0];
	if (argc == 3 && !strcmp(argv[1], "work")) {
		work(parse(argv[2], "ITERS"));
		return 0;
	}
	/* "+": options end at the workload, whose program may have its own. */
	while ((opt = getopt(argc, argv, "+c:m:s:u:U:")) != -1) {
		switch (opt) {
		case 'c':
			cpu = parse(optarg, "CPU");
			break;
		case 'm':
			marker = optarg;
			break;
		case 's':
			settle_ms = parse(optarg, "MS");
			break;
		case 'u':
			if (nset == 8)
				bad_usage();
			settings[nset++] = optarg;
			break;
		case 'U':
			uclamp_min = parse(optarg, "UTIL");
			break;
		default:
			bad_usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		bad_usage();

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("sched_setaffinity");
			return 1;
		}
	}
	if (marker) {
		marker_fd = open(marker, O_WRONLY);
		if (marker_fd < 0) {
			perror(marker);
			return 1;
		}
	}

	if (uclamp_min != ~0UL)
		set_uclamp_min(uclamp_min);

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < settle_ms; i += 2)
		sleep_ns(2000000ULL);
	for (opt = 0; opt < nset; opt++)
		write_setting(settings[opt]);
	return run(argc, argv);
}
