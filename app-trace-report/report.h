/* report.h - app-trace-report's types: one parsed trace line, the per-host/per-program totals, the parser and aggregation API.
 * Used by the app-trace-report/ files and tests/fuzz/apptrace_fuzz.c. */
#ifndef ATR_REPORT_H
#define ATR_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum atr_op { ATR_OPEN, ATR_SOCKET, ATR_ACCEPT, ATR_CONNECT, ATR_READ, ATR_WRITE, ATR_SEEK,
	      ATR_CLOSE, ATR_MMAP, ATR_FSYNC, ATR_NOPS };
extern const char *const atr_op_names[ATR_NOPS];

#define ATR_NAME_MAX 256	/* execname and path lengths accepted */
#define ATR_BUCKETS 65		/* size 0, then [2^k, 2^(k+1)) for k = 0..63 */

/* One line of app-trace.stp's output; -1 (has_* 0) for the fields the line lacks. */
typedef struct {
	uint64_t ts_us;
	enum atr_op op;
	char exe[ATR_NAME_MAX];
	long pid, fd;
	int has_count, has_offset, has_ret;
	int64_t count, offset, ret;
	char path[ATR_NAME_MAX];	/* as the text form prints it (quoted), "" when absent */
	/* ATR_LINE_HEADER: the host ("" unless the JSON header named it), the clock offset */
	char host[ATR_NAME_MAX];
	int has_clock;
	int64_t offset_us, offset_err_us;
} AtrLine;

/* Kind of a line: a traced call, a comment or empty line or other record (skipped), the end's
 * "# lost:" line or {"type":"lost"} record, a header line (the clock offset) or object. */
enum atr_kind { ATR_LINE_CALL, ATR_LINE_SKIP, ATR_LINE_LOST, ATR_LINE_BAD, ATR_LINE_HEADER };

/* Parses one line (len bytes, no newline, not NUL-terminated), text or (starting with '{') JSON:
 * the form is told line by line. ATR_LINE_BAD: err says why. ATR_LINE_LOST: *lost holds the
 * records lost. */
enum atr_kind atr_parse_line(const char *s, size_t len, AtrLine *out, uint64_t *lost, char *err, size_t errlen);
/* The JSON form's line (jsonl.c); strings decoded, a path quoted as the text form's. */
enum atr_kind atr_parse_json(const char *s, size_t len, AtrLine *out, uint64_t *lost, char *err, size_t errlen);

/* A string-keyed hash table of two-number values: an index into the owner's array, or a descriptor's
 * state (its file's index or -1, where its last access ended or -1). */
typedef struct {
	char **keys;
	int64_t (*vals)[2];
	size_t cap, n;
} AtrMap;
int64_t *atr_map_get(AtrMap *m, const char *key);				/* NULL when absent */
int64_t *atr_map_put(AtrMap *m, const char *key, int64_t v0, int64_t v1);	/* NULL: out of memory */
void atr_map_del(AtrMap *m, const char *key);
void atr_map_free(AtrMap *m);

typedef struct {
	char name[ATR_NAME_MAX];
	uint64_t calls[ATR_NOPS];
	uint64_t bytes_read, bytes_written;
	uint64_t hist[2][ATR_BUCKETS];		/* request sizes of reads [0] and writes [1] */
	uint64_t seq, rnd;			/* accesses starting where the last one on the fd ended, or not */
} AtrProg;

typedef struct {
	char path[ATR_NAME_MAX];
	uint64_t calls, bytes_read, bytes_written;
} AtrFile;

typedef struct {
	double t;			/* seconds since the host's first line (bin start) */
	uint64_t rd, wr, reqs, req_bytes;
} AtrBin;

typedef struct {
	char name[ATR_NAME_MAX];
	AtrProg *progs;  size_t nprogs;  AtrMap prog_map;
	AtrFile *files;  size_t nfiles;  AtrMap file_map;
	AtrMap fd_map;		/* "PID/FD" -> the file's index or -1, where the last access ended or -1 */
	AtrBin *bins;    size_t nbins;
	uint64_t first_us, last_us, lines, lost;
	uint64_t errors;	/* calls that failed (ret < 0) */
	int has_offset;		/* the header gave the host's clock offset to the controller's */
	int64_t offset_us, offset_err_us;	/* host clock - controller clock, its error (-1: unknown) */
	char *offset_file;	/* the file whose header gave it (the last one that did) */
	uint64_t unplotted;	/* transfers past the last time bin (see --bin) */
	int have_first;
} AtrHost;

/* One call on the merged timeline (--timeline): the host's time, its host and program. */
typedef struct {
	uint64_t ts_us;
	int64_t t_ctl;		/* ts_us - the host's offset: the controller's time (set by the print) */
	size_t seq;		/* its place in the input, for an order among equal times */
	uint32_t host, prog;
	enum atr_op op;
	long pid, fd;
	int has_ret;
	int64_t ret;
} AtrEvent;

typedef struct {
	AtrHost *hosts;
	size_t nhosts;
	int keep_events;	/* --timeline: every call kept */
	AtrEvent *events;
	size_t nevents, events_cap;
	double bin_s;		/* width of a time bin for --plot */
	unsigned long bad_lines;
} AtrReport;

/* The host of a trace file: its header's "# host:" line or JSON header's "host", else its base name up to "-app-trace"
 * (the whole base name otherwise). */
void atr_host_of(const char *file, char *host, size_t len);
int atr_header_host(const char *buf, size_t len, char *host, size_t size);	/* 1: found */
/* A header's "# clock_offset_us: N clock_offset_err_us: E" line (len bytes): 1 and the numbers. */
int atr_parse_clock(const char *s, size_t len, int64_t *offset, int64_t *err);
AtrHost *atr_host(AtrReport *r, const char *name);	/* found or added; NULL: out of memory */
int atr_add_line(AtrReport *r, AtrHost *h, const AtrLine *l);	/* 0, or -1: out of memory */
/* Reads a whole trace (len bytes) named file into host h; bad lines reported on err as file:line:
 * (at most max_msgs of them, then a count). Returns the bad lines, or -1 when out of memory. */
long atr_read_buffer(AtrReport *r, AtrHost *h, const char *file, const char *buf, size_t len, FILE *err,
		     unsigned max_msgs);
void atr_report_free(AtrReport *r);

/* Text-safe copies of strings from traces (escape.c): printable ASCII as it is, every other byte
 * as \xNN, so that a terminal shows an escape sequence instead of obeying it. ATR_ESC_NAME: a
 * backslash as \\ too (execnames, hosts, file names); ATR_ESC_QUOTED: a backslash kept (a path
 * the trace quoted and escaped already). Cut with "..." when buf (size >= 8) is too small. */
enum atr_esc_mode { ATR_ESC_NAME, ATR_ESC_QUOTED };
#define ATR_ESC_SIZE (4 * ATR_NAME_MAX + 4)	/* room for any name of a trace */
#define ATR_ESC_PATH_SIZE 8192			/* for a file name (longer ones cut) */
const char *atr_esc(char *buf, size_t size, const char *s, enum atr_esc_mode mode);

/* The directory app-trace.yml fetches into (fleet.c): FETCH_DIR/.app-trace-fleet marks it, each
 * host's files are in FETCH_DIR/INVENTORY_HOST/. */
#define ATR_FLEET_MARK ".app-trace-fleet"
int atr_is_fleet_dir(const char *dir);	/* 1: dir holds the mark */
/* 1 and the inventory host (the directory's name) when file lies in a host directory of a fetch
 * directory; 0 otherwise. */
int atr_inventory_host(const char *file, char *host, size_t size);
/* fn(path, inventory host, arg) for every regular file of every host directory of dir, hosts in
 * name order, each host's files in version order (HOST-app-trace.out.2 before .10); what is
 * left out (anything else) said on err. Returns 0, fn's first nonzero value, or -1 (a message
 * on err). */
int atr_fleet_each(const char *dir, FILE *err, int (*fn)(const char *path, const char *host, void *arg), void *arg);

void atr_print(const AtrReport *r, FILE *out, unsigned top);
/* --json: the summary as one JSON object on one line (json.c). */
void atr_print_json(const AtrReport *r, FILE *out);
/* --timeline: a table per host, then every call of every host in the controller's time. */
void atr_print_timeline(AtrReport *r, FILE *out);
int atr_plot(const AtrReport *r, const char *file);	/* 0, or -1 with a message on stderr */

#endif
