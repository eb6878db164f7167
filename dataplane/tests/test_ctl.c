/* SPDX-License-Identifier: MIT */
/* test_ctl.c: unit tests of the control channel: key=value parsing, a message with an fd. */

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "nfvp_ctl.h"
#include "nfvp_parse.h"


int
main(void)
{
	const char *reply = "ok id=12 arch=semaphore base=0x7f00a0000000 len=4096 slot=64";
	char s[32], buf[128];
	uint64_t v = 0;
	int sv[2], pipefd[2], fd = -1;

	CHECK(nfvp_ctl_kv_u64(reply, "id", &v) == 0 && v == 12);
	CHECK(nfvp_ctl_kv_u64(reply, "base", &v) == 0 && v == 0x7f00a0000000ull);
	CHECK(nfvp_ctl_kv_u64(reply, "slot", &v) == 0 && v == 64);
	CHECK(nfvp_ctl_kv_u64(reply, "d", &v) < 0);      /* "id" must not match "d" */
	CHECK(nfvp_ctl_kv_u64(reply, "arch", &v) < 0);   /* not a number */
	CHECK(nfvp_ctl_kv_str(reply, "arch", s, sizeof(s)) == 0 && strcmp(s, "semaphore") == 0);
	CHECK(nfvp_ctl_kv_str(reply, "nope", s, sizeof(s)) < 0);
	{
		uint8_t mac[6];

		CHECK(nfvp_parse_mac("02:0a:FF:00:00:7e", mac) == 0 && mac[1] == 0x0a &&
		      mac[2] == 0xff && mac[5] == 0x7e);
		CHECK(nfvp_parse_mac("02:0a:ff:00:00", mac) < 0);     /* five bytes */
		CHECK(nfvp_parse_mac("02:0a:ff:00:00:7e:", mac) < 0); /* trailing text */
		CHECK(nfvp_parse_mac("02:0a:1ff:00:00:7e", mac) < 0); /* a byte over 255 */
	}

	{
		uint64_t u;
		uint32_t a;
		double d;

		CHECK(nfvp_parse_u64("0100", 0, 1000, &u) == 0 && u == 100); /* decimal, not octal */
		CHECK(nfvp_parse_u64("0x40", 0, 1000, &u) == 0 && u == 64);
		CHECK(nfvp_parse_u64("0x", 0, 1000, &u) < 0);
		CHECK(nfvp_parse_u64("1001", 0, 1000, &u) < 0 && nfvp_parse_u64("-1", 0, 9, &u) < 0);
		CHECK(nfvp_parse_u64(" 1", 0, 9, &u) < 0 && nfvp_parse_u64("1 ", 0, 9, &u) < 0);
		CHECK(nfvp_parse_u64("18446744073709551616", 0, UINT64_MAX, &u) < 0);
		CHECK(nfvp_parse_double("2.5", 0, 3, &d) == 0 && d == 2.5);
		CHECK(nfvp_parse_double("inf", 0, 1e300, &d) < 0 && nfvp_parse_double("4", 0, 3, &d) < 0);
		CHECK(nfvp_parse_ipv4("10.0.1.2", &a) == 0 && a == 0x0a000102);
		CHECK(nfvp_parse_ipv4("10.0.1", &a) < 0 && nfvp_parse_ipv4("10.0.1.256", &a) < 0);
		CHECK(nfvp_parse_ipv4("10.0.1.2.3", &a) < 0 && nfvp_parse_ipv4("010.0.0.1", &a) < 0);
	}

	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
	CHECK(pipe(pipefd) == 0);
	CHECK(nfvp_ctl_send(sv[0], "hello fd", pipefd[1]) == 0);
	CHECK(nfvp_ctl_recv(sv[1], buf, sizeof(buf), &fd) == 8 && strcmp(buf, "hello fd") == 0);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1);          /* the same pipe, passed over */
	CHECK(read(pipefd[0], buf, 1) == 1 && buf[0] == 'x');
	CHECK(nfvp_ctl_send(sv[0], "no fd", -1) == 0);
	CHECK(nfvp_ctl_recv(sv[1], buf, sizeof(buf), &fd) == 5 && fd == -1);
	close(sv[0]);
	CHECK(nfvp_ctl_recv(sv[1], buf, sizeof(buf), &fd) == 0); /* EOF: the peer is gone */
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
