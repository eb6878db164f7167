/* SPDX-License-Identifier: MIT */
/* router: an IPv4 router: longest-prefix match of the destination address (rte_lpm, DIR-24-8),
 * TTL decrement with an incremental checksum update (RFC 1624), new MAC addresses, out of the
 * route's port. Dropped, each counted by its reason: not IPv4 (not_ipv4), headers cut short
 * (truncated), a TTL that would expire (ttl; no ICMP time exceeded is sent), no route
 * (no_route).
 * Routes, either from --route-file (lines "A.B.C.D/LEN PORT MAC", and "default PORT MAC" for
 * what no prefix matches; # comments) or made up: --routes /24s 10.i.j.0/24 and --long-routes
 * /28s 11.i.j.k/28, route r to port --port-base + r mod --ports and next-hop MAC
 * 02:00:00:00:hh:hh (hh: r), no default.
 * Its EO model: src/nfvperf/data/nfs/router.yaml. */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lpm.h>

#include "../common/nf_eal.h"
#include "nfvp_cksum.h"
#include "nfvp_nf.h"
#include "nfvp_parse.h"

#define ROUTER_MAX_FILE_ROUTES 65536u

/* A route of --route-file: its prefix and where it leads. */
struct file_route {
	uint32_t prefix;
	uint8_t depth;
	uint16_t port;
	struct rte_ether_addr mac;
};

static struct {
	uint32_t routes, long_routes, ports, port_base;
	struct rte_lpm *lpm;
	struct file_route *file;   /* --route-file's routes, or NULL */
	uint32_t n_file;
	int has_default;
	struct file_route dflt;    /* its default route */
} rt = { .routes = 65536, .long_routes = 4096, .ports = 1 };

static const struct rte_ether_addr router_mac = { { 0x02, 0x00, 0x00, 0x00, 0xee, 0x01 } };

static uint16_t
router_burst(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	bool keep[NFVP_NF_MAX_BURST];
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *);
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
		enum nfvp_drop_reason why = NFVP_DROP_REASONS;
		uint32_t hop;

		if (rte_pktmbuf_data_len(pkts[i]) < sizeof(*eth) + sizeof(*ip))
			why = NFVP_DROP_TRUNCATED;
		else if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
			why = NFVP_DROP_NOT_IPV4;
		else if (ip->time_to_live <= 1)
			why = NFVP_DROP_TTL;
		else if (rte_lpm_lookup(rt.lpm, rte_be_to_cpu_32(ip->dst_addr), &hop) != 0) {
			if (rt.has_default)
				hop = rt.n_file; /* the default: the entry after the file's routes */
			else
				why = NFVP_DROP_NO_ROUTE;
		}
		if (why != NFVP_DROP_REASONS) {
			nfvp_nf_drop(nf, why, 1);
			keep[i] = false;
			continue;
		}
		nfvp_ipv4_ttl_dec(ip);
		eth->src_addr = router_mac;
		if (rt.file != NULL) {
			const struct file_route *r = hop < rt.n_file ? &rt.file[hop] : &rt.dflt;

			eth->dst_addr = r->mac;
			nfvp_nf_set_port(pkts[i], r->port);
		} else {
			eth->dst_addr = (struct rte_ether_addr){ { 0x02, 0, 0, 0, (uint8_t)(hop >> 8),
								   (uint8_t)hop } };
			nfvp_nf_set_port(pkts[i], (uint16_t)(rt.port_base + hop % rt.ports));
		}
		keep[i] = true;
	}
	return nfvp_nf_keep(pkts, n, keep);
}

static int
router_setup(struct nfvp_nf *nf)
{
	struct rte_lpm_config cfg = {
		.max_rules = rt.routes + rt.long_routes + 16,
		.number_tbl8s = rt.long_routes + 16,
	};
	uint32_t r;

	if (nfvp_nf_private_eal(nfvp_nf_name(nf)) < 0)
		return -ENODEV;
	if (rt.file != NULL) {
		cfg.max_rules = rt.n_file + 16;
		cfg.number_tbl8s = rt.n_file + 16;
	}
	rt.lpm = rte_lpm_create("router", SOCKET_ID_ANY, &cfg);
	if (rt.lpm == NULL)
		return -ENOMEM;
	for (r = 0; rt.file != NULL && r < rt.n_file; r++)
		if (rte_lpm_add(rt.lpm, rt.file[r].prefix, rt.file[r].depth, r) < 0)
			return -ENOSPC;
	if (rt.file != NULL)
		return 0;
	for (r = 0; r < rt.routes; r++)
		if (rte_lpm_add(rt.lpm, RTE_IPV4(10, (r >> 8) & 255, r & 255, 0), 24, r) < 0)
			return -ENOSPC;
	for (r = 0; r < rt.long_routes; r++)
		if (rte_lpm_add(rt.lpm, RTE_IPV4(11, (r >> 12) & 255, (r >> 4) & 255, (r & 15) << 4),
				28, rt.routes + r) < 0)
			return -ENOSPC;
	return 0;
}

/* One line of --route-file into r (default: depth 0); NULL, or what was expected. */
static const char *
route_line(char *line, struct file_route *r)
{
	char *what = strtok(line, " \t"), *port = strtok(NULL, " \t"), *mac = strtok(NULL, " \t");
	char *slash = what ? strchr(what, '/') : NULL;
	uint64_t v, depth = 0;
	uint32_t addr = 0;

	if (what == NULL || port == NULL || mac == NULL || strtok(NULL, " \t") != NULL)
		return "A.B.C.D/LEN PORT MAC or default PORT MAC";
	if (strcmp(what, "default") != 0) {
		if (slash == NULL)
			return "a prefix A.B.C.D/LEN";
		*slash = '\0';
		if (nfvp_parse_ipv4(what, &addr) != 0 || nfvp_parse_u64(slash + 1, 1, 32, &depth))
			return "a prefix A.B.C.D/LEN (LEN 1..32)";
	}
	if (nfvp_parse_u64(port, 0, UINT16_MAX, &v) != 0)
		return "a port 0..65535";
	if (rte_ether_unformat_addr(mac, &r->mac) != 0)
		return "a MAC xx:xx:xx:xx:xx:xx";
	r->prefix = addr;
	r->depth = (uint8_t)depth;
	r->port = (uint16_t)v;
	return NULL;
}

/* --route-file: every line, or a message naming the line that is not a route. */
static const char *
route_file(const char *path)
{
	static char msg[160];
	char line[256];
	unsigned int n = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return "a readable file of routes";
	rt.file = calloc(ROUTER_MAX_FILE_ROUTES, sizeof(*rt.file));
	while (rt.file != NULL && fgets(line, sizeof(line), f) != NULL) {
		struct file_route r;
		const char *bad;
		char *hash = strchr(line, '#');

		n++;
		if (hash != NULL)
			*hash = '\0';
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		line[strcspn(line, "\r\n")] = '\0';
		bad = route_line(line, &r);
		if (bad == NULL && r.depth == 0) {
			rt.dflt = r;
			rt.has_default = 1;
		} else if (bad == NULL && rt.n_file < ROUTER_MAX_FILE_ROUTES) {
			rt.file[rt.n_file++] = r;
		} else {
			snprintf(msg, sizeof(msg), "line %u: %s", n,
				 bad ? bad : "at most " RTE_STR(ROUTER_MAX_FILE_ROUTES) " routes");
			fclose(f);
			return msg;
		}
	}
	fclose(f);
	return rt.file == NULL ? "memory for the routes" : NULL;
}

static const char *
router_opt(int key, const char *value)
{
	uint64_t v;

	if (key == 'f')
		return route_file(value);

	if (key == 'r' || key == 'l') {
		if (nfvp_parse_u64(value, 0, 65536, &v) != 0)
			return "a count 0..65536";
		*(key == 'r' ? &rt.routes : &rt.long_routes) = (uint32_t)v;
		return NULL;
	}
	if (nfvp_parse_u64(value, key == 'p' ? 1 : 0, UINT16_MAX, &v) != 0)
		return key == 'p' ? "a count 1..65535" : "a port 0..65535";
	*(key == 'p' ? &rt.ports : &rt.port_base) = (uint32_t)v;
	return NULL;
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .setup = router_setup, .burst = router_burst };
	static const struct option opts[] = {
		{ "routes", required_argument, NULL, 'r' },
		{ "long-routes", required_argument, NULL, 'l' },
		{ "ports", required_argument, NULL, 'p' },
		{ "port-base", required_argument, NULL, 'b' },
		{ "route-file", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};

	return nfvp_nf_main(argc, argv, "router", &ops, opts, router_opt);
}
