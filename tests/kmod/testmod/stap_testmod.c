/* stap_testmod.c - DWARF test module: functions with known parameters, locals, types and values.
 * Used by the DWARF probe tests (built by tests/lib/testmod.sh); tests/kmod/README.md lists every value. */

/*
 * Writing N (1..1000) to /sys/module/stap_testmod/parameters/run calls every
 * stm_* function below N times, always in the order of testmod_run_once(), always
 * with the same values; nothing else calls them.  The read-only parameters
 * "runs" (rounds completed) and "checksum" (the functions' results mixed
 * together, the same after every round) let a test see that a round ran.
 *
 * Every probed function is __noipa (so noinline, and gcc neither clones it,
 * nor propagates the constant arguments into it, nor drops unused ones): its
 * parameters arrive in the ABI registers or on the stack, visible at the entry
 * pc.  Each function stores what it received into stm_sink (volatile) and so
 * keeps every parameter alive.  The functions never dereference a pointer
 * they were not meant to (stm_bad_ptr only stores its pointers' values).
 *
 * Do not change a value or a line without updating tests/kmod/README.md; the
 * tests find source lines by their "STM-LINE: NAME" marker comments (grep -n), never by number.
 */

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/types.h>

#define STM_NOINLINE noinline __noipa __used

/* ---- types ---------------------------------------------------------------------------------- */

enum stm_color {
	STM_RED = 1,
	STM_GREEN = 2,
	STM_BLUE = 4,
};

struct stm_inner {
	int x;
	short y;
	char tag;
};

union stm_union {
	u32 word;
	u16 halves[2];
	u8 bytes[4];
};

/* bit offsets (DW_AT_data_bit_offset, from the struct's start, little endian):
 * u3 0-2, s5 3-7, u1 8, s1 9, u12 10-21 (spans bytes 1 and 2), s10 22-31,
 * u40 64-103 (would straddle the first 64-bit unit at 32, so starts a new one),
 * s20 104-123, uc4 124-127 (the top of byte 15); sizeof 16 */
struct stm_bits {
	unsigned int u3 : 3;
	signed int s5 : 5;
	unsigned int u1 : 1;
	signed int s1 : 1;
	unsigned int u12 : 12;
	signed int s10 : 10;
	unsigned long long u40 : 40;
	signed long long s20 : 20;
	unsigned char uc4 : 4;
};

struct stm_outer {
	long id;
	struct stm_inner in;
	struct stm_inner *pin;
	struct stm_inner arr[3];
	int nums[4];
	char name[16];
	const char *label;
	union stm_union u;
	struct stm_bits bits;
	enum stm_color color;
	struct stm_outer *self;
	void *nothing;
	unsigned long ul;
};

/* ---- data ----------------------------------------------------------------------------------- */

const char stm_greeting[] = "hello from stap_testmod";
static const char stm_label_text[] = "the label";
static char stm_buf[16] = "buffer-contents";
static char stm_empty[4] = "";
static int stm_int_target = 4242;
int stm_nums[4] = { 1, -2, 3, -4 };

static struct stm_inner stm_inners[3] = {
	{ .x = 10, .y = 11, .tag = 'a' },
	{ .x = 20, .y = -21, .tag = 'b' },
	{ .x = 30, .y = 31, .tag = 'c' },
};

struct stm_outer stm_outer_obj = {
	.id = -1234567890123L,
	.in = { .x = 7, .y = -8, .tag = 'q' },
	.pin = &stm_inners[1],
	.arr = {
		{ .x = 100, .y = 101, .tag = 'x' },
		{ .x = 200, .y = -202, .tag = 'y' },
		{ .x = 300, .y = 303, .tag = 'z' },
	},
	.nums = { 1000, -2000, 3000, -4000 },
	.name = "testmod-name",
	.label = stm_label_text,
	.u = { .word = 0x11223344 },
	.bits = {
		.u3 = 5, .s5 = -7, .u1 = 1, .s1 = -1, .u12 = 0xabc,
		.s10 = -300, .u40 = 0x123456789aULL, .s20 = -400000, .uc4 = 9,
	},
	.color = STM_GREEN,
	.self = &stm_outer_obj,
	.nothing = NULL,
	.ul = 0xfedcba9876543210UL,
};

static union stm_union stm_union_obj = { .word = 0xa1b2c3d4 };

/* what the functions received, so that gcc keeps their parameters */
static volatile unsigned long stm_sink;
/* what the inline instances computed */
static volatile long stm_inline_out;

#define SINK(v) (stm_sink = (unsigned long)(v))

/* ---- prototypes: the functions are global (kallsyms type T, probed by name) and so declared, as
 * kbuild's -Wmissing-prototypes (an error with -Werror since 6.12's kbuild) wants ---------------- */
long stm_ints_signed(signed char sc, short ss, int si, long long sll);
unsigned long long stm_ints_unsigned(unsigned char uc, unsigned short us, unsigned int ui,
				     unsigned long long ull);
long stm_longs(long l, unsigned long ul, char ch, bool flag);
long stm_stack_args(long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8);
int stm_pointers(int *ip, const char *str, void *vp, char *buf, struct stm_inner *inner,
		 const char *nullstr);
int stm_enum(enum stm_color color, enum stm_color other);
long stm_struct(struct stm_outer *p);
int stm_struct_byval(struct stm_inner in);
u32 stm_union(union stm_union *up);
int stm_bits(struct stm_bits *b);
int stm_arrays(int *nums, struct stm_inner *arr, int n);
int stm_return(int x);
long stm_return_neg(long x);
struct stm_outer *stm_return_ptr(void);
const char *stm_return_str(void);
long stm_inline_site_a(long v, long w);
long stm_inline_site_b(long v, long w);
int stm_bad_ptr(struct stm_outer *bad, const char *badstr, int *null_int);
void stm_locals_use(int sq, long total, unsigned char small, const char *msg, char *word,
		    struct stm_inner *pt);
long stm_locals(int n);
int stm_strings(const char *s, char *arr, char *empty, struct stm_outer *p);

/* ---- the probed functions, in call order ---------------------------------------------------- */

STM_NOINLINE long stm_ints_signed(signed char sc, short ss, int si, long long sll)
{
	SINK(sc);
	SINK(ss);
	SINK(si);
	SINK(sll);
	return sc + ss + si + sll;
}

STM_NOINLINE unsigned long long stm_ints_unsigned(unsigned char uc, unsigned short us,
						  unsigned int ui, unsigned long long ull)
{
	SINK(uc);
	SINK(us);
	SINK(ui);
	SINK(ull);
	return uc + us + ui + ull;
}

STM_NOINLINE long stm_longs(long l, unsigned long ul, char ch, bool flag)
{
	SINK(l);
	SINK(ul);
	SINK(ch);
	SINK(flag);
	return l + ch + flag;
}

/* eight arguments: a7 and a8 are passed on the stack */
STM_NOINLINE long stm_stack_args(long a1, long a2, long a3, long a4, long a5, long a6, long a7,
				 long a8)
{
	SINK(a1);
	SINK(a2);
	SINK(a3);
	SINK(a4);
	SINK(a5);
	SINK(a6);
	SINK(a7);
	SINK(a8);
	return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
}

STM_NOINLINE int stm_pointers(int *ip, const char *str, void *vp, char *buf,
			      struct stm_inner *inner, const char *nullstr)
{
	SINK(ip);
	SINK(str);
	SINK(vp);
	SINK(buf);
	SINK(inner);
	SINK(nullstr);
	return *ip + inner->x;
}

STM_NOINLINE int stm_enum(enum stm_color color, enum stm_color other)
{
	SINK(color);
	SINK(other);
	return color | other;
}

STM_NOINLINE long stm_struct(struct stm_outer *p)
{
	SINK(p);
	return p->id;
}

/* a small struct passed by value (8 bytes: one register) */
STM_NOINLINE int stm_struct_byval(struct stm_inner in)
{
	SINK(in.x);
	SINK(in.y);
	SINK(in.tag);
	return in.x + in.y + in.tag;
}

STM_NOINLINE u32 stm_union(union stm_union *up)
{
	SINK(up);
	return up->word;
}

STM_NOINLINE int stm_bits(struct stm_bits *b)
{
	SINK(b);
	return b->s5 + b->u12;
}

STM_NOINLINE int stm_arrays(int *nums, struct stm_inner *arr, int n)
{
	SINK(nums);
	SINK(arr);
	SINK(n);
	return nums[n - 1] + arr[n - 1].x;
}

STM_NOINLINE int stm_return(int x)
{
	SINK(x);
	return x * 2 + 8;
}

STM_NOINLINE long stm_return_neg(long x)
{
	SINK(x);
	return -x;
}

STM_NOINLINE struct stm_outer *stm_return_ptr(void)
{
	SINK(0);
	return &stm_outer_obj;
}

STM_NOINLINE const char *stm_return_str(void)
{
	SINK(1);
	return stm_greeting;
}

/* inlined at two call sites (stm_inline_site_a and stm_inline_site_b) with different arguments */
static __always_inline long stm_inline_sum(long a, long b)
{
	long r;

	barrier();
	r = a * 10 + b;
	stm_inline_out = r;
	barrier();
	return r;
}

STM_NOINLINE long stm_inline_site_a(long v, long w)
{
	long r = stm_inline_sum(v, w);

	SINK(r);
	return r;
}

STM_NOINLINE long stm_inline_site_b(long v, long w)
{
	long r;

	SINK(v);
	r = stm_inline_sum(v, w);
	SINK(r);
	return r + 1;
}

/* bad pointers, never dereferenced here: a probe reading through them must fault safely */
STM_NOINLINE int stm_bad_ptr(struct stm_outer *bad, const char *badstr, int *null_int)
{
	SINK(bad);
	SINK(badstr);
	SINK(null_int);
	return 0;
}

/* receives stm_locals' locals (and keeps them alive across the call) */
STM_NOINLINE void stm_locals_use(int sq, long total, unsigned char small, const char *msg,
				 char *word, struct stm_inner *pt)
{
	SINK(sq);
	SINK(total);
	SINK(small);
	SINK(msg);
	SINK(word);
	SINK(pt);
}

/* locals: all of them hold their final values on the marked line (one store, after the
 * stores that need sq, total and small); word and pt live in the frame (their addresses escape),
 * the others in registers */
STM_NOINLINE long stm_locals(int n)
{
	struct stm_inner pt = { .x = n, .y = -n, .tag = 'L' };
	char word[8] = "local";
	int sq = n * n;
	long total = (long)n * (n + 1) / 2;
	unsigned char small = (unsigned char)(n * 51);
	const char *msg = stm_greeting;

	SINK(sq);
	SINK(total);
	SINK(small);
	stm_sink = 0; /* STM-LINE: locals */
	stm_locals_use(sq, total, small, msg, word, &pt);
	return total + sq + small + word[0] + pt.y;
}

/* the strings: a char array in a struct, an empty one, a char * */
STM_NOINLINE int stm_strings(const char *s, char *arr, char *empty, struct stm_outer *p)
{
	SINK(s);
	SINK(arr);
	SINK(empty);
	SINK(p);
	return 0;
}

/* ---- the trigger ---------------------------------------------------------------------------- */

static unsigned long testmod_checksum;
static unsigned int testmod_runs;

static void testmod_run_once(void)
{
	unsigned long c = 0;

	c += stm_ints_signed(-5, -300, -70000, -5000000000LL);
	c += stm_ints_unsigned(250, 65000, 4000000000U, 18000000000000000000ULL);
	c += stm_longs(-9000000000L, 0xfedcba9876543210UL, 'A', true);
	c += stm_stack_args(101, 102, 103, 104, 105, 106, 107, 108);
	c += stm_pointers(&stm_int_target, stm_greeting, &stm_outer_obj, stm_buf,
			  &stm_outer_obj.in, NULL);
	c += stm_enum(STM_BLUE, STM_RED);
	c += stm_struct(&stm_outer_obj);
	c += stm_struct_byval(stm_inners[2]);
	c += stm_union(&stm_union_obj);
	c += stm_bits(&stm_outer_obj.bits);
	c += stm_arrays(stm_nums, stm_inners, 3);
	c += stm_return(17);
	c += stm_return_neg(77);
	c += (unsigned long)stm_return_ptr()->id;
	c += stm_return_str()[0];
	c += stm_inline_site_a(3, 4);
	c += stm_inline_site_b(5, 6);
	c += stm_bad_ptr((struct stm_outer *)0x10, (const char *)0xdead000000000000UL, NULL);
	c += stm_locals(5);
	c += stm_strings(stm_greeting, stm_outer_obj.name, stm_empty, &stm_outer_obj);
	testmod_checksum = c;
}

static int testmod_run_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n, i;
	int err;

	err = kstrtouint(val, 0, &n);
	if (err)
		return err;
	if (n < 1 || n > 1000)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		testmod_run_once();
		testmod_runs++;
	}
	return 0;
}

static int testmod_run_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", testmod_runs);
}

static const struct kernel_param_ops testmod_run_ops = {
	.set = testmod_run_set,
	.get = testmod_run_get,
};

module_param_cb(run, &testmod_run_ops, NULL, 0644);
MODULE_PARM_DESC(run, "write N (1..1000): call every stm_* function N times, in order");
module_param_named(runs, testmod_runs, uint, 0444);
MODULE_PARM_DESC(runs, "rounds completed");
module_param_named(checksum, testmod_checksum, ulong, 0444);
MODULE_PARM_DESC(checksum, "the functions' results of the last round, summed");

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stap DWARF probe test module");
