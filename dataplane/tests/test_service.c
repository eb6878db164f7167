/* SPDX-License-Identifier: MIT */
/* test_service.c: unit tests of services (vswitch/service.c): the Maglev table's shares follow
 * the weights, a weight of 0 takes no flow, nf-aware keeps large and small flows on groups of
 * their own, and bad commands are answered with one error line. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "check.h"
#include "vswitch.h"

#define N_NFS 4

static struct vswitch vs;
static struct rte_mempool *pool;

static void
setup(void)
{
	unsigned int i;

	if (vs.services != NULL) {      /* the last test's services: their tables go */
		for (i = 0; i < NFVP_MAX_SERVICES; i++)
			rte_hash_free(vs.services[i].flows);
		free(vs.services);
		free(vs.nfs);
	}
	memset(&vs, 0, sizeof(vs));
	vs.hz = rte_get_tsc_hz();
	vs.cfg.max_nfs = N_NFS;
	vs.nfs = calloc(N_NFS, sizeof(*vs.nfs));
	vs.services = calloc(NFVP_MAX_SERVICES, sizeof(*vs.services));
	for (i = 0; i < N_NFS; i++) {
		snprintf(vs.nfs[i].name, sizeof(vs.nfs[i].name), "nf%u", i);
		vs.nfs[i].alive = 1;
	}
	vs.n_nf_ids = N_NFS;
}

/* "service ..." as the control channel hands it over; returns the reply. */
static const char *
command(const char *text)
{
	static char out[NFVP_CTL_MSG];
	char msg[256];

	snprintf(msg, sizeof(msg), "%s", text);
	vs_service_command(&vs, msg, out, sizeof(out));
	return out;
}

static struct vs_service *
service(const char *name)
{
	int id = vs_service_find(&vs, name);

	return id < 0 ? NULL : &vs.services[id];
}

/* A UDP packet of flow f (its source port), frame_bytes long with the FCS. */
static struct rte_mbuf *
packet(uint32_t f, uint16_t frame_bytes)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)rte_pktmbuf_append(
		m, frame_bytes - RTE_ETHER_CRC_LEN);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	memset(eth, 0, sizeof(*eth) + sizeof(*ip) + sizeof(*udp));
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, (f >> 8) & 255, f & 255));
	ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(10, 9, 9, 9));
	udp->src_port = rte_cpu_to_be_16((uint16_t)(1024 + f));
	udp->dst_port = rte_cpu_to_be_16(9);
	return m;
}

/* The NF (index into vs.nfs) that the service gives a packet of flow f. */
static int
pick(struct vs_service *s, uint32_t f, uint16_t frame_bytes)
{
	struct rte_mbuf *m = packet(f, frame_bytes);
	int nf = vs_service_pick(&vs, s, m);

	rte_pktmbuf_free(m);
	return nf;
}

static void
test_maglev_shares_follow_the_weights(void)
{
	static const char *const lists[] = { "nf0,nf1", "nf0:3,nf1:1", "nf0:1,nf1:2,nf2:5",
					     "nf0:1000,nf1:1,nf2:10,nf3:100" };
	unsigned int l, i, k;

	for (l = 0; l < RTE_DIM(lists); l++) {
		char cmd[128];
		struct vs_service *s;
		double sum = 0, slots[NFVP_MAX_INSTANCES] = { 0 };

		setup();
		snprintf(cmd, sizeof(cmd), "add w weighted stateful packets 512 %s", lists[l]);
		CHECK(strncmp(command(cmd), "ok", 2) == 0);
		s = service("w");
		CHECK(s != NULL && s->n >= 2);
		if (s == NULL)
			return;
		for (k = 0; k < VS_MAGLEV_M; k++)
			slots[s->maglev[k]]++;
		for (i = 0; i < s->n; i++)
			sum += s->weight[i];
		for (i = 0; i < s->n; i++) {
			double want = s->weight[i] / sum, got = slots[i] / VS_MAGLEV_M;

			/* within 1 % of the weight's share (or a slot, for the smallest) */
			CHECK(got >= want * 0.99 - 1.0 / VS_MAGLEV_M &&
			      got <= want * 1.01 + 1.0 / VS_MAGLEV_M);
		}
	}
}

static void
test_a_zero_weight_takes_no_flow(void)
{
	struct vs_service *s;
	unsigned int f, to_nf1 = 0;

	setup();
	CHECK(strncmp(command("add z weighted stateful packets 512 nf0:1,nf1:0,nf2:1"), "ok", 2)
	      == 0);
	s = service("z");
	for (f = 0; f < 2000; f++)
		to_nf1 += pick(s, f, 64) == 1;
	CHECK(to_nf1 == 0 && s->inst_flows[0] > 0 && s->inst_flows[2] > 0);

	setup();
	CHECK(strncmp(command("add a nf-aware stateful packets 512 nf0:1,nf1:0,nf2:1"), "ok", 2)
	      == 0);
	s = service("a");
	to_nf1 = 0;
	for (f = 0; f < 600; f++)
		to_nf1 += pick(s, f, f % 3 == 0 ? 1000 : 64) == 1;
	CHECK(to_nf1 == 0 && s->inst_flows[1] == 0);
}

static void
test_nf_aware_keeps_large_and_small_flows_apart(void)
{
	struct vs_service *s;
	unsigned int f, seen_large = 0, seen_small = 0, i;

	setup();
	CHECK(strncmp(command("add a nf-aware stateful packets 512 nf0,nf1,nf2,nf3"), "ok", 2)
	      == 0);
	s = service("a");
	/* small flows carry most packets (cost by packets): they get most instances */
	for (f = 0; f < 4000; f++) {
		int large = f % 10 == 0, nf = pick(s, f, large ? 1200 : 64);

		if (f >= 100)        /* once both classes have been seen, groups are apart */
			*(large ? &seen_large : &seen_small) |= 1u << nf;
	}
	CHECK((seen_large & seen_small) == 0);
	CHECK(seen_large != 0 && seen_small != 0);
	CHECK(s->n_large == 1); /* 1 of 4 instances: a tenth of the packets are large */
	for (i = 0; i < s->n; i++)
		CHECK(s->inst_flows[i] > 0);

	/* bytes drive an IDS's cost: the same traffic gives the large flows more instances */
	setup();
	CHECK(strncmp(command("add b nf-aware stateful bytes 512 nf0,nf1,nf2,nf3"), "ok", 2) == 0);
	s = service("b");
	for (f = 0; f < 4000; f++)
		pick(s, f, f % 10 == 0 ? 1200 : 64);
	CHECK(s->n_large >= 2);
}

static void
test_bad_commands_get_one_error_line(void)
{
	static const struct {
		const char *cmd, *reply;
	} cases[] = {
		{ "add s flow stateful packets 512", "error service add: expected NAME POLICY" },
		{ "add s random stateful packets 512 nf0", "error service policy: expected flow" },
		{ "add s round-robin stateful packets 512 nf0", "error service policy: round-robin" },
		{ "add s flow maybe packets 512 nf0", "error service state: expected" },
		{ "add s flow stateful frames 512 nf0", "error service cost: expected packets" },
		{ "add s flow stateful packets 63 nf0", "error service large_bytes: expected 64..9216" },
		{ "add s flow stateful packets 9217 nf0", "error service large_bytes: expected" },
		{ "add s flow stateful packets 512x nf0", "error service large_bytes: expected" },
		{ "add s weighted stateful packets 512 nf0:1001", "error service weight: expected 0..1000" },
		{ "add s weighted stateful packets 512 nf0:-1", "error service weight: expected 0..1000" },
		{ "add s weighted stateful packets 512 nf0:0,nf1:0", "error service weight: expected "
		  "weights that sum" },
		{ "add s flow stateful packets 512 nf9", "error service nf: expected the name" },
		{ "add s flow stateful packets 512 nf0,nf0", "error service nf: \"nf0\" named twice" },
		{ "set nope nf0", "error service: no service \"nope\"" },
		{ "drop s", "error service: expected add or set, found \"drop\"" },
		{ "", "error service: expected add NAME" },
	};
	unsigned int i;

	setup();
	for (i = 0; i < RTE_DIM(cases); i++) {
		const char *got = command(cases[i].cmd);

		CHECK(strncmp(got, cases[i].reply, strlen(cases[i].reply)) == 0);
		CHECK(strchr(got, '\n') == NULL);
		if (strncmp(got, cases[i].reply, strlen(cases[i].reply)) != 0)
			fprintf(stderr, "  \"%s\" -> \"%s\"\n", cases[i].cmd, got);
	}
	CHECK(service("s") == NULL); /* nothing half-made */
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0], "-l", "0", "--no-huge", "--no-pci", "-m", "512",
			"--log-level", "*:error", "--file-prefix", "nfvp_test_service" };

	(void)argc;
	if (rte_eal_init(RTE_DIM(eal), eal) < 0) {
		fprintf(stderr, "test_service: EAL did not start\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("test_pool", 1024, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL)
		return 1;
	test_maglev_shares_follow_the_weights();
	test_a_zero_weight_takes_no_flow();
	test_nf_aware_keeps_large_and_small_flows_apart();
	test_bad_commands_get_one_error_line();
	rte_eal_cleanup();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
