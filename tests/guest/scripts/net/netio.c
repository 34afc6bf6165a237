/* netio.c - loopback traffic with known ports and sizes for the networking tapset tests; prints what it did
 * and the deltas of the kernel's own counters. Used by tests/guest/tapset-net.t and tapset-net-scripts.t. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define NCOUNTERS 64

struct counters { int n; char name[NCOUNTERS][48]; long long val[NCOUNTERS]; };

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* The "Prefix: names" / "Prefix: values" line pairs of a /proc/net file, as "Prefix.name". */
static void read_counters(const char *path, struct counters *c)
{
	char names[4096], vals[4096];
	FILE *f = fopen(path, "r");

	if (!f)
		die(path);
	while (fgets(names, sizeof(names), f) && fgets(vals, sizeof(vals), f)) {
		char *sn, *sv, *n = strtok_r(names, " \n", &sn), *v = strtok_r(vals, " \n", &sv);
		char prefix[32];

		snprintf(prefix, sizeof(prefix), "%.*s", (int)strlen(n) - 1, n);
		while ((n = strtok_r(NULL, " \n", &sn)) && (v = strtok_r(NULL, " \n", &sv)) && c->n < NCOUNTERS) {
			if (strcmp(prefix, "Tcp") && strcmp(prefix, "Ip") && strcmp(prefix, "TcpExt"))
				continue;
			if (!strcmp(prefix, "TcpExt") && strcmp(n, "ListenOverflows") && strcmp(n, "ListenDrops") &&
			    strcmp(n, "DelayedACKs"))
				continue;
			snprintf(c->name[c->n], sizeof(c->name[0]), "%s.%s", prefix, n);
			c->val[c->n++] = atoll(v);
		}
	}
	fclose(f);
}

static void snapshot(struct counters *c)
{
	c->n = 0;
	read_counters("/proc/net/snmp", c);
	read_counters("/proc/net/netstat", c);
}

static struct sockaddr_in addr(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static int local_port(int fd)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	if (getsockname(fd, (struct sockaddr *)&a, &len))
		die("getsockname");
	return ntohs(a.sin_port);
}

static int listener(int port, int backlog)
{
	struct sockaddr_in a = addr(port);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, backlog))
		die("listener");
	return fd;
}

static int connected(int type, int port)
{
	struct sockaddr_in a = addr(port);
	int fd = socket(AF_INET, type, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		die("connect");
	return fd;
}

static void unconnect(int fd)
{
	struct sockaddr u = { .sa_family = AF_UNSPEC };

	if (connect(fd, &u, sizeof(u)))
		die("connect AF_UNSPEC");
}

static char buf[65536];

int main(int argc, char **argv)
{
	struct counters before, after;
	int tport, uport, rport, lport, srv, cli, acc, one = 1, i, fl;
	struct sockaddr_in a;

	if (argc != 5) {
		fprintf(stderr, "usage: netio TCP_PORT UDP_PORT REFUSED_PORT LISTEN_PORT\n");
		return 2;
	}
	tport = atoi(argv[1]);
	uport = atoi(argv[2]);
	rport = atoi(argv[3]);
	lport = atoi(argv[4]);
	memset(buf, 'x', sizeof(buf));
	snapshot(&before);
	printf("pid %d\n", getpid());

	/* TCP: connect, accept, 1000 bytes each way... */
	srv = listener(tport, 8);
	cli = socket(AF_INET, SOCK_STREAM, 0);
	a = addr(tport);
	if (cli < 0 || setsockopt(cli, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    connect(cli, (struct sockaddr *)&a, sizeof(a)))
		die("tcp client");
	acc = accept(srv, NULL, NULL);
	if (acc < 0)
		die("accept");
	printf("tcp_client_port %d\n", local_port(cli));
	if (send(cli, buf, 1000, 0) != 1000 || recv(acc, buf, 1000, MSG_WAITALL) != 1000)
		die("tcp 1000");
	if (send(acc, buf, 2000, 0) != 2000 || recv(cli, buf, 2000, MSG_WAITALL) != 2000)
		die("tcp 2000");
	/* ... and 300 with write and read (socket.write_iter, socket.read_iter) */
	if (write(cli, buf, 300) != 300)
		die("write 300");
	for (i = 0; i < 300; ) {
		int n = read(acc, buf, 300 - i);

		if (n <= 0)
			die("read 300");
		i += n;
	}
	close(cli);
	close(acc);

	/* the same over IPv6 on ::1: 500 bytes each way */
	{
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(tport), .sin6_addr = IN6ADDR_LOOPBACK_INIT };
		struct sockaddr_in6 l6;
		socklen_t len = sizeof(l6);
		int s6 = socket(AF_INET6, SOCK_STREAM, 0), c6 = socket(AF_INET6, SOCK_STREAM, 0), a, hops = 64;

		if (s6 < 0 || c6 < 0 || setsockopt(s6, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    setsockopt(c6, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &hops, sizeof(hops)) ||
		    bind(s6, (struct sockaddr *)&a6, sizeof(a6)) || listen(s6, 8) ||
		    connect(c6, (struct sockaddr *)&a6, sizeof(a6)) || (a = accept(s6, NULL, NULL)) < 0)
			die("tcp6");
		if (getsockname(c6, (struct sockaddr *)&l6, &len))
			die("getsockname6");
		printf("tcp6_client_port %d\n", ntohs(l6.sin6_port));
		if (send(c6, buf, 500, 0) != 500 || recv(a, buf, 500, MSG_WAITALL) != 500 ||
		    send(a, buf, 500, 0) != 500 || recv(c6, buf, 500, MSG_WAITALL) != 500)
			die("tcp6 500");
		close(c6);
		close(a);
		close(s6);
	}

	/* a connection disconnected with connect(AF_UNSPEC): tcp_disconnect and a RST */
	cli = connected(SOCK_STREAM, tport);
	acc = accept(srv, NULL, NULL);
	printf("tcp_disconnect_port %d\n", local_port(cli));
	unconnect(cli);
	close(cli);
	close(acc);
	close(srv);

	/* a refused connect: SYN, RST */
	cli = socket(AF_INET, SOCK_STREAM, 0);
	a = addr(rport);
	i = connect(cli, (struct sockaddr *)&a, sizeof(a));
	printf("refused %d %s\n", i, strerror(errno));
	close(cli);

	/* UDP: three datagrams of known sizes on a connected socket, then its disconnection */
	srv = socket(AF_INET, SOCK_DGRAM, 0);
	a = addr(uport);
	if (srv < 0 || bind(srv, (struct sockaddr *)&a, sizeof(a)))
		die("udp bind");
	cli = connected(SOCK_DGRAM, uport);
	printf("udp_client_port %d\n", local_port(cli));
	for (i = 0; i < 3; i++) {
		int size = 1111 + 123 * i;

		if (send(cli, buf, size, 0) != size || recv(srv, buf, sizeof(buf), 0) != size)
			die("udp");
	}
	unconnect(cli);
	close(cli);
	close(srv);

	/* an IPv4 packet of protocol 253, which nothing handles: answered by ICMP protocol unreachable */
	{
		unsigned char pkt[28] = { 0x45, 0, 0, 28, 0, 0, 0, 0, 64, 253 };
		struct iphdr *ip = (struct iphdr *)pkt;
		int r = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);

		ip->saddr = ip->daddr = htonl(INADDR_LOOPBACK);
		a = addr(0);
		if (r < 0 || sendto(r, pkt, sizeof(pkt), 0, (struct sockaddr *)&a, sizeof(a)) != sizeof(pkt))
			die("raw 253");
		close(r);
	}

	/* an accept queue of 1 with 2 connections in it: a third SYN overflows it */
	srv = listener(lport, 1);
	acc = connected(SOCK_STREAM, lport);
	cli = connected(SOCK_STREAM, lport);
	close(acc);
	close(cli);
	cli = socket(AF_INET, SOCK_STREAM, 0);
	fl = fcntl(cli, F_GETFL);
	fcntl(cli, F_SETFL, fl | O_NONBLOCK);
	a = addr(lport);
	i = connect(cli, (struct sockaddr *)&a, sizeof(a));
	printf("overflow %d %s\n", i, strerror(errno));
	close(cli);
	close(srv);

	/* delayed ACKs and the last segments settle before the counters are read again */
	usleep(1000000);
	snapshot(&after);
	for (i = 0; i < after.n && i < before.n; i++)
		printf("snmp %s %lld\n", after.name[i], after.val[i] - before.val[i]);
	fflush(stdout);
	return 0;
}
