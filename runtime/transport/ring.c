/* ring.c - per-CPU single-producer/single-consumer byte rings holding trace records.
 * Used by transport.c (writer, probe context) and trace.c (reader, stapio's read()). */

/*
 * Layout: a power-of-two byte array with free-running head (bytes ever written)
 * and tail (bytes ever consumed).  A record is a struct stp_record_header
 * followed by its payload, stored contiguously modulo the ring size (it may
 * wrap), with no padding, so the bytes read() returns are exactly the wire
 * format of protocol.h.
 *
 * Only the owning CPU's probe context writes (stores head), only one reader at
 * a time reads (stores tail, serialized by read_lock).  The writer publishes a
 * record with smp_store_release(head) after copying it in; the reader
 * publishes consumption with smp_store_release(tail) after copying it out.
 * Each side reads the other's index with smp_load_acquire.  No locks, no
 * allocation, no wakeups on the write side.
 */

struct stp_ring {
	unsigned long head;		/* written by the producer only */
	unsigned long mask;		/* size - 1 */
	char *data;
	unsigned int cpu;
	atomic_long_t lost_records;	/* records dropped because the ring was full */
	atomic_long_t lost_bytes;	/* their header + payload bytes */
	atomic_long_t overwritten;	/* flight recorder: oldest records discarded */
	void *direct;			/* a record being formatted in place at head (stp_ring_reserve):
					 * evict(direct) moves it out of the ring, and clears direct,
					 * before any other record is written */
	void (*evict)(void *direct);
	u64 overwritten_seq;		/* highest seq discarded that way */

	unsigned long tail ____cacheline_aligned_in_smp;	/* consumer only */
	struct mutex read_lock;		/* one reader at a time */
};

/*
 * Flight recorder: while a detached session has no reader, a full ring
 * discards its oldest records to make room (the writer then owns tail).  Set
 * with every ring's read_lock taken in turn, so no read is in progress; read()
 * fails with EBUSY while it is set; cleared before synchronize_rcu(), after
 * which no writer still uses the overwrite path (they run with preemption off).
 */
static bool stp_rings_overwrite;

/* Global production order; the first record gets seq 1.  Only records that
 * are stored take a seq (see stp_ring_write), so stapio can tell a record
 * still being written (a hole it waits for) from a lost one (no hole). */
static atomic64_t stp_ring_seq = ATOMIC64_INIT(0);

static struct stp_ring *stp_ring_alloc(unsigned int cpu, unsigned long size)
{
	int node = cpu_to_node(cpu);
	struct stp_ring *r;

	r = kzalloc_node(sizeof(*r), GFP_KERNEL, node);
	if (!r)
		return NULL;
	r->data = vmalloc_node(size, node);
	if (!r->data) {
		kfree(r);
		return NULL;
	}
	r->mask = size - 1;
	r->cpu = cpu;
	mutex_init(&r->read_lock);
	return r;
}

static void stp_ring_free(struct stp_ring *r)
{
	if (!r)
		return;
	vfree(r->data);
	kfree(r);
}

/* Copy len bytes into the ring at free-running position pos (may wrap). */
static void stp_ring_put(struct stp_ring *r, unsigned long pos,
			 const void *src, size_t len)
{
	size_t off = pos & r->mask;
	size_t first = min_t(size_t, len, r->mask + 1 - off);

	memcpy(r->data + off, src, first);
	memcpy(r->data, (const char *)src + first, len - first);
}

/* Copy len bytes out of the ring at free-running position pos (may wrap). */
static void stp_ring_get(struct stp_ring *r, unsigned long pos,
			 void *dst, size_t len)
{
	size_t off = pos & r->mask;
	size_t first = min_t(size_t, len, r->mask + 1 - off);

	memcpy(dst, r->data + off, first);
	memcpy((char *)dst + first, r->data, len - first);
}

static int stp_ring_get_user(struct stp_ring *r, unsigned long pos,
			     char __user *dst, size_t len)
{
	size_t off = pos & r->mask;
	size_t first = min_t(size_t, len, r->mask + 1 - off);

	if (copy_to_user(dst, r->data + off, first))
		return -EFAULT;
	if (copy_to_user(dst + first, r->data, len - first))
		return -EFAULT;
	return 0;
}

static void stp_ring_count_lost(struct stp_ring *r, unsigned long bytes)
{
	atomic_long_inc(&r->lost_records);
	atomic_long_add(bytes, &r->lost_bytes);
}

/* Flight recorder, no reader: discard whole records from the front until
 * need bytes fit (need <= ring size: STP_RING_MIN_BYTES holds the largest). */
static unsigned long stp_ring_discard_oldest(struct stp_ring *r, unsigned long head,
					     unsigned long tail, unsigned long need)
{
	struct stp_record_header h;

	while (need > r->mask + 1 - (head - tail)) {
		stp_ring_get(r, tail, &h, sizeof(h));
		tail += sizeof(h) + (unsigned long)h.len;
		if (h.seq > r->overwritten_seq)
			r->overwritten_seq = h.seq;
		atomic_long_inc(&r->overwritten);
	}
	smp_store_release(&r->tail, tail);
	return tail;
}

/*
 * Producer: append one whole record or drop it.  Caller is the ring's CPU in
 * probe context (not re-entered on this CPU).  Never sleeps.
 */
static int stp_ring_write(struct stp_ring *r, unsigned int flags,
			  const char *data, unsigned int len)
{
	struct stp_record_header h;
	unsigned long head, tail, need;

	if (unlikely(r->direct))
		r->evict(r->direct);		/* its bytes elsewhere: not overwritten */
	need = sizeof(h) + (unsigned long)len;
	if (unlikely(len > STP_REC_MAX_LEN)) {
		stp_ring_count_lost(r, need);
		return -EMSGSIZE;
	}
	head = r->head;
	tail = smp_load_acquire(&r->tail);	/* reader is done with [.., tail) */
	if (unlikely(need > r->mask + 1 - (head - tail))) {
		if (!READ_ONCE(stp_rings_overwrite)) {
			stp_ring_count_lost(r, need);
			return -ENOSPC;
		}
		tail = stp_ring_discard_oldest(r, head, tail, need);
	}
	/*
	 * The record fits: only now take its seq, so a dropped record never
	 * consumes one and the seq sequence has no holes, only records still
	 * being written.  The payload goes in first (the reader never looks
	 * past head), which keeps the window between taking the seq and
	 * publishing the record down to a header copy.
	 */
	h.len = len;
	h.cpu = r->cpu;
	h.flags = flags;
	if (likely((head & r->mask) + need <= r->mask + 1)) {
		/* the whole record before the ring's end (nearly always): two straight copies */
		char *at = r->data + (head & r->mask);

		memcpy(at + sizeof(h), data, len);
		h.seq = atomic64_inc_return(&stp_ring_seq);
		memcpy(at, &h, sizeof(h));
	} else {
		stp_ring_put(r, head + sizeof(h), data, len);
		h.seq = atomic64_inc_return(&stp_ring_seq);
		stp_ring_put(r, head, &h, sizeof(h));
	}
	smp_store_release(&r->head, head + need);	/* publish header and payload */
	return 0;
}

/*
 * Producer, in place: the payload space of the next record at head when at least min bytes
 * (and the header before them) are free and contiguous (not across the ring's end), NULL
 * otherwise (then the caller formats into its own buffer and stp_ring_write counts a loss as
 * usual); *cap gets the contiguous payload bytes.  Nothing is published: the space is free
 * ring space that only this CPU's writer fills, until stp_ring_commit.  Not in flight-recorder
 * mode (its writer may move tail).  Caller as for stp_ring_write.
 */
static __maybe_unused char *stp_ring_reserve(struct stp_ring *r, unsigned long min, unsigned long *cap)
{
	unsigned long head = r->head, tail, room, toend;

	if (unlikely(READ_ONCE(stp_rings_overwrite)))
		return NULL;
	tail = smp_load_acquire(&r->tail);
	room = r->mask + 1 - (head - tail);
	toend = r->mask + 1 - (head & r->mask);
	if (toend < room)
		room = toend;
	if (room < sizeof(struct stp_record_header) + min)
		return NULL;
	*cap = room - sizeof(struct stp_record_header);
	return r->data + (head & r->mask) + sizeof(struct stp_record_header);
}

/* Producer: publish the record of len payload bytes written in place after stp_ring_reserve. */
static __maybe_unused void stp_ring_commit(struct stp_ring *r, unsigned int flags, unsigned int len)
{
	unsigned long head = r->head;
	struct stp_record_header *h = (struct stp_record_header *)(r->data + (head & r->mask));

	/* field by field where it goes, at any alignment (a header built on the stack and copied
	 * cost a store and a load a word, and the stack canary of every caller) */
	put_unaligned((__u32)len, &h->len);
	put_unaligned((__u16)r->cpu, &h->cpu);
	put_unaligned((__u16)flags, &h->flags);
	put_unaligned((__u64)atomic64_inc_return(&stp_ring_seq), &h->seq);
	smp_store_release(&r->head, head + sizeof(*h) + len);
}

/* True when the reader has something to consume.  Any context. */
static bool stp_ring_pending(struct stp_ring *r)
{
	return smp_load_acquire(&r->head) != READ_ONCE(r->tail);
}

/*
 * Consumer: copy as many whole records as fit in count bytes to buf.
 * Returns the bytes copied, 0 when the ring is empty, -EINVAL when the next
 * record alone does not fit in count, -EFAULT, or -ERESTARTSYS.
 */
static ssize_t stp_ring_read(struct stp_ring *r, char __user *buf, size_t count)
{
	struct stp_record_header h;
	unsigned long head, tail, rec = 0;
	size_t done = 0;
	ssize_t ret;

	if (mutex_lock_interruptible(&r->read_lock))
		return -ERESTARTSYS;
	if (READ_ONCE(stp_rings_overwrite)) {
		mutex_unlock(&r->read_lock);
		return -EBUSY;	/* detached flight recorder: attach first */
	}
	tail = READ_ONCE(r->tail);
	head = smp_load_acquire(&r->head);	/* records before head are whole */
	/* the whole records that fit in count, then one copy of them all (at most two at the
	 * ring's end): the records lie back to back, as read() returns them.  When everything
	 * written fits (the reader offers more than the ring holds, as stapio does), that is all
	 * of it, with no walk over the headers. */
	if (head - tail <= count)
		done = head - tail;
	while (tail + done != head) {
		stp_ring_get(r, tail + done, &h, sizeof(h));
		rec = sizeof(h) + (unsigned long)h.len;
		if (rec > count - done)
			break;
		done += rec;
	}
	if (done && stp_ring_get_user(r, tail, buf, done))
		done = 0;
	else if (done)
		smp_store_release(&r->tail, tail + done);	/* give the space back */
	if (done)
		ret = done;
	else if (head == tail)
		ret = 0;
	else if (rec > count)
		ret = -EINVAL;
	else
		ret = -EFAULT;
	mutex_unlock(&r->read_lock);
	return ret;
}
